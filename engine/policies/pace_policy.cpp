#include "engine/policies/pace_policy.h"

#include "engine/policies/priority_items.h"
#include "engine/policies/segmenting.h"

#include <algorithm>

namespace pacer::engine {

std::unique_ptr<Policy> makePacePolicy(const PolicyConfig& config, const std::vector<TensorInfo>& tensors) {
    std::vector<std::vector<int>> groups = config.fusion_groups;
    if (groups.empty()) {
        groups = greedyFusionGroups(tensors, config.fuse_below_bytes, config.segment_bytes);
    } else {
        // Tensors the explicit groups leave out travel alone.
        std::vector<bool> covered(tensors.size(), false);
        for (const auto& g : groups)
            for (int t : g) covered[t] = true;
        for (const TensorInfo& t : tensors)
            if (!covered[t.id]) groups.push_back({t.id});
    }

    std::vector<PriorityItem> items;
    for (const auto& group : groups) {
        if (group.size() == 1) {
            const TensorInfo& t = tensors[group.front()];
            items.push_back(segmentedItem(t, segmentBytesOf(config, t.id), defaultPriority(t)));
            continue;
        }
        PriorityItem fused;
        fused.priority = defaultPriority(tensors[group.front()]);
        for (int id : group) {
            fused.pieces.push_back(Piece{id, 0, 0, tensors[id].elements});
            fused.waitsFor.push_back(id);
            fused.priority = std::min(fused.priority, defaultPriority(tensors[id]));
        }
        items.push_back(std::move(fused));
    }
    return std::make_unique<PriorityItemsPolicy>("pace", tensors, std::move(items), 1, /*fillWaits=*/true);
}

}  // namespace pacer::engine
