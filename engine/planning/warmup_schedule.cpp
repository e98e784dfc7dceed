#include "engine/planning/warmup_schedule.h"

#include "engine/replay/replay.h"

#include <map>

namespace pacer::engine {

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
    if (request.self_tune) {
        TuneRequest tune = request.tune;
        tune.observed_policy = request.tune.policy;  // warm-up ran the settings as given, dynamic order
        if (Result<double> ms = warmupPeriodMs(warmup); ms.ok()) tune.observed_ms = ms.value();
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
    if (s.plan_order) {
        s.plan = std::move(sim.value().sim.order);
        if (s.plan.empty()) return Status::error("the simulator produced an empty unit order");
    }
    return s;
}

}  // namespace pacer::engine
