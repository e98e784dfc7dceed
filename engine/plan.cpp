#include "engine/plan.h"

#include <algorithm>

namespace pacer::engine {

Status validatePlan(const std::vector<CommUnit>& plan, const std::vector<TensorInfo>& tensors) {
    std::vector<std::vector<std::pair<std::size_t, std::size_t>>> ranges(tensors.size());
    for (std::size_t u = 0; u < plan.size(); ++u) {
        if (plan[u].pieces.empty()) return Status::error("plan unit " + std::to_string(u) + " has no pieces");
        for (const Piece& p : plan[u].pieces) {
            if (p.tensor < 0 || p.tensor >= static_cast<int>(tensors.size()))
                return Status::error("plan unit " + std::to_string(u) + " names tensor " + std::to_string(p.tensor) +
                                     ", which does not exist");
            if (p.count == 0 || p.offset + p.count > tensors[p.tensor].elements)
                return Status::error("plan unit " + std::to_string(u) + " has an empty piece or one beyond the end of tensor " +
                                     std::to_string(p.tensor));
            ranges[p.tensor].emplace_back(p.offset, p.count);
        }
    }
    for (std::size_t t = 0; t < tensors.size(); ++t) {
        auto& r = ranges[t];
        std::sort(r.begin(), r.end());
        std::size_t covered = 0;
        for (const auto& [offset, count] : r) {
            if (offset != covered)
                return Status::error("plan " + std::string(offset < covered ? "reduces twice" : "leaves out") +
                                     " elements of tensor " + std::to_string(t) + " near element " + std::to_string(offset));
            covered += count;
        }
        if (covered != tensors[t].elements)
            return Status::error("plan leaves out elements of tensor " + std::to_string(t) + " from element " +
                                 std::to_string(covered));
    }
    return Status::success();
}

Result<std::vector<CommUnit>> recordPlan(Policy& policy, const std::vector<TensorInfo>& tensors) {
    std::vector<CommUnit> plan;
    Nanos now = 0;
    policy.beginIteration(now);
    for (auto it = tensors.rbegin(); it != tensors.rend(); ++it) policy.onGradientReady(it->id, now);
    while (!policy.finished()) {
        if (auto unit = policy.next(now)) {
            policy.onUnitDone(*unit, now);
            plan.push_back(std::move(*unit));
            continue;
        }
        if (policy.wakeTime() == kNever)
            return Status::error("policy '" + std::string(policy.name()) + "' stalled with every gradient ready");
        now = std::max(now + 1, policy.wakeTime());
    }
    return plan;
}

}  // namespace pacer::engine
