// The preemptive core shared by pace, manual and bytescheduler: a set of "items" (a tensor cut into segments, or
// a fused group of whole small tensors), each with a priority and the tensors it waits for. Whenever the link
// is free, next() sends the most urgent ready items; a more urgent item that becomes ready while a long tensor
// is being sent therefore goes at the next unit boundary: that is the preemption.
#pragma once

#include "engine/policies/element_tracker.h"

#include <set>
#include <string>
#include <tuple>

namespace pacer::engine {

struct PriorityItem {
    // Sent together in one unit (a fused group of whole tensors), or, with segment_elements > 0, the one piece of a
    // whole tensor sent as consecutive segments of that many elements, one per item taken.
    std::vector<Piece> pieces;
    std::vector<int> waitsFor;  // tensor ids; the item is ready when all are
    int priority = 0;
    std::size_t segment_elements = 0;
};

// A tensor as one item in segments of at most segmentBytes (rounded down to whole floats, at least one element):
// its segments share the tensor's readiness and priority, so they are one entry of the ready set, not one each.
PriorityItem segmentedItem(const TensorInfo& tensor, std::size_t segmentBytes, int priority);

class PriorityItemsPolicy : public TrackingPolicy {
public:
    // itemsPerUnit > 1 packs that many ready segments or groups into one unit (ByteScheduler's credit window);
    // fillWaits: Policy::updatesFillWaits (pace).
    PriorityItemsPolicy(std::string name, std::vector<TensorInfo> tensors, std::vector<PriorityItem> items,
                        int itemsPerUnit, bool fillWaits = false);

    std::string_view name() const override { return name_; }
    bool updatesFillWaits() const override { return fillWaits_; }
    std::optional<CommUnit> next(Nanos now) override;
    std::size_t largestUnitElements() const override;
    std::size_t unitsFollowing() const override;
    Piece takeUnitsFollowing(std::size_t count) override;

protected:
    void onBegin(Nanos now) override;
    void onReady(int tensor, Nanos now) override;

private:
    std::size_t segmentsOf(int item) const;
    Piece segmentsSpan(int item, std::size_t first, std::size_t count) const;  // consecutive segments as one piece

    std::string name_;
    std::vector<PriorityItem> items_;
    int itemsPerUnit_;
    bool fillWaits_;
    std::vector<std::vector<int>> itemsOfTensor_;  // items that wait for each tensor
    std::vector<int> missing_;                     // per item: tensors not ready yet
    std::vector<std::size_t> sent_;                // per segmented item: segments handed out this iteration
    std::set<std::tuple<int, int>> ready_;         // (priority, item index): ties go to the earlier item
    int lastSegmented_ = -1;                       // the segmented item next() just took a segment of, else -1
};

}  // namespace pacer::engine
