// FIFO (plain wait-free backprop): each tensor whole, in the order its gradient became ready. No segments, no
// fusion, no priorities: the baseline every scheduler is measured against.
#pragma once

#include "engine/policy_config.h"

namespace pacer::engine {

std::unique_ptr<Policy> makeFifoPolicy(const PolicyConfig& config, const std::vector<TensorInfo>& tensors);

}  // namespace pacer::engine
