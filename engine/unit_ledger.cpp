#include "engine/unit_ledger.h"

#include <algorithm>
#include <string>

namespace pacer::engine {

UnitLedger::UnitLedger(const std::vector<TensorInfo>& tensors)
    : tensors_(tensors), heard_(tensors.size(), false), remaining_(tensors.size(), 0) {
    beginIteration();
}

void UnitLedger::beginIteration() {
    std::fill(heard_.begin(), heard_.end(), false);
    for (std::size_t t = 0; t < tensors_.size(); ++t) remaining_[t] = tensors_[t].elements;
}

void UnitLedger::heard(int tensor) { heard_[static_cast<std::size_t>(tensor)] = true; }

Status UnitLedger::admit(std::string_view policy, const CommUnit& unit) {
    // Built only for an error: the simulator admits every unit, and most are fine.
    auto who = [&] { return "policy '" + std::string(policy) + "'"; };
    if (unit.pieces.empty()) return Status::error(who() + " returned an empty unit");
    const int n = static_cast<int>(tensors_.size());
    for (const Piece& p : unit.pieces) {
        if (p.tensor < 0 || p.tensor >= n)
            return Status::error(who() + " sent a piece of tensor " + std::to_string(p.tensor) + ", which does not exist");
        if (!heard_[static_cast<std::size_t>(p.tensor)])
            return Status::error(who() + " chose tensor " + std::to_string(p.tensor) +
                                 " before its gradient was ready on every rank");
        if (p.count == 0 || p.count > remaining_[static_cast<std::size_t>(p.tensor)])
            return Status::error(who() + " sent an invalid piece of tensor " + std::to_string(p.tensor) + " (" +
                                 std::to_string(p.count) + " elements, " +
                                 std::to_string(remaining_[static_cast<std::size_t>(p.tensor)]) + " left)");
    }
    for (const Piece& p : unit.pieces) remaining_[static_cast<std::size_t>(p.tensor)] -= p.count;
    return Status::success();
}

int UnitLedger::firstUnfinished() const {
    for (std::size_t t = 0; t < remaining_.size(); ++t)
        if (remaining_[t] != 0) return static_cast<int>(t);
    return -1;
}

}  // namespace pacer::engine
