// Policy settings as the user gives them, their validation, and the factory that builds a Policy from them.
//
// This is the one entry point to the scheduling policies: the runtime, the simulator (engine/sim) and the
// GUI's schedule editor all call makePolicy() with the same PolicyConfig, so what is replayed is what runs.
// Each policy lives in its own small file under engine/policies/.
#pragma once

#include "engine/policy.h"
#include "engine/status.h"
#include "engine/tensor.h"

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace pacer::engine {

struct PolicyConfig {
    std::string name = "fifo";                         // fifo | ddp | horovod | bytescheduler | pace | manual
    std::size_t segment_bytes = 4 << 20;               // pace, manual; bytescheduler partition size
    std::size_t bucket_bytes = 25 << 20;               // ddp
    std::size_t first_bucket_bytes = 1 << 20;          // ddp
    // ddp: the buckets (tensor ids, in launch order) as an imported trace showed them; empty: by the byte caps
    std::vector<std::vector<int>> buckets;
    std::size_t fusion_bytes = 128 << 20;              // horovod
    Nanos cycle_ns = 1'000'000;                        // horovod
    int credit = 4;                                    // bytescheduler: partitions in flight per unit
    std::size_t fuse_below_bytes = 64 << 10;           // pace: adjacent tensors below this are fused (greedy)
    std::vector<std::vector<int>> fusion_groups;       // pace: explicit groups of adjacent tensor ids (DP search)
    std::vector<int> priorities;                       // manual: priority per tensor id (lower = sooner)
    // pace, manual, bytescheduler: a segment size per tensor id, 0 = segment_bytes; empty = segment_bytes for all.
    // (A tensor pace fuses travels whole, whatever its size here.)
    std::vector<std::size_t> tensor_segment_bytes;
    // A plan this policy made that a run followed (plan order, read back from its trace): the policy's units are sent
    // in this order, each once its tensors are ready (engine/policies/plan_policy.h), instead of the policy deciding
    // again. Empty: the policy decides. Replay sets it for a run's own schedule; it is not a user's setting.
    std::vector<CommUnit> plan;
};

// The segment size a tensor is cut with under this configuration.
inline std::size_t segmentBytesOf(const PolicyConfig& config, int tensor) {
    const auto i = static_cast<std::size_t>(tensor);
    return i < config.tensor_segment_bytes.size() && config.tensor_segment_bytes[i] > 0 ? config.tensor_segment_bytes[i]
                                                                                         : config.segment_bytes;
}

// Checks the settings against the tensors: a clear message for a segment of 0 bytes, a credit below 1, an
// unknown policy name, fusion groups that are not adjacent, overlapping or out of range, and so on.
Status validate(const PolicyConfig& config, const std::vector<TensorInfo>& tensors);

// Validates, then builds the named policy for these tensors (forward order, tensors[i].id == i).
Result<std::unique_ptr<Policy>> makePolicy(const PolicyConfig& config, const std::vector<TensorInfo>& tensors);

// The known names, in the order a user interface lists them.
std::vector<std::string> policyNames();

// Whether the named policy holds every unit back until a time of its own (Horovod's cycle), so that the time from
// a gradient to its unit in a run of it is that hold, not the comm thread's wake-up (replay's dispatch latency).
inline bool holdsUnitsUntilATick(const std::string& policy) { return policy == "horovod"; }

// Default priority of a tensor: the order the next forward pass needs it, input side first. Ids are in forward
// order, so this is the id (lower = sooner).
inline int defaultPriority(const TensorInfo& tensor) { return tensor.id; }

}  // namespace pacer::engine
