// Names, the piece-by-piece dispatcher and the fold shared by the doubling algorithms.
#include "engine/collectives/allreduce_algorithms.h"

#include <algorithm>

namespace pacer::engine {

namespace {
struct Named {
    Algorithm algorithm;
    const char* name;
};
constexpr Named kNames[] = {{Algorithm::Native, "native"},
                            {Algorithm::Auto, "auto"},
                            {Algorithm::Ring, "ring"},
                            {Algorithm::RecursiveDoubling, "recursive-doubling"},
                            {Algorithm::HalvingDoubling, "halving-doubling"},
                            {Algorithm::Torus, "torus"}};
}  // namespace

std::string algorithmName(Algorithm algorithm) {
    for (const Named& n : kNames)
        if (n.algorithm == algorithm) return n.name;
    return "?";
}

std::vector<std::string> algorithmNames() {
    std::vector<std::string> names;
    for (const Named& n : kNames) names.emplace_back(n.name);
    return names;
}

Result<Algorithm> parseAlgorithm(const std::string& name) {
    for (const Named& n : kNames)
        if (name == n.name) return n.algorithm;
    std::string known;
    for (const Named& n : kNames) known += std::string(known.empty() ? "" : ", ") + n.name;
    return Status::error("unknown all-reduce algorithm '" + name + "' (known: " + known + ")");
}

Status runAllreduce(Algorithm algorithm, PointToPoint& p2p, float* data, std::size_t count,
                    const CollectiveOptions& options) {
    Status (*run)(PointToPoint&, float*, std::size_t, const Topology&) = nullptr;
    switch (algorithm) {
    case Algorithm::Ring: run = ringAllreduce; break;
    case Algorithm::RecursiveDoubling: run = recursiveDoublingAllreduce; break;
    case Algorithm::HalvingDoubling: run = halvingDoublingAllreduce; break;
    case Algorithm::Torus: run = torusAllreduce; break;
    case Algorithm::Native:
    case Algorithm::Auto:
        return Status::error("runAllreduce needs a concrete algorithm, not '" + algorithmName(algorithm) + "'");
    }
    const std::size_t piece =
        options.max_piece_bytes == 0 ? count : std::max<std::size_t>(1, options.max_piece_bytes / sizeof(float));
    for (std::size_t at = 0; at < count || (count == 0 && at == 0); at += piece) {
        if (count == 0) break;
        PACER_RETURN_IF_ERROR(run(p2p, data + at, std::min(piece, count - at), options.topology));
    }
    return Status::success();
}

namespace collective_detail {

Fold::Fold(int rank, int n) {
    while (pow2 * 2 <= n) pow2 *= 2;
    extra = n - pow2;
    if (rank < 2 * extra) coreRank = rank % 2 == 1 ? rank / 2 : -1;
    else coreRank = rank - extra;
}

Result<Fold> beginFolded(PointToPoint& p2p, float* data, std::size_t count, const Topology& topology) {
    p2p.beginCollective();
    const int r = p2p.rank();
    const Fold fold(r, p2p.size());
    if (r >= 2 * fold.extra) return fold;
    if (fold.coreRank < 0) {
        const P2POp send{r + 1, data, count, topology.portTowards(r, r + 1), 0};
        PACER_RETURN_IF_ERROR(p2p.exchange(0, {&send, 1}, {}));
        return fold;
    }
    auto buffer = p2p.scratch(0, count);
    if (!buffer.ok()) return buffer.status();
    const P2POp recv{r - 1, *buffer, count, topology.portTowards(r, r - 1), 0, data};
    PACER_RETURN_IF_ERROR(p2p.exchange(0, {}, {&recv, 1}));
    return fold;
}

Status foldOut(PointToPoint& p2p, const Fold& fold, int round, float* data, std::size_t count,
               const Topology& topology) {
    const int r = p2p.rank();
    if (r >= 2 * fold.extra) return Status::success();
    if (fold.coreRank < 0) {
        const P2POp recv{r + 1, data, count, topology.portTowards(r, r + 1), 0};
        return p2p.exchange(round, {}, {&recv, 1});
    }
    const P2POp send{r - 1, data, count, topology.portTowards(r, r - 1), 0};
    return p2p.exchange(round, {&send, 1}, {});
}

}  // namespace collective_detail
}  // namespace pacer::engine
