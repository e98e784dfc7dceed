#include "engine/policies/bytescheduler_policy.h"

#include "engine/policies/priority_items.h"

namespace pacer::engine {

std::unique_ptr<Policy> makeByteSchedulerPolicy(const PolicyConfig& config, const std::vector<TensorInfo>& tensors) {
    std::vector<PriorityItem> items;
    for (const TensorInfo& t : tensors) {
        items.push_back(segmentedItem(t, segmentBytesOf(config, t.id), t.layer));
    }
    return std::make_unique<PriorityItemsPolicy>("bytescheduler", tensors, std::move(items), config.credit);
}

}  // namespace pacer::engine
