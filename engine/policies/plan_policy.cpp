#include "engine/policies/plan_policy.h"

#include "engine/policies/element_tracker.h"

#include <algorithm>

namespace pacer::engine {
namespace {

class PlanPolicy final : public TrackingPolicy {
public:
    PlanPolicy(std::unique_ptr<Policy> from, std::vector<CommUnit> plan, std::vector<TensorInfo> tensors)
        : TrackingPolicy(std::move(tensors)), from_(std::move(from)), plan_(std::move(plan)) {
        for (const CommUnit& u : plan_) largest_ = std::max(largest_, u.elements());
    }

    std::string_view name() const override { return from_->name(); }
    bool updateWaitsForAll() const override { return from_->updateWaitsForAll(); }
    bool updatesFillWaits() const override { return from_->updatesFillWaits(); }
    std::size_t largestUnitElements() const override { return largest_; }

    // The next unit of the plan once every tensor it reduces is ready; nothing before it, however much else is.
    std::optional<CommUnit> next(Nanos) override {
        if (next_ >= plan_.size()) return std::nullopt;
        const CommUnit& unit = plan_[next_];
        for (const Piece& p : unit.pieces)
            if (!isReady(p.tensor)) return std::nullopt;
        ++next_;
        return unit;
    }

protected:
    void onBegin(Nanos) override { next_ = 0; }
    void onReady(int, Nanos) override {}

private:
    std::unique_ptr<Policy> from_;
    std::vector<CommUnit> plan_;
    std::size_t next_ = 0;
    std::size_t largest_ = 0;
};

}  // namespace

std::unique_ptr<Policy> makePlanPolicy(std::unique_ptr<Policy> from, std::vector<CommUnit> plan,
                                       const std::vector<TensorInfo>& tensors) {
    return std::make_unique<PlanPolicy>(std::move(from), std::move(plan), tensors);
}

}  // namespace pacer::engine
