// Recursive doubling: in round k each rank swaps its whole vector with the rank 2^k away and adds: log2(n) rounds,
// each moving the whole vector. Few latencies, n/2 times the ring's bytes per rank: the choice for small messages.
// Other rank counts fold the first 2·(n − 2^⌊log2 n⌋) ranks pairwise first (collective_detail::Fold).
#include "engine/collectives/allreduce_algorithms.h"

namespace pacer::engine {

using collective_detail::Fold;

Status recursiveDoublingAllreduce(PointToPoint& p2p, float* data, std::size_t count, const Topology& topology) {
    const int r = p2p.rank();
    if (p2p.size() == 1 || count == 0) return Status::success();
    auto folded = collective_detail::beginFolded(p2p, data, count, topology);
    if (!folded.ok()) return folded.status();
    const Fold& fold = folded.value();
    int round = 1;
    if (fold.coreRank >= 0) {
        auto buffer = p2p.scratch(0, count);
        if (!buffer.ok()) return buffer.status();
        for (int mask = 1; mask < fold.pow2; mask <<= 1, ++round) {
            const int peer = fold.realRank(fold.coreRank ^ mask);
            const int port = topology.portTowards(r, peer);
            const P2POp send{peer, data, count, port, 0};
            const P2POp recv{peer, *buffer, count, port, 0, data};
            PACER_RETURN_IF_ERROR(p2p.exchange(round, {&send, 1}, {&recv, 1}));
        }
    } else {
        for (int mask = 1; mask < fold.pow2; mask <<= 1) ++round;
    }
    return collective_detail::foldOut(p2p, fold, round, data, count, topology);
}

}  // namespace pacer::engine
