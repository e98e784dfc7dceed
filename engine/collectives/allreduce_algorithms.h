// Sum all-reduce algorithms of float32 in place, on the point-to-point layer (engine/transport/point_to_point.h).
//
// One file per algorithm, as Gloo has one header per algorithm:
//   ring                 reduce-scatter then allgather around the ring: 2(n-1) rounds, each rank sends
//                        2(n-1)/n of the vector (ring_allreduce.cpp)
//   recursive-doubling   log2(n) rounds exchanging the whole vector: few latencies, for small messages
//                        (recursive_doubling_allreduce.cpp)
//   halving-doubling     Rabenseifner: recursive-halving reduce-scatter then recursive-doubling allgather: 2·log2(n)
//                        rounds and the ring's bandwidth term (halving_doubling_allreduce.cpp)
//   torus                Sack & Gropp's multiported torus all-reduce: 2·D parts, one per port, each reduced
//                        dimension by dimension in its own rotated order, all at once (torus_allreduce.cpp)
// Rank counts that are not powers of two: the doubling algorithms fold the first 2r ranks pairwise (r = n minus the
// largest power of two below n) before and unfold them after, as in Thakur, Rabenseifner & Gropp (2005).
// Every rank issues the same rounds (the tests check that the sends and receives of all ranks match).
#pragma once

#include "engine/collectives/topology.h"
#include "engine/status.h"
#include "engine/transport/point_to_point.h"

#include <cstddef>
#include <string>
#include <vector>

namespace pacer::engine {

// native: the transport's own all-reduce (gloo::allreduce, ncclAllReduce); auto: chosen per message size and
// topology by the cost models (engine/collectives/algorithm_cost.h).
enum class Algorithm { Native, Auto, Ring, RecursiveDoubling, HalvingDoubling, Torus };

std::string algorithmName(Algorithm algorithm);
Result<Algorithm> parseAlgorithm(const std::string& name);
std::vector<std::string> algorithmNames();  // every name parseAlgorithm knows

// Runs on every rank with the same arguments (count, topology, piece size).
struct CollectiveOptions {
    Topology topology;
    // The vector is reduced in pieces of at most this many bytes, one collective each (0: all at once), as Gloo's
    // maxSegmentSize; tests shrink it.
    std::size_t max_piece_bytes = 0;
};

Status ringAllreduce(PointToPoint& p2p, float* data, std::size_t count, const Topology& topology);
Status recursiveDoublingAllreduce(PointToPoint& p2p, float* data, std::size_t count, const Topology& topology);
Status halvingDoublingAllreduce(PointToPoint& p2p, float* data, std::size_t count, const Topology& topology);
// Needs a torus topology holding exactly the layer's ranks.
Status torusAllreduce(PointToPoint& p2p, float* data, std::size_t count, const Topology& topology);

// Runs one concrete algorithm (not native or auto) over the vector, piece by piece.
Status runAllreduce(Algorithm algorithm, PointToPoint& p2p, float* data, std::size_t count,
                    const CollectiveOptions& options);

namespace collective_detail {
// Block b of k blocks of a range of len elements: [len·b/k, len·(b+1)/k); sizes differ by at most one element.
inline std::size_t blockBegin(std::size_t len, int k, int b) {
    return len * static_cast<std::size_t>(b) / static_cast<std::size_t>(k);
}
inline int wrap(int v, int k) { return ((v % k) + k) % k; }
// The doubling algorithms' fold for rank counts that are not powers of two: ranks below 2·extra pair up (even
// with odd), the even one hands its vector to the odd one and sits out the power-of-two core.
struct Fold {
    int pow2 = 1;     // ranks in the core
    int extra = 0;    // n - pow2
    int coreRank = -1;  // this rank's index in the core; -1 when it sits out
    explicit Fold(int rank, int n);
    int realRank(int core) const { return core < extra ? 2 * core + 1 : core + extra; }
};
// Starts a folded algorithm: beginCollective, then round 0, where the sitting-out ranks send their vector to their
// partner, which adds it. Returns this rank's place in the fold.
Result<Fold> beginFolded(PointToPoint& p2p, float* data, std::size_t count, const Topology& topology);
// The last round: the partners send the result back.
Status foldOut(PointToPoint& p2p, const Fold& fold, int round, float* data, std::size_t count, const Topology& topology);
}  // namespace collective_detail

}  // namespace pacer::engine
