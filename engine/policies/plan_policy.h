// Plan: the units of a plan (OrderMode::Plan: one iteration's unit order, which every rank follows) in that order,
// each once its tensors' gradients are ready, as the runtime's plan mode runs them (Runtime::runPlanIteration).
//
// Replay uses it for a run that followed a plan: the plan came from the warm-up's simulation, and the policy that
// made it, driven again on the steady iterations' timings, may choose another order than the one the run was given
// (a self-tuned pace run of the transformer sample sent its largest tensor before a 512 KiB one that its replay,
// deciding afresh, sent first: replayed 8% slower than the run).
#pragma once

#include "engine/policy.h"

#include <memory>
#include <vector>

namespace pacer::engine {

// `from` is the policy the plan was made with: the plan follows its name and its optimizer barrier (DDP's). The plan
// must be valid for the tensors (validatePlan).
std::unique_ptr<Policy> makePlanPolicy(std::unique_ptr<Policy> from, std::vector<CommUnit> plan,
                                       const std::vector<TensorInfo>& tensors);

}  // namespace pacer::engine
