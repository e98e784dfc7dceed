#include "engine/policies/fifo_policy.h"

#include "engine/policies/element_tracker.h"

#include <deque>

namespace pacer::engine {
namespace {

class FifoPolicy final : public TrackingPolicy {
public:
    using TrackingPolicy::TrackingPolicy;
    std::string_view name() const override { return "fifo"; }

    std::optional<CommUnit> next(Nanos) override {
        if (queue_.empty()) return std::nullopt;
        const TensorInfo& t = tensors()[queue_.front()];
        queue_.pop_front();
        CommUnit unit;
        unit.pieces.push_back(Piece{t.id, 0, 0, t.elements});
        unit.priority = issued_++;  // first come, first served
        return unit;
    }

protected:
    void onBegin(Nanos) override {
        queue_.clear();
        issued_ = 0;
    }
    void onReady(int tensor, Nanos) override {
        if (tensors()[tensor].elements > 0) queue_.push_back(tensor);
    }

private:
    std::deque<int> queue_;
    int issued_ = 0;
};

}  // namespace

std::unique_ptr<Policy> makeFifoPolicy(const PolicyConfig&, const std::vector<TensorInfo>& tensors) {
    return std::make_unique<FifoPolicy>(tensors);
}

}  // namespace pacer::engine
