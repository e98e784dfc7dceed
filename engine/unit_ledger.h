// One check of the units a policy hands out, shared by both drivers of a policy: the runtime's dynamic mode (real
// clock) and the simulator (virtual clock). A policy may only send what it was told is ready, and each element
// once per iteration; a unit that breaks this is refused with the same error in a run and in a replay, so a
// policy bug cannot pass replay and then hang or corrupt a real run.
#pragma once

#include "engine/status.h"
#include "engine/tensor.h"

#include <cstddef>
#include <string_view>
#include <vector>

namespace pacer::engine {

class UnitLedger {
public:
    explicit UnitLedger(const std::vector<TensorInfo>& tensors);

    void beginIteration();   // nothing heard yet; every element still to reduce
    void heard(int tensor);  // the policy has been told this gradient is ready (on every rank)
    bool wasHeard(int tensor) const { return heard_[static_cast<std::size_t>(tensor)]; }

    // Refuses a unit without pieces, a piece of a tensor that does not exist, of a tensor whose gradient the policy
    // has not been told is ready, an empty piece, or one that reduces more than what remains of its tensor. Else
    // takes the unit's pieces off what remains.
    Status admit(std::string_view policy, const CommUnit& unit);

    std::size_t remaining(int tensor) const { return remaining_[static_cast<std::size_t>(tensor)]; }
    int firstUnfinished() const;  // the first tensor with elements left, or -1

private:
    const std::vector<TensorInfo>& tensors_;
    std::vector<bool> heard_;
    std::vector<std::size_t> remaining_;
};

}  // namespace pacer::engine
