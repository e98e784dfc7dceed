// Horovod tensor fusion: a background cycle (cycle_ns, 1 ms) collects every tensor that became ready since the
// last cycle and fuses them, in ready order, into buffers of at most fusion_bytes (128 MiB). Work that becomes
// ready between cycles is held back until the next tick (wakeTime), which is Horovod's negotiation latency.
#pragma once

#include "engine/policy_config.h"

namespace pacer::engine {

std::unique_ptr<Policy> makeHorovodPolicy(const PolicyConfig& config, const std::vector<TensorInfo>& tensors);

}  // namespace pacer::engine
