// The point-to-point layer the collective algorithms (engine/collectives/) run on: rounds of sends and receives.
//
// An algorithm is a sequence of rounds; in each, a rank posts some sends and receives (to several peers and on
// several ports at once: the torus algorithm keeps all 2·D ports busy) and waits for all of them. Every rank
// calls beginCollective() before each collective and then exchange() with the same round numbers, so that a
// message is matched by (collective, round, tag, peer) whatever the timing. Gloo implements it with unbound
// buffers on the channel's context, NCCL with ncclSend/ncclRecv in one group per round.
//
// Every wait is bounded by the transport's timeout; a failed round names the peer that stopped, and the
// transport is failed afterwards, exactly as for its own collectives.
#pragma once

#include "engine/status.h"

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

namespace pacer::engine {

// One send or receive of a round: `count` floats at `data` to or from `peer`. `port` is the link of this rank the
// message uses (link emulation queues a port's messages one after another; ports run in parallel); `tag` tells
// apart several messages between the same two ranks in one round (0..255). A receive with `add_to` set is added
// into add_to[0..count) once it is in: the layer may do that piece by piece as the message arrives, so that adding
// overlaps the rest of the transfer (Gloo's ring pipelines the same way); where add_to overlaps a send of the same
// round, only after that send is through.
struct P2POp {
    int peer = 0;
    float* data = nullptr;
    std::size_t count = 0;
    int port = 0;
    int tag = 0;
    float* add_to = nullptr;
};

class PointToPoint {
public:
    virtual ~PointToPoint() = default;
    virtual int rank() const = 0;
    virtual int size() const = 0;
    // Starts a collective; the rounds that follow use message slots of their own.
    virtual void beginCollective() = 0;
    // Posts every send and receive of round `round` (0..2^20-1), then waits for all of them (and adds the receives
    // that ask for it). Within a round no send may depend on a receive of the same round.
    virtual Status exchange(int round, std::span<const P2POp> sends, std::span<const P2POp> receives) = 0;
    // dst[i] += src[i] for count floats, in the layer's memory space (host here; device memory on NCCL).
    virtual Status reduceSum(float* dst, const float* src, std::size_t count);
    // Working space for received blocks in the layer's memory space: buffer `index` holds at least `count` floats
    // and stays valid until the next call with that index.
    virtual Result<float*> scratch(int index, std::size_t count);

protected:
    // For layers that receive whole messages: adds every receive that has add_to set.
    Status addReceived(std::span<const P2POp> receives);

private:
    std::vector<std::vector<float>> scratch_;
};

inline Status PointToPoint::addReceived(std::span<const P2POp> receives) {
    for (const P2POp& op : receives)
        if (op.add_to) PACER_RETURN_IF_ERROR(reduceSum(op.add_to, op.data, op.count));
    return Status::success();
}

inline Status PointToPoint::reduceSum(float* dst, const float* src, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) dst[i] += src[i];
    return Status::success();
}

inline Result<float*> PointToPoint::scratch(int index, std::size_t count) {
    if (index < 0) return Status::error("scratch buffer index cannot be negative");
    if (scratch_.size() <= static_cast<std::size_t>(index)) scratch_.resize(index + 1);
    if (scratch_[index].size() < count) scratch_[index].resize(count);
    return scratch_[index].data();
}

}  // namespace pacer::engine
