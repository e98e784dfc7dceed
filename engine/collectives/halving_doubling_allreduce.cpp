// Rabenseifner's all-reduce: a reduce-scatter by recursive halving, then an allgather by recursive doubling.
//
// In halving round k the rank pairs with the one 2^(L-1-k) away in the core of 2^L ranks, keeps one half of its
// current range, sends the other half and adds the partner's copy of the kept half. After L rounds each rank owns
// 1/2^L of the vector, summed; the allgather retraces the rounds in reverse, doubling the range each time. Each
// rank sends 2(p-1)/p of the vector in 2·log2 p rounds: the ring's bandwidth with logarithmic latency. Other rank
// counts fold the extra ranks in first (collective_detail::Fold), as Thakur, Rabenseifner & Gropp describe.
#include "engine/collectives/allreduce_algorithms.h"

#include <vector>

namespace pacer::engine {

using collective_detail::Fold;

Status halvingDoublingAllreduce(PointToPoint& p2p, float* data, std::size_t count, const Topology& topology) {
    const int r = p2p.rank();
    if (p2p.size() == 1 || count == 0) return Status::success();
    auto folded = collective_detail::beginFolded(p2p, data, count, topology);
    if (!folded.ok()) return folded.status();
    const Fold& fold = folded.value();
    int levels = 0;
    while ((1 << levels) < fold.pow2) ++levels;
    const int lastRound = 1 + 2 * levels;
    if (fold.coreRank < 0) return collective_detail::foldOut(p2p, fold, lastRound, data, count, topology);

    struct Range {
        std::size_t lo, hi;
    };
    struct Halving {
        Range whole;  // the range held before the halving
        bool lower;   // whether this rank kept its lower half
    };
    std::vector<Halving> kept;  // for the allgather, which retraces them
    Range range{0, count};
    auto buffer = p2p.scratch(0, count / 2 + 1);
    if (!buffer.ok()) return buffer.status();
    int round = 1;
    for (int mask = fold.pow2 / 2; mask >= 1; mask /= 2, ++round) {
        const int peer = fold.realRank(fold.coreRank ^ mask);
        const int port = topology.portTowards(r, peer);
        const std::size_t mid = range.lo + (range.hi - range.lo) / 2;
        const bool lower = (fold.coreRank & mask) == 0;
        const Range keep = lower ? Range{range.lo, mid} : Range{mid, range.hi};
        const Range give = lower ? Range{mid, range.hi} : Range{range.lo, mid};
        const P2POp send{peer, data + give.lo, give.hi - give.lo, port, 0};
        const P2POp recv{peer, *buffer, keep.hi - keep.lo, port, 0, data + keep.lo};
        PACER_RETURN_IF_ERROR(p2p.exchange(round, {&send, send.count ? 1u : 0u}, {&recv, recv.count ? 1u : 0u}));
        kept.push_back({range, lower});
        range = keep;
    }
    for (int mask = 1; mask < fold.pow2; mask *= 2, ++round) {
        const int peer = fold.realRank(fold.coreRank ^ mask);
        const int port = topology.portTowards(r, peer);
        const auto [whole, lower] = kept.back();
        kept.pop_back();
        // The partner owns the other half of `whole`.
        const Range other = lower ? Range{range.hi, whole.hi} : Range{whole.lo, range.lo};
        const P2POp send{peer, data + range.lo, range.hi - range.lo, port, 0};
        const P2POp recv{peer, data + other.lo, other.hi - other.lo, port, 0};
        PACER_RETURN_IF_ERROR(p2p.exchange(round, {&send, send.count ? 1u : 0u}, {&recv, recv.count ? 1u : 0u}));
        range = whole;
    }
    return collective_detail::foldOut(p2p, fold, lastRound, data, count, topology);
}

}  // namespace pacer::engine
