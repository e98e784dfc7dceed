// Sack & Gropp's multiported torus all-reduce ("Collective Algorithms for Multiported Torus Networks", TOPC 2015).
//
// A node of a D-dimensional torus has 2·D links. The vector is split into 2·D parts, one per direction of each
// dimension. Part (d, ±) reduce-scatters along dimension d first, as a ring in its direction, then along d+1, …,
// wrapping round to d-1 (a rotated order, so that at any moment the parts use different dimensions); each
// dimension leaves it with 1/k of what it had. Then it allgathers in the reverse order. All parts advance one ring
// step per round, together, so the 2·D ports carry one message each per round: against a single-port ring the
// bandwidth term shrinks about 2·D times, and the latency term is 2·Σ(k_i − 1) steps instead of 2(n − 1).
// Dimensions of size 1 are left out; in a dimension of size 2 both directions reach the same neighbour over its two
// links (tags tell the parts apart).
#include "engine/collectives/allreduce_algorithms.h"

#include <vector>

namespace pacer::engine {

using collective_detail::blockBegin;
using collective_detail::wrap;

namespace {

struct Range {
    std::size_t lo = 0, hi = 0;
    std::size_t size() const { return hi - lo; }
    Range block(int k, int b) const { return {lo + blockBegin(size(), k, b), lo + blockBegin(size(), k, b + 1)}; }
};

// One part's progress: its direction, its order of dimensions and where it stands.
struct Part {
    int dir = +1;
    std::vector<int> order;     // dimensions, rotated to start at the part's own
    std::vector<Range> wholes;  // range before each dimension's reduce-scatter (for the allgather)
    Range range;                // what the part holds now
    std::size_t dimIndex = 0;   // position in `order`
    int step = 0;               // ring step within that dimension
};

}  // namespace

Status torusAllreduce(PointToPoint& p2p, float* data, std::size_t count, const Topology& topology) {
    const int n = p2p.size();
    const int r = p2p.rank();
    if (topology.kind != Topology::Kind::Torus)
        return Status::error("the torus all-reduce needs a torus topology, not " + topology.describe());
    PACER_RETURN_IF_ERROR(validate(topology, n));
    if (n == 1 || count == 0) return Status::success();
    p2p.beginCollective();

    std::vector<int> active;  // dimensions longer than 1
    for (int d = 0; d < static_cast<int>(topology.dims.size()); ++d)
        if (topology.dims[d] > 1) active.push_back(d);
    const std::vector<int> me = topology.coordinates(r);
    const int parts = 2 * static_cast<int>(active.size());
    const Range all{0, count};
    std::vector<Part> part(parts);
    int stepsPerPhase = 0;
    for (int d : active) stepsPerPhase += topology.dims[d] - 1;
    for (int p = 0; p < parts; ++p) {
        part[p].dir = p % 2 == 0 ? +1 : -1;
        for (std::size_t i = 0; i < active.size(); ++i) part[p].order.push_back(active[(p / 2 + i) % active.size()]);
        part[p].range = all.block(parts, p);
        auto buffer = p2p.scratch(p, part[p].range.size() / 2 + 1);  // a block of a dimension of size ≥ 2
        if (!buffer.ok()) return buffer.status();
    }

    std::vector<P2POp> sends, recvs;
    // Reduce-scatter: every part makes stepsPerPhase ring steps, one per round.
    for (int round = 0; round < stepsPerPhase; ++round) {
        sends.clear(), recvs.clear();
        for (int p = 0; p < parts; ++p) {
            Part& q = part[p];
            const int d = q.order[q.dimIndex], k = topology.dims[d], c = me[d];
            if (q.step == 0) q.wholes.push_back(q.range);
            const Range whole = q.wholes.back();
            const Range out = whole.block(k, wrap(c - q.dir * q.step, k));
            const Range in = whole.block(k, wrap(c - q.dir * (q.step + 1), k));
            float* buffer = p2p.scratch(p, 0).value();
            if (out.size()) sends.push_back({topology.neighbor(r, d, q.dir), data + out.lo, out.size(), Topology::portOf(d, q.dir), p});
            if (in.size())
                recvs.push_back({topology.neighbor(r, d, -q.dir), buffer, in.size(), Topology::portOf(d, -q.dir), p,
                                 data + in.lo});
            if (++q.step == k - 1) {  // this dimension is done: keep the block the ring left here
                q.range = whole.block(k, wrap(c + q.dir, k));
                q.step = 0;
                ++q.dimIndex;
            }
        }
        PACER_RETURN_IF_ERROR(p2p.exchange(round, sends, recvs));
    }
    // Allgather: the dimensions in reverse order, each ring passing the finished blocks on.
    for (Part& q : part) q.dimIndex = q.order.size();
    for (int round = 0; round < stepsPerPhase; ++round) {
        sends.clear(), recvs.clear();
        for (int p = 0; p < parts; ++p) {
            Part& q = part[p];
            if (q.step == 0) --q.dimIndex;
            const int d = q.order[q.dimIndex], k = topology.dims[d], c = me[d];
            const Range whole = q.wholes[q.dimIndex];
            const Range out = whole.block(k, wrap(c + q.dir * (1 - q.step), k));
            const Range in = whole.block(k, wrap(c - q.dir * q.step, k));
            if (out.size()) sends.push_back({topology.neighbor(r, d, q.dir), data + out.lo, out.size(), Topology::portOf(d, q.dir), p});
            if (in.size()) recvs.push_back({topology.neighbor(r, d, -q.dir), data + in.lo, in.size(), Topology::portOf(d, -q.dir), p});
            if (++q.step == k - 1) q.step = 0;
        }
        PACER_RETURN_IF_ERROR(p2p.exchange(stepsPerPhase + round, sends, recvs));
    }
    return Status::success();
}

}  // namespace pacer::engine
