// ByteScheduler (SOSP 2019): tensors cut into partitions of segment_bytes, priority by layer index (input side
// first), and a credit window. With one collective in flight at a time, the credit window is the number of
// most urgent ready partitions packed into each unit: a larger credit fills the pipe better and preempts later.
#pragma once

#include "engine/policy_config.h"

namespace pacer::engine {

std::unique_ptr<Policy> makeByteSchedulerPolicy(const PolicyConfig& config, const std::vector<TensorInfo>& tensors);

}  // namespace pacer::engine
