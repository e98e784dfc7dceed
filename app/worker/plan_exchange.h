// Plan mode's two steps: rank 0 turns what it measured during warm-up into a unit order by simulating the
// policy (the same simulator replay uses), and every rank receives that order through the transport.
#pragma once

#include "app/worker/trace_bridge.h"
#include "engine/policy_config.h"
#include "engine/status.h"
#include "engine/tensor.h"
#include "engine/transport/transport.h"

#include <string>
#include <vector>

namespace pacer::worker {

struct PlanInputs {
    const std::vector<engine::TensorInfo>& tensors;
    const std::vector<std::string>& layerNames;
    const std::vector<std::vector<std::int64_t>>& forwardTimes;   // per layer, warm-up samples (ns)
    const std::vector<std::vector<std::int64_t>>& backwardTimes;
    std::vector<TraceBridge::CommSample> comm;                    // what the link did during warm-up
    int ranks;
    int channels = 1;        // units the plan will have in flight (the simulator orders them for that)
};

engine::Result<std::vector<engine::CommUnit>> computePlan(const PlanInputs& in, const engine::PolicyConfig& policy);

// Rank 0's plan reaches every rank (a size, then the encoded units), from host memory on every transport.
engine::Result<std::vector<engine::CommUnit>> exchangePlan(engine::Transport& transport,
                                                           std::vector<engine::CommUnit> plan);

// The wire form: [units][priority, pieces, (tensor, segment, offset, count)...]... as int64.
std::vector<std::int64_t> encodePlan(const std::vector<engine::CommUnit>& plan);
engine::Result<std::vector<engine::CommUnit>> decodePlan(const std::vector<std::int64_t>& words);

}  // namespace pacer::worker
