// Plan mode and self-tuning after warm-up: what every rank runs next, from what the warm-up iterations measured.
//
// One planning path: the warm-up spans of every rank go through the same extraction and fit that
// `pacer-cli replay` reports for a captured run (extractWorkload, fitCostModel: the latest rank's layer times,
// the tail, the wake-ups, the per-size cost table), then through tunePace when `pace` chooses its own settings,
// then through the simulator, whose unit order is the plan.
#pragma once

#include "engine/planning/schedule.h"
#include "engine/planning/self_tune.h"
#include "engine/replay/observed_run.h"
#include "engine/status.h"

#include <vector>

namespace pacer::engine {

struct ScheduleRequest {
    TuneRequest tune;        // the policy, what the user fixed, the order and channels asked for
    bool self_tune = false;  // pace with something left to choose
};

// Pace chooses for itself unless the user fixed every setting the choice covers (in dynamic order the channels
// are not a choice).
bool wantsSelfTune(const TuneRequest& request);

// The schedule, its prediction (replay of the chosen settings on the settled warm-up iterations' workload and cost)
// and the prediction's band, as replay gives one to every prediction from a run: each settled warm-up iteration
// (modelObservedRun's estimates, the ranks evened out as for another schedule) replayed on its own as the chosen
// schedule runs, on the per-call charge the choice added (calibratePerCallCost), then widened for another schedule
// than the warm-up ran (widenedForAnotherSchedule) by how far that cost missed the warm-up's own period. A warm-up of
// a few iterations says little, and the band says so: over 27 self-tuned runs of the samples (2026-12-06, on a
// shared 2-core VM) the prediction missed its run by 3.1% in the median and 28% at worst. No band (0, 0) where fewer
// than two settled iterations have estimates of their own.
// Last, both ends move out by kWarmupBandMargin of the prediction. The run's steady iterations come seconds after
// the warm-up, after the switch, on a machine that has moved meanwhile, and a few settled iterations cannot show how
// far: over three grids of self-tuned runs (the three samples at 1/2.5/10 Gb/s, 3 rounds, this project's 2-core VM,
// 2026-12-06: g72-g74, 79 runs) replay's band alone held 75%, its misses by a few percent where the warm-up was
// steady as often as by much where it was not, which scaling the band (2.5 times as wide: 96% at a median width of
// 38%) pays for with the widest bands. A margin of 5% each side held 96% at a median width of 25% (at least 92% on
// each grid), about the machine's drift between runs (one policy's runs of a cell in different rounds differed by
// 2.9-4.2% in the median on those grids). On the next two grids, captured with it (g81, g82): 26 of 27 at 21% and
// 27 of 27 at 24%. Wide, as a five-iteration warm-up on a shared machine is: a longer warm-up narrows it (more
// settled iterations, a surer spread). The low end stops at 0.
Result<Schedule> scheduleFromWarmup(const ObservedRun& warmup, const ScheduleRequest& request);
inline constexpr double kWarmupBandMargin = 0.05;

// The period the warm-up ran at, which the tuning calibrates the per-call cost against (TuneRequest::observed_ms):
// collectivePeriodMs, free of the ranks' phase in the first iterations; where the warm-up has too few iterations
// with collectives for it, observedIterationMs. With the spans' median, the tuning charged a 5-iteration warm-up's
// start-up to every collective: the small MLP's tuned predictions were 15.9 and 28.6 ms for runs of 8.3 and 8.5.
Result<double> warmupPeriodMs(const ObservedRun& warmup);

// The warm-up iterations the schedule learns from: those whose collectives' period (collectivePeriodsMs) is within
// kSettledPeriodSpread of the warm-up's period (collectivePeriodMs); all after the first where there is no such
// period (empty). The first iterations of a run are still settling (the small MLP's collectives took 6.5, 3.7, 2.9
// and 2.3 ms per iteration before settling at 1.5) and the means over them made the schedule's workload and link
// slower than the run: over 60 self-tuned runs, the tuned prediction missed the run by 9.8% in the median and 65%
// at p90 with every warm-up iteration, 7.1% and 31% with the settled ones (on a second set of 24, p90 30 -> 19%).
std::vector<int> settledWarmupIterations(const ObservedRun& warmup);
inline constexpr double kSettledPeriodSpread = 1.25;

// A run that switches after warm-up (plan order, self-tuned pace) restarts its runtime on the chosen schedule.
// The new runtime's first iteration is a warm-up of its own (over Gloo its reductions took twice their steady
// time, in the kernel's socket copies), and those reductions end in the next iteration's forward: the run's
// steady state, which `iter_ms` measures and replay extracts, begins two iterations after the switch.
inline constexpr int kIterationsToSettleAfterSwitch = 2;
// Which runs switch: plan order (the plan comes from the warm-up) and a pace that tunes itself. The worker decides
// by it, and replay reads a recorded run by it.
inline bool switchesAfterWarmup(bool planOrder, bool selfTuned) { return planOrder || selfTuned; }
inline int firstSteadyIteration(int warmupIterations, bool switchesAfterWarmup) {
    return warmupIterations + (switchesAfterWarmup ? kIterationsToSettleAfterSwitch : 0);
}

}  // namespace pacer::engine
