#include "engine/planning/warmup_schedule.h"

#include "engine/replay/replay.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace pacer::engine {
namespace {

// scheduleFromWarmup's band for `s` (its prediction set), replayed as `run` on `runCost` (the charge the choice
// added to `fitted` included). The warm-up ran `warmupWorkload` (the settled iterations' extraction) with the
// settings as given (`request`), in dynamic order, in `warmupMs`.
PredictionBand warmupBand(const ObservedRun& warmup, const std::vector<int>& settled, const Schedule& s,
                          const Workload& run, const CostModel& runCost, const CostModel& fitted,
                          const Workload& warmupWorkload, const ScheduleRequest& request, double warmupMs) {
    const bool hostMemory = request.tune.host_memory;
    Result<ObservedModel> model = modelObservedRun(warmup);
    if (!model.ok()) return {};
    const std::vector<IterationEstimate>& estimates =
        model.value().for_another ? model.value().for_another->iterations : model.value().iterations;
    const double charge = runCost.alpha_ns - fitted.alpha_ns;  // calibratePerCallCost's, per collective
    std::vector<IterationEstimate> iterations;
    for (const IterationEstimate& it : estimates) {
        if (!settled.empty() && !std::binary_search(settled.begin(), settled.end(), it.iteration)) continue;
        IterationEstimate as = it;
        as.workload = asRun(it.workload, s.plan_order, s.channels, hostMemory);
        as.cost.alpha_ns += charge;
        for (auto& [bytes, ns] : as.cost.measured) ns += charge;
        iterations.push_back(std::move(as));
    }
    if (iterations.size() < 2) return {};
    Result<ReplayResult> r = replay(run, runCost, s.policy, WhatIf{}, SimOptions{}, iterations);
    if (!r.ok()) return {};
    double residual = 0;  // how far the cost the prediction stands on missed the warm-up's own schedule
    if (warmupMs > 0)
        if (Result<ReplayResult> own =
                replay(asRun(warmupWorkload, false, 1, hostMemory), runCost, request.tune.policy, WhatIf{});
            own.ok())
            residual = std::abs(own.value().sim.figures.iter_ms - warmupMs) / warmupMs;
    PredictionBand band = widenedForAnotherSchedule(r.value().band, s.predicted_ms, residual, 0.0);
    const double margin = kWarmupBandMargin * s.predicted_ms;
    band.low_ms = std::max(0.0, std::min(band.low_ms, s.predicted_ms) - margin);
    band.high_ms = std::max(band.high_ms, s.predicted_ms) + margin;
    return band;
}

}  // namespace

bool wantsSelfTune(const TuneRequest& r) {
    // Dynamic order runs one channel: with the order fixed there, the channels are no choice either.
    const bool engineFixed = r.order_fixed && (!r.plan_order || r.channels_fixed);
    return r.policy.name == "pace" && !(r.segment_fixed && r.fusion_fixed && engineFixed);
}

Result<double> warmupPeriodMs(const ObservedRun& warmup) {
    Result<double> fromCollectives = collectivePeriodMs(warmup);
    return fromCollectives.ok() ? fromCollectives : observedIterationMs(warmup);
}

std::vector<int> settledWarmupIterations(const ObservedRun& warmup) {
    const std::map<int, double> periods = collectivePeriodsMs(warmup);
    Result<double> period = collectivePeriodMs(periods);
    if (!period.ok()) return {};
    std::vector<int> settled;
    for (const auto& [iteration, ms] : periods)
        if (ms <= kSettledPeriodSpread * period.value()) settled.push_back(iteration);
    return settled;
}

Result<Schedule> scheduleFromWarmup(const ObservedRun& warmup, const ScheduleRequest& request) {
    const std::vector<int> settled = settledWarmupIterations(warmup);
    Result<Workload> workload = extractWorkload(warmup, settled);
    if (!workload.ok()) return Status::error("warm-up cannot be replayed: " + workload.status().message());
    Result<CostModel> cost = fitCostModel(warmup, settled);
    if (!cost.ok()) return Status::error("no link cost can be fitted to the warm-up: " + cost.status().message());

    Schedule s;
    s.policy = request.tune.policy;
    s.plan_order = request.tune.plan_order;
    s.channels = request.tune.channels;
    Workload run = asRun(workload.value(), s.plan_order, s.channels, request.tune.host_memory);
    CostModel runCost = cost.value();
    const Result<double> warmupMs = warmupPeriodMs(warmup);
    if (request.self_tune) {
        TuneRequest tune = request.tune;
        tune.observed_policy = request.tune.policy;  // warm-up ran the settings as given, dynamic order
        if (warmupMs.ok()) tune.observed_ms = warmupMs.value();
        Result<TunedPace> tuned = tunePace(workload.value(), cost.value(), tune);
        if (!tuned.ok()) return tuned.status();
        s.policy = tuned.value().policy;
        s.plan_order = tuned.value().plan_order;
        s.channels = tuned.value().channels;
        s.tuned = true;
        run = tuned.value().workload;
        runCost = tuned.value().cost;
    }
    Result<ReplayResult> sim = replay(run, runCost, s.policy, WhatIf{});
    if (!sim.ok()) return sim.status();
    s.predicted_ms = sim.value().sim.figures.iter_ms;
    const PredictionBand band = warmupBand(warmup, settled, s, run, runCost, cost.value(), workload.value(), request,
                                           warmupMs.ok() ? warmupMs.value() : 0.0);
    s.predicted_low_ms = band.low_ms;
    s.predicted_high_ms = band.high_ms;
    if (s.plan_order) {
        s.plan = std::move(sim.value().sim.order);
        if (s.plan.empty()) return Status::error("the simulator produced an empty unit order");
    }
    return s;
}

}  // namespace pacer::engine
