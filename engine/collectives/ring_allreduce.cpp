// Ring all-reduce: reduce-scatter then allgather around ranks 0 → 1 → … → n-1 → 0.
//
// The vector is cut into n blocks. In reduce-scatter step s (0..n-2) rank r sends block r-s to its successor and
// adds block r-s-1 from its predecessor; after n-1 steps it holds block r+1 summed over all ranks. The allgather
// passes the finished blocks on in n-1 more steps. Each rank sends 2(n-1)/n of the vector over one link, in
// 2(n-1) rounds: bandwidth-optimal, latency linear in n (Thakur, Rabenseifner & Gropp 2005).
#include "engine/collectives/allreduce_algorithms.h"

namespace pacer::engine {

using collective_detail::blockBegin;
using collective_detail::wrap;

Status ringAllreduce(PointToPoint& p2p, float* data, std::size_t count, const Topology& topology) {
    const int n = p2p.size();
    const int r = p2p.rank();
    if (n == 1 || count == 0) return Status::success();
    p2p.beginCollective();
    const int next = (r + 1) % n, prev = (r + n - 1) % n;
    const int sendPort = topology.portTowards(r, next), recvPort = topology.portTowards(r, prev);
    auto buffer = p2p.scratch(0, count / n + 1);
    if (!buffer.ok()) return buffer.status();
    auto op = [&](int peer, int port, int block, float* into) {
        const std::size_t b = blockBegin(count, n, block), e = blockBegin(count, n, block + 1);
        return P2POp{peer, into ? into : data + b, e - b, port, 0};
    };
    auto round = [&](int index, const P2POp& send, const P2POp& recv) {
        // Empty blocks (fewer elements than ranks) are skipped on both sides alike.
        return p2p.exchange(index, {&send, send.count ? 1u : 0u}, {&recv, recv.count ? 1u : 0u});
    };
    for (int s = 0; s < n - 1; ++s) {
        const P2POp send = op(next, sendPort, wrap(r - s, n), nullptr);
        P2POp recv = op(prev, recvPort, wrap(r - s - 1, n), *buffer);
        recv.add_to = data + blockBegin(count, n, wrap(r - s - 1, n));
        PACER_RETURN_IF_ERROR(round(s, send, recv));
    }
    for (int s = 0; s < n - 1; ++s) {
        const P2POp send = op(next, sendPort, wrap(r + 1 - s, n), nullptr);
        const P2POp recv = op(prev, recvPort, wrap(r - s, n), nullptr);
        PACER_RETURN_IF_ERROR(round(n - 1 + s, send, recv));
    }
    return Status::success();
}

}  // namespace pacer::engine
