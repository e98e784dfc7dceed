// Choosing which small adjacent tensors pace fuses into one unit (the cutting of large ones into segments is
// segmentedItem's, in priority_items.h).
#pragma once

#include "engine/tensor.h"

#include <cstddef>
#include <vector>

namespace pacer::engine {

// Greedy fusion: runs of adjacent tensors each smaller than fuseBelowBytes, packed while the run stays within
// capBytes. Returns every tensor in exactly one group, groups in id order; a group of one is not fused.
std::vector<std::vector<int>> greedyFusionGroups(const std::vector<TensorInfo>& tensors, std::size_t fuseBelowBytes,
                                                 std::size_t capBytes);

}  // namespace pacer::engine
