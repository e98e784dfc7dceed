// The plan a plan-order run followed, read back from its trace.
//
// In plan order every rank sends, every iteration, the units of the plan it was given after warm-up in that order,
// unit k on channel k mod channels (Runtime::runPlanIteration), and the worker traces each unit on its channel's
// lane. The plan itself is not stored with the run; its steady iterations show it.
#pragma once

#include "engine/policy_config.h"
#include "engine/replay/observed_run.h"

#include <optional>
#include <vector>

namespace pacer::engine {

// The unit order that every iteration of the run's lowest rank shows from `firstPlanIteration` on (run.channels
// lanes read in turn), as the units `config`'s policy makes when every gradient is ready at once (recordPlan), each
// of them once. The iterations before the first on the plan are the warm-up, which decided its order as it went: a
// run too short for replay to cut its warm-up away (keepSteadyState) still has them. Nothing where an iteration
// shows another order or other units: a run in dynamic order, or a policy whose units depend on when gradients
// arrive (Horovod's ticks fuse what each found ready).
std::optional<std::vector<CommUnit>> observedPlan(const ObservedRun& run, const PolicyConfig& config,
                                                  int firstPlanIteration = 0);

}  // namespace pacer::engine
