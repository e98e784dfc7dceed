#include "engine/policy_config.h"

#include "engine/policies/bytescheduler_policy.h"
#include "engine/policies/ddp_policy.h"
#include "engine/policies/fifo_policy.h"
#include "engine/policies/horovod_policy.h"
#include "engine/policies/manual_policy.h"
#include "engine/policies/pace_policy.h"
#include "engine/policies/plan_policy.h"
#include "engine/plan.h"

#include <algorithm>

namespace pacer::engine {
namespace {

using Factory = std::unique_ptr<Policy> (*)(const PolicyConfig&, const std::vector<TensorInfo>&);

struct NamedFactory {
    const char* name;
    Factory make;
};

constexpr NamedFactory kPolicies[] = {
    {"fifo", makeFifoPolicy}, {"ddp", makeDdpPolicy},   {"horovod", makeHorovodPolicy},
    {"bytescheduler", makeByteSchedulerPolicy}, {"pace", makePacePolicy}, {"manual", makeManualPolicy},
};

std::string joinedNames() {
    std::string s;
    for (const auto& p : kPolicies) s += (s.empty() ? "" : ", ") + std::string(p.name);
    return s;
}

Status validateTensors(const std::vector<TensorInfo>& tensors) {
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        if (tensors[i].id != static_cast<int>(i))
            return Status::error("tensor '" + tensors[i].name + "' at position " + std::to_string(i) + " has id " +
                                 std::to_string(tensors[i].id) + "; ids must be 0..n-1 in forward order");
        if (tensors[i].elements == 0)
            return Status::error("tensor " + std::to_string(i) + " ('" + tensors[i].name + "') has no elements");
        if (i > 0 && tensors[i].layer < tensors[i - 1].layer)
            return Status::error("tensor " + std::to_string(i) + " ('" + tensors[i].name +
                                 "') has a layer before its predecessor's; tensors must be in forward order");
    }
    return Status::success();
}

Status validateFusionGroups(const PolicyConfig& c, const std::vector<TensorInfo>& tensors) {
    std::vector<bool> seen(tensors.size(), false);
    for (std::size_t g = 0; g < c.fusion_groups.size(); ++g) {
        const auto& group = c.fusion_groups[g];
        const std::string where = "fusion group " + std::to_string(g);
        if (group.empty()) return Status::error(where + " is empty");
        for (std::size_t k = 0; k < group.size(); ++k) {
            const int t = group[k];
            if (t < 0 || t >= static_cast<int>(tensors.size()))
                return Status::error(where + " names tensor " + std::to_string(t) + ", which does not exist (there are " +
                                     std::to_string(tensors.size()) + " tensors)");
            if (seen[t]) return Status::error(where + " repeats tensor " + std::to_string(t) + " of an earlier group");
            seen[t] = true;
            if (k > 0 && t != group[k - 1] + 1)
                return Status::error(where + " is not a run of adjacent tensors (" + std::to_string(group[k - 1]) +
                                     " then " + std::to_string(t) + ")");
        }
    }
    return Status::success();
}

// DDP's given buckets: every tensor in exactly one (a tensor left out would never be reduced).
Status validateBuckets(const PolicyConfig& c, const std::vector<TensorInfo>& tensors) {
    if (c.buckets.empty()) return Status::success();
    std::vector<bool> seen(tensors.size(), false);
    for (std::size_t b = 0; b < c.buckets.size(); ++b)
        for (int t : c.buckets[b]) {
            if (t < 0 || t >= static_cast<int>(tensors.size()))
                return Status::error("bucket " + std::to_string(b) + " names tensor " + std::to_string(t) +
                                     ", which does not exist (there are " + std::to_string(tensors.size()) + " tensors)");
            if (seen[t]) return Status::error("bucket " + std::to_string(b) + " repeats tensor " + std::to_string(t));
            seen[t] = true;
        }
    for (std::size_t t = 0; t < seen.size(); ++t)
        if (!seen[t]) return Status::error("tensor " + std::to_string(t) + " is in no bucket");
    return Status::success();
}

}  // namespace

std::vector<std::string> policyNames() {
    std::vector<std::string> names;
    for (const auto& p : kPolicies) names.emplace_back(p.name);
    return names;
}

Status validate(const PolicyConfig& c, const std::vector<TensorInfo>& tensors) {
    const auto known = std::find_if(std::begin(kPolicies), std::end(kPolicies),
                                    [&](const NamedFactory& p) { return c.name == p.name; });
    if (known == std::end(kPolicies))
        return Status::error("unknown policy '" + c.name + "' (known: " + joinedNames() + ")");
    PACER_RETURN_IF_ERROR(validateTensors(tensors));
    if (c.segment_bytes == 0) return Status::error("segment size is 0 bytes; it must be at least 4 bytes (one float)");
    if (c.segment_bytes < sizeof(float))
        return Status::error("segment size is " + std::to_string(c.segment_bytes) +
                             " bytes; it must be at least 4 bytes (one float)");
    if (c.bucket_bytes == 0 || c.first_bucket_bytes == 0) return Status::error("ddp bucket size is 0 bytes");
    if (c.fusion_bytes == 0) return Status::error("horovod fusion threshold is 0 bytes");
    if (c.cycle_ns <= 0) return Status::error("horovod cycle time must be positive, got " + std::to_string(c.cycle_ns) + " ns");
    if (c.credit < 0) return Status::error("bytescheduler credit is negative (" + std::to_string(c.credit) + ")");
    if (c.credit == 0) return Status::error("bytescheduler credit is 0; at least one partition must be in flight");
    PACER_RETURN_IF_ERROR(validateFusionGroups(c, tensors));
    PACER_RETURN_IF_ERROR(validateBuckets(c, tensors));
    if (!c.priorities.empty() && c.priorities.size() != tensors.size())
        return Status::error("manual priorities list " + std::to_string(c.priorities.size()) + " values for " +
                             std::to_string(tensors.size()) + " tensors; give one per tensor");
    if (!c.tensor_segment_bytes.empty() && c.tensor_segment_bytes.size() != tensors.size())
        return Status::error("per-tensor segment sizes list " + std::to_string(c.tensor_segment_bytes.size()) +
                             " values for " + std::to_string(tensors.size()) + " tensors; give one per tensor (0 = the "
                             "policy's segment size)");
    for (std::size_t i = 0; i < c.tensor_segment_bytes.size(); ++i)
        if (c.tensor_segment_bytes[i] > 0 && c.tensor_segment_bytes[i] < sizeof(float))
            return Status::error("segment size of tensor " + std::to_string(i) + " is " +
                                 std::to_string(c.tensor_segment_bytes[i]) + " bytes; it must be at least 4 bytes (one float)");
    return Status::success();
}

Result<std::unique_ptr<Policy>> makePolicy(const PolicyConfig& config, const std::vector<TensorInfo>& tensors) {
    PACER_RETURN_IF_ERROR(validate(config, tensors));
    for (const auto& p : kPolicies) {
        if (config.name != p.name) continue;
        if (config.plan.empty()) return p.make(config, tensors);
        if (Status s = validatePlan(config.plan, tensors); !s.ok()) return Status::error("the recorded " + s.message());
        return makePlanPolicy(p.make(config, tensors), config.plan, tensors);
    }
    return Status::error("unknown policy '" + config.name + "'");
}

}  // namespace pacer::engine
