#include "engine/policies/pace_policy.h"

#include "engine/policies/priority_items.h"
#include "engine/policies/segmenting.h"

#include <algorithm>

namespace pacer::engine {

namespace {

// A small tensor that no small neighbour fused with (a bias between two weights) rides on the last segment of
// a large tensor of the same layer: both become ready when that layer's backward ends, so the small one costs no
// collective of its own. Returns, per tensor, the tensor it rides on (-1: none).
std::vector<int> ridersOnLayerNeighbours(const std::vector<std::vector<int>>& groups,
                                         const std::vector<TensorInfo>& tensors, std::size_t fuseBelowBytes) {
    std::vector<int> ridesOn(tensors.size(), -1);
    std::vector<bool> alone(tensors.size(), false);
    for (const auto& g : groups)
        if (g.size() == 1) alone[g.front()] = true;
    for (const TensorInfo& t : tensors) {
        if (!alone[t.id] || t.bytes() >= fuseBelowBytes) continue;
        for (int neighbour : {t.id - 1, t.id + 1}) {
            if (neighbour < 0 || neighbour >= static_cast<int>(tensors.size())) continue;
            const TensorInfo& n = tensors[neighbour];
            if (alone[n.id] && n.layer == t.layer && n.bytes() >= fuseBelowBytes && ridesOn[n.id] < 0) {
                ridesOn[t.id] = n.id;
                break;
            }
        }
    }
    return ridesOn;
}

}  // namespace

std::unique_ptr<Policy> makePacePolicy(const PolicyConfig& config, const std::vector<TensorInfo>& tensors) {
    std::vector<std::vector<int>> groups = config.fusion_groups;
    const bool greedy = groups.empty();
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

    // Explicit groups (the DP search's) are taken as given; the greedy default also lets riders ride.
    const std::vector<int> ridesOn =
        greedy ? ridersOnLayerNeighbours(groups, tensors, config.fuse_below_bytes) : std::vector<int>(tensors.size(), -1);
    std::vector<PriorityItem> items;
    for (const auto& group : groups) {
        if (group.size() == 1) {
            const TensorInfo& t = tensors[group.front()];
            if (ridesOn[t.id] >= 0) continue;  // it travels in its neighbour's last segment
            for (const Piece& p : cutIntoSegments(t, config.segment_bytes))
                items.push_back(PriorityItem{{p}, {t.id}, defaultPriority(t)});
            for (const TensorInfo& rider : tensors) {
                if (ridesOn[rider.id] != t.id) continue;
                PriorityItem& last = items.back();
                last.pieces.push_back(Piece{rider.id, 0, 0, rider.elements});
                last.waitsFor.push_back(rider.id);
                last.priority = std::min(last.priority, defaultPriority(rider));
            }
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
    return std::make_unique<PriorityItemsPolicy>("pace", tensors, std::move(items), 1);
}

}  // namespace pacer::engine
