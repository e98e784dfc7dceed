// The preemptive core shared by pace, manual and bytescheduler: a set of "items" (one segment of a tensor, or
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
    std::vector<Piece> pieces;
    std::vector<int> waitsFor;  // tensor ids; the item is ready when all are
    int priority = 0;
};

class PriorityItemsPolicy : public TrackingPolicy {
public:
    // itemsPerUnit > 1 packs that many ready items into one unit (ByteScheduler's credit window).
    PriorityItemsPolicy(std::string name, std::vector<TensorInfo> tensors, std::vector<PriorityItem> items,
                        int itemsPerUnit);

    std::string_view name() const override { return name_; }
    std::optional<CommUnit> next(Nanos now) override;

protected:
    void onBegin(Nanos now) override;
    void onReady(int tensor, Nanos now) override;

private:
    std::string name_;
    std::vector<PriorityItem> items_;
    int itemsPerUnit_;
    std::vector<std::vector<int>> itemsOfTensor_;  // items that wait for each tensor
    std::vector<int> missing_;                     // per item: tensors not ready yet
    std::set<std::tuple<int, int>> ready_;         // (priority, item index): ties go to the earlier item
};

}  // namespace pacer::engine
