// PACE tunes itself: from a workload and its fitted link cost, choose what `pace` runs with.
//
// The PACE paper's point is the optimal schedule for the measured costs. A fixed segment size and a fixed fusion
// threshold are right for one fixed per-call cost only (on a CPU rank here about 1 ms per collective whatever its
// size, on a GPU cluster tens of microseconds), so the choice is made by replay, on the costs measured:
//   - for each order the engine can run (dynamic with one channel; plan order with 1, 2 or 4 channels on CPU
//     ranks with cores to spare, 1 on GPUs and where the compute threads keep every core busy), the segment size
//     is swept over powers of two, then PACE's fusion search picks the groups at the best size (a group may hold
//     more than one segment's bytes); the cost model's per-size table and per-call cost are what both choices weigh;
//   - the best (order, channels, segment, groups) by predicted iteration time wins.
// What the user set explicitly is kept and not searched. The worker calls this on its warm-up measurements before
// the plan is broadcast (engine/planning/warmup_schedule.h); `pacer-cli replay/compare` call it when `pace` is
// given without settings, so a replay predicts what the self-tuned run would do.
#pragma once

#include "engine/policy_config.h"
#include "engine/replay/replay.h"
#include "engine/sim/simulator.h"
#include "engine/sim/workload.h"
#include "engine/status.h"

namespace pacer::engine {

// What the user fixed; the rest is chosen.
struct TuneRequest {
    PolicyConfig policy;          // name "pace"; its segment and fusion settings are the user's where fixed
    bool segment_fixed = false;
    bool fusion_fixed = false;    // fusion_groups or fuse_below_bytes given
    bool order_fixed = false;
    bool plan_order = false;      // with order_fixed
    bool channels_fixed = false;  // with channels
    int channels = 1;
    // The engine's dynamic order on host memory hears readiness one unit late (Workload::readiness_rides_on_units);
    // false on GPUs. Several channels need host memory too (one NCCL channel).
    bool host_memory = true;
    // What the measurements came from, when known: the configuration that ran (on the workload as extracted) and
    // its observed iteration time. Where the run was slower than replay predicts for it, the difference is
    // charged to each collective's fixed cost before choosing (see calibratePerCallCost).
    PolicyConfig observed_policy;
    double observed_ms = 0;  // 0: nothing to calibrate against
};

struct TunedPace {
    PolicyConfig policy;  // segment_bytes and fusion_groups as chosen
    bool plan_order = false;
    int channels = 1;
    Workload workload;    // as the chosen order runs it (readiness, channels), what-if knobs applied
    CostModel cost;       // what-if knobs applied
    SimFigures figures;   // predicted
    int evaluations = 0;  // simulations run
};

// The workload as an engine in that order runs it: dynamic order on host memory hears readiness one unit late;
// plan order has `channels` units in flight.
Workload asRun(const Workload& workload, bool planOrder, int channels, bool hostMemory);

// The per-call cost the run really paid. On a loaded CPU host a collective also waits for the later rank's
// communication thread to get a core; the fit counts a collective from the last rank's join, so that wait falls
// outside it, and replay then prefers many small units that the machine cannot deliver (seen on this 2-core
// machine: predictions of 128-256 KiB segment schedules 2-5x too fast). So: replay the configuration that ran; if
// the observed time exceeds the prediction by more than 2%, the excess divided by its units per iteration is
// added to every collective's cost. Never lowers the cost.
CostModel calibratePerCallCost(const Workload& workload, const CostModel& cost, const PolicyConfig& observed,
                               double observedMs);

Result<TunedPace> tunePace(const Workload& workload, const CostModel& cost, const TuneRequest& request,
                           const WhatIf& whatIf = {});

}  // namespace pacer::engine
