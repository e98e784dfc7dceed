// A Gloo rank behind a wrapper that forwards every call, as transport and as point-to-point layer: the engine tests
// derive from it and override what they watch (calls counted, calls slowed).
#pragma once

#include "engine/transport/transport.h"

#include <span>

namespace pacer::engine::testing {

class ForwardingRank : public Transport, public PointToPoint {
public:
    explicit ForwardingRank(Transport& inner) : inner_(inner), p2p_(*inner.pointToPoint(0)) {}
    int rank() const override { return inner_.rank(); }
    int size() const override { return inner_.size(); }
    Status allreduceOn(int channel, float* data, std::size_t count) override {
        return inner_.allreduceOn(channel, data, count);
    }
    Status broadcast(void* data, std::size_t bytes, int root) override { return inner_.broadcast(data, bytes, root); }
    PointToPoint* pointToPoint(int) override { return this; }
    void abort() override { inner_.abort(); }
    void beginCollective() override { p2p_.beginCollective(); }
    Status exchange(int round, std::span<const P2POp> sends, std::span<const P2POp> receives) override {
        return p2p_.exchange(round, sends, receives);
    }
    Status reduceSum(float* dst, const float* src, std::size_t count) override {
        return p2p_.reduceSum(dst, src, count);
    }
    Result<float*> scratch(int index, std::size_t count) override { return p2p_.scratch(index, count); }
    using Transport::scratch;

protected:
    Transport& inner_;
    PointToPoint& p2p_;
};

}  // namespace pacer::engine::testing
