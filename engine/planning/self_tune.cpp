#include "engine/planning/self_tune.h"

#include <algorithm>
#include <utility>

namespace pacer::engine {
namespace {

constexpr std::size_t kSmallestSegment = 64 << 10;  // below this the per-call cost dominates on any link seen
constexpr std::size_t kLargestSegment = 64 << 20;
// The fusion search simulates about (tensors x largest group) schedules. A group may span every tensor of a small
// model: a cap of 16 tensors kept the transformer sample (54 tensors) from DDP's few large buckets, and at 25 Gb/s,
// where its compute hides nearly all communication and each collective's CPU comes out of compute, replay from
// its runs put DDP 1-3% ahead of the tuned pace. Large models (the zoo's 150-200 tensors) keep groups of about
// 20-27 tensors, so the search stays about as long as it was with 16.
constexpr int kFusionSearchBudget = 4096;
constexpr int kSmallestGroupCap = 16;

struct Candidate {
    bool plan_order;
    int channels;
};

// Several channels are tried only where each can have a core of its own. A channel is a thread per rank whose
// collectives hand off to the peers' matching threads; on a CPU host whose cores the compute threads already keep
// busy (Workload::comm_cpu is measured only there) each hand-off waits for the peer's thread to be scheduled, a
// cost a one-channel warm-up cannot show. Measured on 2 cores, 2 ranks over shared memory, the three families at
// 10 and 25 Gb/s, medians of three: 4 channels ran 6-30% slower than 1 in all six cells and 2 channels 2-15%
// slower, where replay from the same cells' one-channel runs put them within 4% of one channel, mostly ahead.
std::vector<Candidate> candidates(const TuneRequest& r, bool coresToSpare) {
    std::vector<Candidate> out;
    const bool tryDynamic = !r.order_fixed || !r.plan_order;
    const bool tryPlan = !r.order_fixed || r.plan_order;
    if (tryDynamic && (!r.channels_fixed || r.channels == 1)) out.push_back({false, 1});
    if (tryPlan) {
        if (r.channels_fixed) out.push_back({true, r.channels});
        else if (r.host_memory && coresToSpare) for (int c : {1, 2, 4}) out.push_back({true, c});
        else out.push_back({true, 1});
    }
    return out;
}

// Segment sizes worth trying: powers of two from 64 KiB to the first that holds the largest tensor whole.
std::vector<std::size_t> segmentSizes(const Workload& w) {
    std::size_t largest = 0;
    for (const TensorInfo& t : w.tensors) largest = std::max(largest, t.bytes());
    std::vector<std::size_t> sizes;
    for (std::size_t s = kSmallestSegment; s <= kLargestSegment; s *= 2) {
        sizes.push_back(s);
        if (s >= largest) break;
    }
    return sizes;
}

std::size_t totalBytes(const Workload& w) {
    std::size_t sum = 0;
    for (const TensorInfo& t : w.tensors) sum += t.bytes();
    return sum;
}

bool better(const SimFigures& a, const SimFigures& b) {
    constexpr double kEps = 1e-9;
    if (a.iter_ms < b.iter_ms - kEps) return true;
    if (a.iter_ms > b.iter_ms + kEps) return false;
    return a.comm_ms < b.comm_ms - kEps;
}

struct Tried {
    PolicyConfig policy;
    SimFigures figures;
};

Result<Tried> tuneOne(const Workload& w, const CostModel& c, const TuneRequest& r, int* evaluations) {
    Tried best{r.policy, {}};
    bool have = false;
    const std::vector<std::size_t> sizes =
        r.segment_fixed ? std::vector<std::size_t>{r.policy.segment_bytes} : segmentSizes(w);
    for (std::size_t s : sizes) {
        PolicyConfig p = r.policy;
        p.segment_bytes = s;
        Result<ReplayResult> sim = replay(w, c, p, WhatIf{});
        if (!sim.ok()) return sim.status();
        ++*evaluations;
        if (!have || better(sim.value().sim.figures, best.figures)) best = {p, sim.value().sim.figures};
        have = true;
    }
    if (!r.fusion_fixed) {
        // Groups may grow past one segment, up to the whole model: where every call costs a fixed millisecond, a
        // few large fused units (as DDP's 25 MiB buckets) can beat many small ones, and the search weighs that.
        FusionSearchOptions search;
        search.max_group_bytes = std::max(best.policy.segment_bytes, totalBytes(w));
        const int tensors = static_cast<int>(w.tensors.size());
        search.max_group = std::max(kSmallestGroupCap, kFusionSearchBudget / std::max(1, tensors));
        Result<FusionResult> fusion = searchFusion(w, c, best.policy, WhatIf{}, search);
        if (!fusion.ok()) return fusion.status();
        *evaluations += fusion.value().evaluations;
        best.policy.fusion_groups = fusion.value().groups;
        if (best.policy.fusion_groups.empty()) best.policy.fuse_below_bytes = 0;  // nothing fused: say so
        Result<ReplayResult> sim = replay(w, c, best.policy, WhatIf{});
        if (!sim.ok()) return sim.status();
        ++*evaluations;
        best.figures = sim.value().sim.figures;
    }
    return best;
}

}  // namespace

Workload asRun(const Workload& workload, bool planOrder, int channels, bool hostMemory) {
    Workload w = workload;
    w.readiness_rides_on_units = readinessRidesOnUnits(planOrder, hostMemory);
    w.channels = planOrder ? std::max(1, channels) : 1;
    return w;
}

CostModel calibratePerCallCost(const Workload& workload, const CostModel& cost, const PolicyConfig& observed,
                               double observedMs) {
    if (!(observedMs > 0)) return cost;
    Result<ReplayResult> r = replay(workload, cost, observed, WhatIf{});
    if (!r.ok() || r.value().sim.order.empty()) return cost;
    const double predictedMs = r.value().sim.figures.iter_ms;
    if (observedMs <= predictedMs * 1.02) return cost;
    const double extraNs = (observedMs - predictedMs) * 1e6 / static_cast<double>(r.value().sim.order.size());
    CostModel c = cost;
    c.alpha_ns += extraNs;
    for (auto& [bytes, ns] : c.measured) ns += extraNs;
    return c;
}

Result<TunedPace> tunePace(const Workload& workload, const CostModel& cost, const TuneRequest& request,
                           const WhatIf& whatIf) {
    if (request.policy.name != "pace") return Status::error("only pace tunes itself, not '" + request.policy.name + "'");
    Result<Workload> w = applyWhatIf(workload, whatIf);
    if (!w.ok()) return w.status();
    const CostModel calibrated = calibratePerCallCost(workload, cost, request.observed_policy, request.observed_ms);
    Result<CostModel> c = applyWhatIf(calibrated, workload.ranks, whatIf);
    if (!c.ok()) return c.status();
    TuneRequest r = request;
    if (whatIf.channels > 0) {
        r.channels_fixed = true;
        r.channels = whatIf.channels;
        // Asking what several channels would do is asking for plan order, whatever order the source run used
        // (replaying a dynamic-order run with --channels 2 found no order to run and failed).
        if (whatIf.channels > 1) r.order_fixed = r.plan_order = true;
    }
    const std::vector<Candidate> options = candidates(r, !w.value().comm_cpu.any());
    if (options.empty()) return Status::error("no order can run " + std::to_string(r.channels) + " channels");

    TunedPace best;
    bool have = false;
    for (const Candidate& o : options) {
        const Workload run = asRun(w.value(), o.plan_order, o.channels, r.host_memory);
        Result<Tried> tried = tuneOne(run, c.value(), r, &best.evaluations);
        if (!tried.ok()) return tried.status();
        if (have && !better(tried.value().figures, best.figures)) continue;
        best.policy = tried.value().policy;
        best.figures = tried.value().figures;
        best.plan_order = o.plan_order;
        best.channels = o.channels;
        best.workload = run;
        have = true;
    }
    best.cost = c.value();
    return best;
}

}  // namespace pacer::engine
