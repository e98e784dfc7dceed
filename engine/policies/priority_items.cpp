#include "engine/policies/priority_items.h"

#include <algorithm>
#include <functional>

namespace pacer::engine {

PriorityItem segmentedItem(const TensorInfo& tensor, std::size_t segmentBytes, int priority) {
    const std::size_t perSegment = std::max<std::size_t>(1, segmentBytes / sizeof(float));
    PriorityItem item{{Piece{tensor.id, 0, 0, tensor.elements}}, {tensor.id}, priority};
    if (tensor.elements > perSegment) item.segment_elements = perSegment;
    return item;
}

PriorityItemsPolicy::PriorityItemsPolicy(std::string name, std::vector<TensorInfo> tensors,
                                         std::vector<PriorityItem> items, int itemsPerUnit, bool fillWaits)
    : TrackingPolicy(std::move(tensors)), name_(std::move(name)), items_(std::move(items)),
      itemsPerUnit_(std::max(1, itemsPerUnit)), fillWaits_(fillWaits) {
    itemsOfTensor_.resize(this->tensors().size());
    for (std::size_t i = 0; i < items_.size(); ++i) {
        for (int t : items_[i].waitsFor) itemsOfTensor_[t].push_back(static_cast<int>(i));
    }
    onBegin(0);
}

std::size_t PriorityItemsPolicy::largestUnitElements() const {
    // A unit takes up to itemsPerUnit_ entries of the ready set (a fused group, or a segment of a tensor, whose
    // next segments may follow in the same unit): the largest that many bound it.
    const auto perUnit = static_cast<std::size_t>(itemsPerUnit_);
    std::vector<std::size_t> sizes;
    for (std::size_t i = 0; i < items_.size(); ++i) {
        const PriorityItem& it = items_[i];
        std::size_t elements = 0;
        for (const Piece& p : it.pieces) elements += p.count;
        if (it.segment_elements == 0) {
            sizes.push_back(elements);
            continue;
        }
        const std::size_t segments = std::min(segmentsOf(static_cast<int>(i)), perUnit);
        for (std::size_t k = 0; k < segments; ++k) sizes.push_back(std::min(elements, it.segment_elements));
    }
    const std::size_t take = std::min(sizes.size(), perUnit);
    std::partial_sort(sizes.begin(), sizes.begin() + static_cast<std::ptrdiff_t>(take), sizes.end(), std::greater<>());
    std::size_t total = 0;
    for (std::size_t i = 0; i < take; ++i) total += sizes[i];
    return total;
}

std::size_t PriorityItemsPolicy::segmentsOf(int item) const {
    const PriorityItem& it = items_[static_cast<std::size_t>(item)];
    return (it.pieces.front().count + it.segment_elements - 1) / it.segment_elements;
}

Piece PriorityItemsPolicy::segmentsSpan(int item, std::size_t first, std::size_t count) const {
    const PriorityItem& it = items_[static_cast<std::size_t>(item)];
    const Piece& whole = it.pieces.front();
    const std::size_t begin = first * it.segment_elements;
    const std::size_t end = std::min(whole.count, (first + count) * it.segment_elements);
    return Piece{whole.tensor, static_cast<int>(first), whole.offset + begin, end - begin};
}

void PriorityItemsPolicy::onBegin(Nanos) {
    ready_.clear();
    lastSegmented_ = -1;
    missing_.resize(items_.size());
    sent_.assign(items_.size(), 0);
    for (std::size_t i = 0; i < items_.size(); ++i) missing_[i] = static_cast<int>(items_[i].waitsFor.size());
}

void PriorityItemsPolicy::onReady(int tensor, Nanos) {
    lastSegmented_ = -1;  // the head of the ready set may change
    for (int item : itemsOfTensor_[tensor]) {
        if (--missing_[item] == 0) ready_.emplace(items_[item].priority, item);
    }
}

std::optional<CommUnit> PriorityItemsPolicy::next(Nanos) {
    lastSegmented_ = -1;
    if (ready_.empty()) return std::nullopt;
    CommUnit unit;
    unit.priority = std::get<0>(*ready_.begin());
    for (int taken = 0; taken < itemsPerUnit_ && !ready_.empty(); ++taken) {
        const int item = std::get<1>(*ready_.begin());
        const PriorityItem& it = items_[static_cast<std::size_t>(item)];
        if (it.segment_elements == 0) {
            ready_.erase(ready_.begin());
            unit.pieces.insert(unit.pieces.end(), it.pieces.begin(), it.pieces.end());
            continue;
        }
        std::size_t& sent = sent_[static_cast<std::size_t>(item)];
        unit.pieces.push_back(segmentsSpan(item, sent++, 1));
        if (sent == segmentsOf(item)) ready_.erase(ready_.begin());
        else if (itemsPerUnit_ == 1) lastSegmented_ = item;
    }
    return unit;
}

std::size_t PriorityItemsPolicy::unitsFollowing() const {
    // With one item per unit, the segmented item just taken from is still the most urgent ready item (its key is
    // the head of the set, and only onReady adds to it), so next() would go on with its segments.
    if (lastSegmented_ < 0) return 0;
    return segmentsOf(lastSegmented_) - sent_[static_cast<std::size_t>(lastSegmented_)];
}

Piece PriorityItemsPolicy::takeUnitsFollowing(std::size_t count) {
    const int item = lastSegmented_;
    if (item < 0) return Piece{};  // an empty piece, which the simulator's ledger refuses
    count = std::min(count, unitsFollowing());
    std::size_t& sent = sent_[static_cast<std::size_t>(item)];
    const Piece span = segmentsSpan(item, sent, count);
    sent += count;
    if (sent == segmentsOf(item)) {
        ready_.erase({items_[static_cast<std::size_t>(item)].priority, item});
        lastSegmented_ = -1;
    }
    return span;
}

}  // namespace pacer::engine
