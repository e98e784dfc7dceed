// Self-tuned pace on the model zoo, by replay: ResNet-50, VGG-16, BERT-base and GPT-2 small on 8 ranks at 10, 25,
// 50 and 100 Gb/s (ring all-reduce, 20 us per call as the zoo's default link), against every baseline at its
// defaults and against the simulator's lower bound (engine/sim/simulator.cpp: compute with the unavoidable wait for
// the input side, every byte with the link's unavoidable idle on the output side), all computed in the same run.
// Goals: self-tuned pace within 2% of the lower bound and never behind bytescheduler; each cell that falls short is
// marked, counted and named at the end (the exit status stays 0: a shortfall is a finding to report, not a
// crash). Also the time the tuning took.
//
//   bench_self_tune [--quick]     --quick: ResNet-50 at 25 Gb/s (CTest runs it so that it never rots)
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "engine/planning/self_tune.h"
#include "engine/policy_config.h"
#include "engine/replay/replay.h"
#include "engine/replay/zoo.h"

using namespace pacer::engine;

namespace {

double predicted(const Workload& w, const std::string& policy, const WhatIf& whatIf) {
    PolicyConfig config;
    config.name = policy;
    Result<ReplayResult> r = replay(w, CostModel{}, config, whatIf);
    if (!r.ok()) {
        std::fprintf(stderr, "bench_self_tune: %s\n", r.status().message().c_str());
        std::exit(1);
    }
    return r.value().sim.figures.iter_ms;
}

}  // namespace

int main(int argc, char** argv) {
    const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
    const std::vector<std::string> models =
        quick ? std::vector<std::string>{"resnet50"}
              : std::vector<std::string>{"resnet50", "vgg16", "bert_base", "gpt2_small"};
    const std::vector<double> links = quick ? std::vector<double>{25} : std::vector<double>{10, 25, 50, 100};
    const std::vector<std::string> baselines{"fifo", "ddp", "horovod", "bytescheduler"};
    std::printf("# replay, 8 ranks, GPU-style engine (one channel; order chosen), ms per iteration\n");
    std::printf("%-11s %6s %9s %9s %9s %9s %9s %9s %9s %8s %8s %9s  %s\n", "model", "Gb/s", "fifo", "ddp", "horovod",
                "bytesch", "pace", "tuned", "bound", "t/bound", "t/bytes", "tune ms", "chosen");
    int shortOfBound = 0, behindBytescheduler = 0, cells = 0;
    std::string shortCells;
    for (const std::string& name : models) {
        Result<Workload> w = loadProfile(name, 0, {std::string(PACER_SAMPLES_DIR) + "/zoo"});
        if (!w.ok()) {
            std::fprintf(stderr, "bench_self_tune: %s\n", w.status().message().c_str());
            return 1;
        }
        for (double gbps : links) {
            WhatIf whatIf;
            whatIf.link_gbps = gbps;
            whatIf.ranks = 8;
            std::vector<double> ms;
            for (const std::string& p : baselines) ms.push_back(predicted(w.value(), p, whatIf));
            const double paceDefault = predicted(w.value(), "pace", whatIf);
            TuneRequest request;
            request.policy.name = "pace";
            request.host_memory = false;  // the zoo stands for GPU clusters: NCCL, one channel of ours
            request.channels_fixed = true;
            const auto t0 = std::chrono::steady_clock::now();
            Result<TunedPace> tuned = tunePace(w.value(), CostModel{}, request, whatIf);
            const double tuneMs =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            if (!tuned.ok()) {
                std::fprintf(stderr, "bench_self_tune: %s\n", tuned.status().message().c_str());
                return 1;
            }
            const SimFigures& f = tuned.value().figures;
            const double toBound = f.iter_ms / f.lower_bound_ms;
            const double toBytescheduler = f.iter_ms / ms[3];
            ++cells;
            const bool nearBound = toBound <= 1.02;
            const bool aheadOfBytescheduler = f.iter_ms <= ms[3] * (1 + 1e-9);
            if (!nearBound || !aheadOfBytescheduler)
                shortCells += " " + name + "@" + std::to_string(static_cast<int>(gbps)) + "Gb/s";
            shortOfBound += nearBound ? 0 : 1;
            behindBytescheduler += aheadOfBytescheduler ? 0 : 1;
            std::printf("%-11s %6.0f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %8.4f %8.4f %9.1f  %s, %zu KiB, %zu groups%s%s\n",
                        name.c_str(), gbps, ms[0], ms[1], ms[2], ms[3], paceDefault, f.iter_ms, f.lower_bound_ms, toBound,
                        toBytescheduler, tuneMs, tuned.value().plan_order ? "plan" : "dynamic",
                        tuned.value().policy.segment_bytes >> 10, tuned.value().policy.fusion_groups.size(),
                        nearBound ? "" : "  [more than 2% above the bound]",
                        aheadOfBytescheduler ? "" : "  [behind bytescheduler]");
        }
    }
    std::printf("# goals: within 2%% of the lower bound in %d of %d cells; not behind bytescheduler in %d of %d\n",
                cells - shortOfBound, cells, cells - behindBytescheduler, cells);
    std::printf("# short of a goal:%s\n", shortCells.empty() ? " none" : shortCells.c_str());
    return 0;
}
