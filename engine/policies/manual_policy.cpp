#include "engine/policies/manual_policy.h"

#include "engine/policies/priority_items.h"

namespace pacer::engine {

std::unique_ptr<Policy> makeManualPolicy(const PolicyConfig& config, const std::vector<TensorInfo>& tensors) {
    std::vector<PriorityItem> items;
    for (const TensorInfo& t : tensors) {
        const int priority = config.priorities.empty() ? defaultPriority(t) : config.priorities[t.id];
        items.push_back(segmentedItem(t, segmentBytesOf(config, t.id), priority));
    }
    return std::make_unique<PriorityItemsPolicy>("manual", tensors, std::move(items), 1);
}

}  // namespace pacer::engine
