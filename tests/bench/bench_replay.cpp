// Replay time: one replay (makePolicy + four simulated iterations) of 200- and 1,000-tensor models under every
// policy, as the schedule editor runs it on each edit. Goals: <= 1 ms at 200 tensors, <= 5 ms at 1,000.
// Baseline measured in the same run: fifo, the simplest policy (whole tensors, no segments); the ratio shows
// what segmenting, priorities and fusion cost on top. Also the zoo models, a 15-point sweep, the fusion search, and
// reading a long run into a workload and its per-iteration estimates (against reading the whole run for each).
//
//   bench_replay [--quick]     --quick: fewer repetitions (CTest runs it so that it never rots)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "engine/policy_config.h"
#include "engine/replay/observed_run.h"
#include "engine/replay/replay.h"
#include "engine/replay/zoo.h"

using namespace pacer::engine;
using Clock = std::chrono::steady_clock;

namespace {

// `tensors` tensors, two per layer (weight, bias); weights cycle through sizes from 4 KiB to 16 MiB so that
// segmenting and fusion both have work. Compute of the same order as communication at 10 Gb/s.
Workload syntheticModel(int tensors) {
    Workload w;
    w.ranks = 8;
    w.update_ns_per_element = 0.025;
    const int layers = tensors / 2;
    for (int l = 0; l < layers; ++l) {
        const std::size_t weight = std::size_t{1024} << (l % 13);
        const std::string layer = std::to_string(l);  // (prefix + to_string trips a GCC 12 -Wrestrict false positive)
        w.layers.push_back(
            {"layer." + layer, static_cast<Nanos>(20'000 + weight / 8), static_cast<Nanos>(40'000 + weight / 4)});
        w.tensors.push_back({static_cast<int>(w.tensors.size()), layer + ".weight", l, weight});
        w.tensors.push_back({static_cast<int>(w.tensors.size()), layer + ".bias", l, 256});
    }
    return w;
}

double medianUs(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// Median wall time of one replay in microseconds, and the predicted iteration time (to keep the work observable).
double timeReplay(const Workload& w, const PolicyConfig& config, const WhatIf& whatIf, int reps, double& iterMs,
                  const SimOptions& options = {}, std::size_t* events = nullptr) {
    std::vector<double> us;
    us.reserve(reps);
    for (int r = 0; r < reps; ++r) {
        const auto t0 = Clock::now();
        Result<ReplayResult> result = replay(w, CostModel{}, config, whatIf, options);
        const auto t1 = Clock::now();
        if (!result.ok()) {
            std::fprintf(stderr, "bench_replay: %s\n", result.status().message().c_str());
            std::exit(1);
        }
        iterMs = result.value().sim.figures.iter_ms;
        if (events) *events = result.value().sim.events.size();
        us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
    return medianUs(us);
}

}  // namespace

int main(int argc, char** argv) {
    const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
    const int reps = quick ? 5 : 101;
    WhatIf link;
    link.link_gbps = 10;
    link.link_latency_us = 5;

    struct Model {
        std::string name;
        Workload workload;
        double goalUs;
    };
    std::vector<Model> models{{"synthetic-200", syntheticModel(200), 1000},
                              {"synthetic-1000", syntheticModel(1000), 5000}};
    for (const char* zoo : {"resnet50", "bert_base"}) {
        Result<Workload> w = loadProfile(zoo, 0, {std::string(PACER_SAMPLES_DIR) + "/zoo"});
        if (!w.ok()) {
            std::fprintf(stderr, "bench_replay: %s\n", w.status().message().c_str());
            return 1;
        }
        models.push_back({zoo, w.value(), 1000});
    }

    std::printf("replay time, 4 iterations, median of %d (10 Gb/s, 5 us, 8 ranks)\n", reps);
    std::printf("%-15s %7s %-14s %10s %9s %11s %6s\n", "model", "tensors", "policy", "replay_us", "vs_fifo",
                "pred_iter_ms", "goal");
    bool allMet = true;
    for (const Model& m : models) {
        double fifoUs = 0;
        for (const std::string& name : policyNames()) {
            PolicyConfig config;
            config.name = name;
            config.segment_bytes = 1 << 20;
            double iterMs = 0;
            const double us = timeReplay(m.workload, config, link, reps, iterMs);
            if (name == "fifo") fifoUs = us;
            const bool met = us <= m.goalUs;
            allMet = allMet && met;
            std::printf("%-15s %7zu %-14s %10.1f %8.2fx %11.3f %6s\n", m.name.c_str(), m.workload.tensors.size(),
                        name.c_str(), us, us / fifoUs, iterMs, met ? "met" : "MISSED");
        }
    }

    // An imported DDP job replays with the trace's own buckets (PolicyConfig::buckets): 1,000 tensors in 200
    // buckets of five, against fifo on the same workload. Goal <= 1 ms.
    {
        const Workload& w = models[1].workload;
        PolicyConfig ddp;
        ddp.name = "ddp";
        for (int b = 0; b < 200; ++b) {
            std::vector<int> bucket;
            for (int t = 5 * b; t < 5 * b + 5; ++t) bucket.push_back(t);
            ddp.buckets.insert(ddp.buckets.begin(), bucket);  // launch order: the last layers' bucket first
        }
        PolicyConfig fifo;
        fifo.name = "fifo";
        double iterMs = 0, fifoIterMs = 0;
        const double fifoUs = timeReplay(w, fifo, link, reps, fifoIterMs);
        const double us = timeReplay(w, ddp, link, reps, iterMs);
        allMet = allMet && us <= 1000;
        std::printf("%-15s %7zu %-14s %10.1f %8.2fx %11.3f %6s\n", "ddp-200-buckets", w.tensors.size(), "ddp (given)",
                    us, us / fifoUs, iterMs, us <= 1000 ? "met" : "MISSED");
    }
    // Small segments, as the schedule editor's slider reaches them: BERT-base (440 MB of gradients) under pace, every
    // unit simulated against runs of segments as one step (SimOptions::segment_runs, what the editor draws): the
    // same figures, a cost that should not grow with the segment count.
    std::printf("\nsmall segments, bert_base pace: every unit (baseline) against runs of segments\n");
    std::printf("%-10s %12s %9s %12s %9s %8s %12s\n", "segment", "every_us", "events", "runs_us", "events", "ratio",
                "pred_iter_ms");
    for (std::size_t segment : {std::size_t{4} << 10, std::size_t{16} << 10, std::size_t{64} << 10, std::size_t{1} << 20}) {
        PolicyConfig config;
        config.name = "pace";
        config.segment_bytes = segment;
        double everyMs = 0, runsMs = 0;
        std::size_t everyEvents = 0, runsEvents = 0;
        SimOptions runs;
        runs.segment_runs = true;
        const int smallReps = quick ? 1 : 5;
        const double everyUs = timeReplay(models[3].workload, config, link, smallReps, everyMs, {}, &everyEvents);
        const double runsUs = timeReplay(models[3].workload, config, link, reps, runsMs, runs, &runsEvents);
        if (everyMs != runsMs) {
            std::fprintf(stderr, "bench_replay: runs of segments changed the prediction (%.6f against %.6f ms)\n",
                         runsMs, everyMs);
            return 1;
        }
        std::printf("%7zu KiB %12.1f %9zu %12.1f %9zu %7.1fx %12.3f\n", segment >> 10, everyUs, everyEvents, runsUs,
                    runsEvents, everyUs / runsUs, runsMs);
    }

    // The heavier tools, once each on ResNet-50 (161 tensors).
    const Workload& resnet = models[2].workload;
    PolicyConfig pace;
    pace.name = "pace";
    auto t0 = Clock::now();
    Result<std::vector<SweepPoint>> s = sweep(resnet, CostModel{}, pace, "segment_bytes", 4096, 64 << 20, link);
    auto t1 = Clock::now();
    if (!s.ok()) return 1;
    const SweepPoint& best = s.value()[bestSweepPoint(s.value())];
    std::printf("sweep resnet50 pace segment_bytes 4 KiB..64 MiB: %zu points in %.1f ms, best %zu B -> %.3f ms\n",
                s.value().size(), std::chrono::duration<double, std::milli>(t1 - t0).count(), best.config.segment_bytes,
                best.figures.iter_ms);
    if (!quick) {
        pace.fuse_below_bytes = 0;
        t0 = Clock::now();
        Result<FusionResult> f = searchFusion(resnet, CostModel{}, pace, link);
        t1 = Clock::now();
        if (!f.ok()) return 1;
        std::printf("fusion search resnet50 pace: %d simulations in %.1f ms, %zu groups, %.3f -> %.3f ms (%.1f%%)\n",
                    f.value().evaluations, std::chrono::duration<double, std::milli>(t1 - t0).count(),
                    f.value().groups.size(), f.value().before_ms, f.value().after_ms,
                    100.0 * (1 - f.value().after_ms / f.value().before_ms));
    }
    // Reading a long run (modelObservedRun, what opening a run in the editor or `replay` costs): each kept
    // iteration's estimate reads its neighbourhood. Baseline in the same run: reading the whole run for each of them,
    // as it did until 2026-12-03 (a 1,000-iteration capture of the small MLP took 26 s). The estimates must agree.
    {
        const int iterations = quick ? 150 : 1000;
        Workload small = syntheticModel(20);
        small.ranks = 2;
        PolicyConfig fifo;
        fifo.name = "fifo";
        Result<std::unique_ptr<Policy>> policy = makePolicy(fifo, small.tensors);
        if (!policy.ok()) return 1;
        const CostModel link10{100'000, 0.8, {}};
        Result<SimResult> sim = simulate(small, *policy.value(), link10, SimOptions{iterations, 1});
        if (!sim.ok()) return 1;
        ObservedRun run = toObservedRun(small, sim.value(), "fifo");
        for (ObservedSpan& s : run.spans)  // uneven iterations, as a real run's
            s.end = s.start + (s.end - s.start) * (20 + (s.iteration * 7 + s.rank) % 5) / 20;
        auto t0 = Clock::now();
        Result<ObservedModel> model = modelObservedRun(run);
        auto t1 = Clock::now();
        if (!model.ok()) return 1;
        bool same = true;
        for (const IterationEstimate& e : model.value().iterations) {
            Result<Workload> w = extractWorkload(run, {e.iteration});
            Result<CostModel> c = fitCostModel(run, {e.iteration});
            same = same && w.ok() && c.ok() && w.value().tail_ns == e.workload.tail_ns &&
                   w.value().layers[0].backward == e.workload.layers[0].backward &&
                   c.value().alpha_ns == e.cost.alpha_ns && c.value().ns_per_byte == e.cost.ns_per_byte;
        }
        auto t2 = Clock::now();
        const double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
        const double wholeMs = std::chrono::duration<double, std::milli>(t2 - t1).count();
        std::printf("reading a %d-iteration run (2 ranks, %zu spans): %.1f ms; the whole run read per estimate: "
                    "%.1f ms (%.1fx)\n", iterations, run.spans.size(), ms, wholeMs, wholeMs / std::max(ms, 1e-3));
        if (!same) {
            std::fprintf(stderr, "bench_replay: an iteration's estimate differs from the whole run read for it\n");
            return 1;
        }
    }
    std::printf("goals (<= 1 ms at 200 tensors, <= 5 ms at 1,000): %s\n", allMet ? "all met" : "some missed");
    return 0;
}
