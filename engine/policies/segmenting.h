// Cutting tensors into segments and choosing which small adjacent tensors to fuse: the two shape decisions
// that the segment-based policies (pace, manual, bytescheduler) share.
#pragma once

#include "engine/tensor.h"

#include <cstddef>
#include <vector>

namespace pacer::engine {

// The pieces of one tensor, each at most segmentBytes (rounded down to whole floats, at least one element).
// A tensor of zero elements has no pieces.
std::vector<Piece> cutIntoSegments(const TensorInfo& tensor, std::size_t segmentBytes);

// Greedy fusion: runs of adjacent tensors each smaller than fuseBelowBytes, packed while the run stays within
// capBytes. Returns every tensor in exactly one group, groups in id order; a group of one is not fused.
std::vector<std::vector<int>> greedyFusionGroups(const std::vector<TensorInfo>& tensors, std::size_t fuseBelowBytes,
                                                 std::size_t capBytes);

}  // namespace pacer::engine
