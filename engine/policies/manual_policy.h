// Manual: the user's own priority per tensor (from the schedule editor) and segment size, no fusion. With no
// priorities given it falls back to the forward order, which makes it PACE without fusion.
#pragma once

#include "engine/policy_config.h"

namespace pacer::engine {

std::unique_ptr<Policy> makeManualPolicy(const PolicyConfig& config, const std::vector<TensorInfo>& tensors);

}  // namespace pacer::engine
