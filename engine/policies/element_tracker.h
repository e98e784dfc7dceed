// Shared bookkeeping for policies: which tensors are ready this iteration and how many elements are reduced,
// so that every policy answers finished() the same way.
#pragma once

#include "engine/policy.h"

#include <vector>

namespace pacer::engine {

class TrackingPolicy : public Policy {
public:
    explicit TrackingPolicy(std::vector<TensorInfo> tensors) : tensors_(std::move(tensors)) {
        for (const TensorInfo& t : tensors_) total_ += t.elements;
        ready_.assign(tensors_.size(), false);
    }

    void beginIteration(Nanos now) override {
        done_ = 0;
        ready_.assign(tensors_.size(), false);
        onBegin(now);
    }
    void onGradientReady(int tensor, Nanos now) override {
        if (tensor < 0 || tensor >= static_cast<int>(tensors_.size()) || ready_[tensor]) return;  // ignore repeats
        ready_[tensor] = true;
        onReady(tensor, now);
    }
    void onUnitDone(const CommUnit& unit, Nanos now) override {
        done_ += unit.elements();
        onDone(unit, now);
    }
    bool finished() const override { return done_ >= total_; }

protected:
    virtual void onBegin(Nanos now) = 0;
    virtual void onReady(int tensor, Nanos now) = 0;
    virtual void onDone(const CommUnit&, Nanos) {}

    bool isReady(int tensor) const { return ready_[tensor]; }
    const std::vector<TensorInfo>& tensors() const { return tensors_; }

private:
    std::vector<TensorInfo> tensors_;
    std::vector<bool> ready_;
    std::size_t total_ = 0;
    std::size_t done_ = 0;
};

}  // namespace pacer::engine
