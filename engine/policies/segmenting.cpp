#include "engine/policies/segmenting.h"

#include <algorithm>

namespace pacer::engine {

std::vector<std::vector<int>> greedyFusionGroups(const std::vector<TensorInfo>& tensors, std::size_t fuseBelowBytes,
                                                 std::size_t capBytes) {
    std::vector<std::vector<int>> groups;
    std::size_t groupBytes = 0;
    bool openGroupFusable = false;
    for (const TensorInfo& t : tensors) {
        const bool small = t.bytes() < fuseBelowBytes;
        if (small && openGroupFusable && groupBytes + t.bytes() <= capBytes) {
            groups.back().push_back(t.id);
            groupBytes += t.bytes();
            continue;
        }
        groups.push_back({t.id});
        groupBytes = t.bytes();
        openGroupFusable = small;
    }
    return groups;
}

}  // namespace pacer::engine
