// Observed runs for the replay tests: spans made by hand, and "captures" simulated from a known truth, so that what
// replay reads back off them can be checked against what made them. Shared by tst_replay (predictions, what-if,
// sweeps), tst_replay_extraction (the workload and the run's model) and tst_replay_costs (the cost fits).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "engine/plan.h"
#include "engine/policy_config.h"
#include "engine/replay/observed_run.h"
#include "engine/replay/replay.h"
#include "test_models.h"

namespace pacer::engine::testing {

inline ObservedSpan span(ObservedSpan::Kind kind, int rank, int iteration, int layer, Nanos start, Nanos end) {
    ObservedSpan s;
    s.kind = kind;
    s.rank = rank;
    s.iteration = iteration;
    s.layer = layer;
    s.start = start;
    s.end = end;
    return s;
}

inline ObservedSpan comm(int rank, int iteration, int tensor, std::int64_t bytes, Nanos start, Nanos duration) {
    ObservedSpan s = span(ObservedSpan::Comm, rank, iteration, -1, start, start + duration);
    s.tensor = tensor;
    s.segment = 0;
    s.bytes = bytes;
    return s;
}

// The run as traced before agreement rounds were spans of their own (2026-12-03): a unit's span begins with the
// round that chose it, and rounds that chose nothing are not seen.
inline ObservedRun roundsInsideUnits(ObservedRun run) {
    std::map<int, std::vector<std::size_t>> byRank;  // comm-thread spans by start
    for (std::size_t i = 0; i < run.spans.size(); ++i)
        if (run.spans[i].kind == ObservedSpan::Comm || run.spans[i].kind == ObservedSpan::Round)
            byRank[run.spans[i].rank].push_back(i);
    for (auto& [rank, ids] : byRank) {
        std::sort(ids.begin(), ids.end(),
                  [&](std::size_t a, std::size_t b) { return run.spans[a].start < run.spans[b].start; });
        for (std::size_t k = 1; k < ids.size(); ++k) {
            const ObservedSpan& round = run.spans[ids[k - 1]];
            ObservedSpan& unit = run.spans[ids[k]];
            if (unit.kind == ObservedSpan::Comm && round.kind == ObservedSpan::Round &&
                round.iteration == unit.iteration)
                unit.start = round.start;
        }
    }
    std::erase_if(run.spans, [](const ObservedSpan& s) { return s.kind == ObservedSpan::Round; });
    return run;
}

// A "capture" of `truth` under fifo: simulated iterations (the first a warm-up) as an observed run.
inline ObservedRun simulatedFifoCapture(const Workload& truth, int iterations = 12) {
    PolicyConfig fifo;
    fifo.name = "fifo";
    Result<ReplayResult> captured =
        replay(truth, CostModel{100'000, 2.0, {}}, fifo, WhatIf{}, SimOptions{iterations, 1});
    return captured.ok() ? toObservedRun(truth, captured.value().sim, "fifo") : ObservedRun{};
}

// The per-iteration estimates of `model` with iteration i's compute slowdown(i) times slower, and its measured time
// too where `measuredToo` (an iteration that ran slower, not only an estimate that says so).
template <class Slowdown>
std::vector<IterationEstimate> slowedIterations(const ObservedModel& model, Slowdown slowdown, bool measuredToo) {
    std::vector<IterationEstimate> iterations = model.iterations;
    for (std::size_t i = 0; i < iterations.size(); ++i) {
        WhatIf slower;
        slower.compute_speed = 1 / slowdown(i);
        iterations[i].workload = applyWhatIf(iterations[i].workload, slower).value();
        if (measuredToo) iterations[i].observed_ms *= slowdown(i);
    }
    return iterations;
}

// Pace in 256 KiB segments, fusing below 64 KiB, on the synthetic model.
inline PolicyConfig paceQuarterMiB() {
    PolicyConfig pace;
    pace.name = "pace";
    pace.segment_bytes = 256 << 10;
    return pace;
}

// A "capture" of a plan-order run: `plan` followed on `channels` channels (lanes), simulated iterations as an observed
// run.
inline ObservedRun simulatedPlanCapture(const Workload& truth, const std::vector<CommUnit>& plan, int channels,
                                 Nanos releaseGap = 0) {
    Workload w = truth;
    w.channels = channels;
    w.release_gap_ns = releaseGap;
    PolicyConfig config = paceQuarterMiB();
    config.plan = plan;
    auto policy = makePolicy(config, w.tensors);
    if (!policy.ok()) return {};
    Result<SimResult> sim = simulate(w, *policy.value(), CostModel{100'000, 2.0, {}}, SimOptions{8, 1});
    if (!sim.ok()) return {};
    ObservedRun run = toObservedRun(w, sim.value(), "pace");
    run.channels = channels;
    return run;
}

// The units pace makes of `w`'s tensors in the order it sends them with every gradient ready at once: the input
// side first, which on a real run's timings it never does (tensor 0 is ready last).
inline std::vector<CommUnit> inputSideFirst(const Workload& w) {
    auto policy = makePolicy(paceQuarterMiB(), w.tensors);
    auto units = recordPlan(*policy.value(), w.tensors);
    return units.ok() ? units.value() : std::vector<CommUnit>{};
}

inline bool samePieces(const std::vector<CommUnit>& a, const std::vector<CommUnit>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t u = 0; u < a.size(); ++u) {
        if (a[u].pieces.size() != b[u].pieces.size()) return false;
        for (std::size_t p = 0; p < a[u].pieces.size(); ++p) {
            const Piece &x = a[u].pieces[p], &y = b[u].pieces[p];
            if (x.tensor != y.tensor || x.segment != y.segment || x.offset != y.offset || x.count != y.count)
                return false;
        }
    }
    return true;
}

inline ObservedRun twoTensorRun() {
    ObservedRun run;
    run.ranks = 2;
    run.policy = "fifo";
    run.tensors = {{0, "a", 0, 1000}, {1, "b", 1, 1000}};
    run.layerNames = {"a", "b"};
    return run;
}

// A synthetic job on CPU ranks in dynamic order (readiness riding on the units), whose stand-alone rounds cost one
// collective of the control block on `cost` (set here), and, with `cpu`, whose collectives take 40 us + 0.1 ns/B of
// CPU from compute, a round its control block's.
inline Workload dynamicOrderTruth(int layers, Nanos backward, bool cpu, CostModel& cost) {
    Workload truth = pacer::test::syntheticModel(layers, 16'384, 50'000, backward);
    truth.readiness_rides_on_units = true;
    const std::size_t control = controlBlockBytes(truth.tensors.size());
    cost.first_unit_extra_ns = static_cast<double>(cost.at(control));
    if (cpu) {
        truth.comm_cpu = {40'000, 0.1, 0};
        truth.comm_cpu.round_ns = truth.comm_cpu.at(control);
    }
    return truth;
}

// A stall: rank 0 loses its core for 50 ms in iteration 5, inside layer 2's backward (the span and the iteration
// both end that much later).
inline void stallRank0InIteration5(ObservedRun& run) {
    for (ObservedSpan& s : run.spans)
        if (s.rank == 0 && s.iteration == 5 &&
            (s.kind == ObservedSpan::Iteration || (s.kind == ObservedSpan::Backward && s.layer == 2)))
            s.end += 50'000'000;
}

}  // namespace pacer::engine::testing
