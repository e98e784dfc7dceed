// Plans for OrderMode::Plan: the unit order of one iteration, which every rank follows.
//
// The lead computes real plans with the simulator (engine/sim); recordPlan() is the simple offline version
// used by tests and benchmarks: it drives a policy with every gradient arriving in backward order at one
// instant, and keeps what it issues. validatePlan() is what the runtime checks before it follows a plan.
#pragma once

#include "engine/policy.h"
#include "engine/status.h"

#include <vector>

namespace pacer::engine {

// Every piece names a real tensor and lies inside it, and the pieces cover every element exactly once.
Status validatePlan(const std::vector<CommUnit>& plan, const std::vector<TensorInfo>& tensors);

// The order the policy issues when all gradients arrive in backward order (last tensor first), instantly.
Result<std::vector<CommUnit>> recordPlan(Policy& policy, const std::vector<TensorInfo>& tensors);

}  // namespace pacer::engine
