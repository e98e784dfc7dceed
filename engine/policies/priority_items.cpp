#include "engine/policies/priority_items.h"

#include <algorithm>

namespace pacer::engine {

PriorityItemsPolicy::PriorityItemsPolicy(std::string name, std::vector<TensorInfo> tensors,
                                         std::vector<PriorityItem> items, int itemsPerUnit)
    : TrackingPolicy(std::move(tensors)), name_(std::move(name)), items_(std::move(items)),
      itemsPerUnit_(std::max(1, itemsPerUnit)) {
    itemsOfTensor_.resize(this->tensors().size());
    for (std::size_t i = 0; i < items_.size(); ++i) {
        for (int t : items_[i].waitsFor) itemsOfTensor_[t].push_back(static_cast<int>(i));
    }
    onBegin(0);
}

void PriorityItemsPolicy::onBegin(Nanos) {
    ready_.clear();
    missing_.resize(items_.size());
    for (std::size_t i = 0; i < items_.size(); ++i) missing_[i] = static_cast<int>(items_[i].waitsFor.size());
}

void PriorityItemsPolicy::onReady(int tensor, Nanos) {
    for (int item : itemsOfTensor_[tensor]) {
        if (--missing_[item] == 0) ready_.emplace(items_[item].priority, item);
    }
}

std::optional<CommUnit> PriorityItemsPolicy::next(Nanos) {
    if (ready_.empty()) return std::nullopt;
    CommUnit unit;
    unit.priority = std::get<0>(*ready_.begin());
    for (int taken = 0; taken < itemsPerUnit_ && !ready_.empty(); ++taken) {
        const int item = std::get<1>(*ready_.begin());
        ready_.erase(ready_.begin());
        const auto& pieces = items_[item].pieces;
        unit.pieces.insert(unit.pieces.end(), pieces.begin(), pieces.end());
    }
    return unit;
}

}  // namespace pacer::engine
