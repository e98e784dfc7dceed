#include "engine/policies/horovod_policy.h"

#include "engine/policies/element_tracker.h"

#include <deque>

namespace pacer::engine {
namespace {

class HorovodPolicy final : public TrackingPolicy {
public:
    HorovodPolicy(std::vector<TensorInfo> tensors, std::size_t fusionBytes, Nanos cycle)
        : TrackingPolicy(std::move(tensors)), fusionBytes_(fusionBytes), cycle_(cycle) {}

    std::string_view name() const override { return "horovod"; }

    std::optional<CommUnit> next(Nanos now) override {
        if (batched_.empty() && !pending_.empty() && now >= nextTick_) {
            fuse();
            // The next cycle starts at the first tick after now.
            while (nextTick_ <= now) nextTick_ += cycle_;
        }
        if (batched_.empty()) return std::nullopt;
        CommUnit unit = std::move(batched_.front());
        batched_.pop_front();
        return unit;
    }

    Nanos wakeTime() const override { return batched_.empty() && !pending_.empty() ? nextTick_ : kNever; }

protected:
    void onBegin(Nanos now) override {
        pending_.clear();
        batched_.clear();
        fused_ = 0;
        nextTick_ = now + cycle_;
    }
    void onReady(int tensor, Nanos) override { pending_.push_back(tensor); }

private:
    // Everything ready at this tick, in ready order, packed into buffers of at most fusionBytes.
    void fuse() {
        std::size_t bytes = 0;
        for (int t : pending_) {
            const TensorInfo& info = tensors()[t];
            if (batched_.empty() || (bytes > 0 && bytes + info.bytes() > fusionBytes_)) {
                batched_.emplace_back();
                batched_.back().priority = fused_++;
                bytes = 0;
            }
            batched_.back().pieces.push_back(Piece{t, 0, 0, info.elements});
            bytes += info.bytes();
        }
        pending_.clear();
    }

    std::size_t fusionBytes_;
    Nanos cycle_;
    Nanos nextTick_ = 0;
    int fused_ = 0;
    std::deque<int> pending_;
    std::deque<CommUnit> batched_;
};

}  // namespace

std::unique_ptr<Policy> makeHorovodPolicy(const PolicyConfig& config, const std::vector<TensorInfo>& tensors) {
    return std::make_unique<HorovodPolicy>(tensors, config.fusion_bytes, config.cycle_ns);
}

}  // namespace pacer::engine
