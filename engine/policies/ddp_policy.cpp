#include "engine/policies/ddp_policy.h"

#include "engine/policies/element_tracker.h"

#include <algorithm>

namespace pacer::engine {

std::vector<std::vector<int>> ddpBuckets(const std::vector<TensorInfo>& tensors, std::size_t firstBucketBytes,
                                         std::size_t bucketBytes) {
    // PyTorch's Reducer rule (compute_bucket_assignment_by_size over gradient-ready order): add the tensor to
    // the open bucket, then close the bucket once it has reached the current limit; the first limit is the
    // small first bucket (so the first all-reduce starts early in backward), every later one the cap. A tensor
    // above the limit thus closes the bucket it lands in, and has a bucket of its own when that one was empty.
    std::vector<std::vector<int>> buckets;
    std::vector<int> open;
    std::size_t filled = 0, limit = firstBucketBytes;
    for (auto it = tensors.rbegin(); it != tensors.rend(); ++it) {
        open.push_back(it->id);
        filled += it->bytes();
        if (filled >= limit) {
            buckets.push_back(std::move(open));
            open.clear();
            filled = 0;
            limit = bucketBytes;
        }
    }
    if (!open.empty()) buckets.push_back(std::move(open));
    return buckets;
}

namespace {

class DdpPolicy final : public TrackingPolicy {
public:
    DdpPolicy(std::vector<TensorInfo> tensors, std::vector<std::vector<int>> buckets)
        : TrackingPolicy(std::move(tensors)), buckets_(std::move(buckets)) {}

    std::string_view name() const override { return "ddp"; }
    bool updateWaitsForAll() const override { return true; }

    std::optional<CommUnit> next(Nanos) override {
        if (nextBucket_ >= buckets_.size()) return std::nullopt;
        const auto& bucket = buckets_[nextBucket_];
        for (int t : bucket)
            if (!isReady(t)) return std::nullopt;  // buckets go strictly in order
        CommUnit unit;
        unit.priority = static_cast<int>(nextBucket_++);
        for (int t : bucket) unit.pieces.push_back(Piece{t, 0, 0, tensors()[t].elements});
        return unit;
    }

protected:
    void onBegin(Nanos) override { nextBucket_ = 0; }
    void onReady(int, Nanos) override {}

private:
    std::vector<std::vector<int>> buckets_;
    std::size_t nextBucket_ = 0;
};

}  // namespace

std::unique_ptr<Policy> makeDdpPolicy(const PolicyConfig& config, const std::vector<TensorInfo>& tensors) {
    if (config.buckets.empty())
        return std::make_unique<DdpPolicy>(tensors, ddpBuckets(tensors, config.first_bucket_bytes, config.bucket_bytes));
    // Given buckets fill in gradient-ready order, as DDP's do: highest tensor id first.
    std::vector<std::vector<int>> buckets = config.buckets;
    for (auto& b : buckets) std::sort(b.rbegin(), b.rend());
    return std::make_unique<DdpPolicy>(tensors, std::move(buckets));
}

}  // namespace pacer::engine
