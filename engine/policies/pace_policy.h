// PACE (INFOCOM 2020): preemptive priority over segments plus fusion of small adjacent tensors.
// Priorities follow the next forward pass (input side first) and every large tensor is cut into segments, so
// an urgent gradient waits at most one segment. Small adjacent tensors travel as one fused unit, either the
// groups found by the DP search (PolicyConfig::fusion_groups) or greedy runs below fuse_below_bytes.
#pragma once

#include "engine/policy_config.h"

namespace pacer::engine {

std::unique_ptr<Policy> makePacePolicy(const PolicyConfig& config, const std::vector<TensorInfo>& tensors);

}  // namespace pacer::engine
