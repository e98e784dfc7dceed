#include "engine/collectives/algorithm_cost.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>

namespace pacer::engine {
namespace {

// Coefficients of α, β·m and γ·m in an algorithm's cost.
struct Coefficients {
    double alpha = 0, beta = 0, gamma = 0;
};

// The torus all-reduce's bytes on the critical path per byte of the vector: its parts advance in lockstep, so each
// round lasts as long as the busiest port's queue (two parts can meet on one port when dimensions differ in size).
// Round by round as torus_allreduce.cpp schedules it, with blocks as exact fractions. On a cubic torus this is
// Sack & Gropp's 2(n−1)/n / 2D; on uneven shapes the rounds where small blocks wait for large ones make it more.
double torusBytesPerByte(const Topology& topology) {
    std::vector<int> active;
    for (int d = 0; d < static_cast<int>(topology.dims.size()); ++d)
        if (topology.dims[d] > 1) active.push_back(d);
    if (active.empty()) return 0;
    const int parts = 2 * static_cast<int>(active.size());
    struct Part {
        std::size_t dimIndex = 0;
        int step = 0;
        double share = 0;  // of the whole vector, held before this dimension's reduce-scatter
    };
    std::vector<Part> part(parts);
    for (Part& p : part) p.share = 1.0 / parts;
    int rounds = 0;
    for (int d : active) rounds += topology.dims[d] - 1;
    double total = 0;
    for (int round = 0; round < rounds; ++round) {
        std::vector<double> port(2 * topology.dims.size(), 0.0);
        for (int p = 0; p < parts; ++p) {
            Part& q = part[p];
            const int d = active[(p / 2 + q.dimIndex) % active.size()];
            const int k = topology.dims[d];
            port[Topology::portOf(d, p % 2 == 0 ? +1 : -1)] += q.share / k;
            if (++q.step == k - 1) q.step = 0, q.share /= k, ++q.dimIndex;
        }
        total += *std::max_element(port.begin(), port.end());
    }
    return 2 * total;  // the allgather retraces the same rounds with the same blocks
}

Coefficients coefficients(Algorithm algorithm, int n, const Topology& topology) {
    if (n <= 1) return {};
    int p = 1, levels = 0;
    while (p * 2 <= n) p *= 2, ++levels;
    const double fold = n != p ? 1.0 : 0.0;  // the extra step before and after
    const double share = static_cast<double>(n - 1) / n;
    switch (algorithm) {
    case Algorithm::Ring: return {2.0 * (n - 1), 2.0 * share, share};
    case Algorithm::RecursiveDoubling:
        return {levels + 2 * fold, levels + 2 * fold, levels + fold};
    case Algorithm::HalvingDoubling: {
        const double coreShare = static_cast<double>(p - 1) / p;
        return {2.0 * levels + 2 * fold, 2.0 * coreShare + 2 * fold, coreShare + fold};
    }
    case Algorithm::Torus: {
        double steps = 0;
        int dims = 0;
        for (int k : topology.dims)
            if (k > 1) steps += k - 1, ++dims;
        if (dims == 0) return {};
        return {2.0 * steps, torusBytesPerByte(topology), share};
    }
    case Algorithm::Native:
    case Algorithm::Auto: break;
    }
    return {};
}

// Weighted least squares of the samples' times over the parameters marked free; the others keep `fixed`'s values.
// False when the free ones are not determined by the samples.
bool fitSubset(const std::vector<CollectiveSample>& samples, const Topology& topology, const std::array<bool, 3>& free,
               const std::array<double, 3>& fixed, std::array<double, 3>& x, double& residual) {
    std::vector<int> index;
    for (int i = 0; i < 3; ++i)
        if (free[i]) index.push_back(i);
    const std::size_t k = index.size();
    std::vector<std::vector<double>> a(k, std::vector<double>(k + 1, 0.0));  // normal equations, augmented
    auto rowOf = [&](const CollectiveSample& s) {
        const Coefficients c = coefficients(s.algorithm, s.ranks, topology);
        return std::array<double, 3>{c.alpha, c.beta * s.bytes, c.gamma * s.bytes};
    };
    for (const CollectiveSample& s : samples) {
        const auto row = rowOf(s);
        const double w = s.ns > 0 ? 1.0 / s.ns : 1.0;  // relative error: small and large messages count alike
        double target = s.ns;
        for (int i = 0; i < 3; ++i)
            if (!free[i]) target -= row[i] * fixed[i];
        for (std::size_t i = 0; i < k; ++i) {
            for (std::size_t j = 0; j < k; ++j) a[i][j] += row[index[i]] * row[index[j]] * w * w;
            a[i][k] += row[index[i]] * target * w * w;
        }
    }
    for (std::size_t c = 0; c < k; ++c) {  // Gauss-Jordan with partial pivoting
        std::size_t pivot = c;
        for (std::size_t r = c + 1; r < k; ++r)
            if (std::abs(a[r][c]) > std::abs(a[pivot][c])) pivot = r;
        if (std::abs(a[pivot][c]) < 1e-12 * std::max(1.0, std::abs(a[0][0]))) return false;
        std::swap(a[c], a[pivot]);
        for (std::size_t r = 0; r < k; ++r) {
            if (r == c) continue;
            const double f = a[r][c] / a[c][c];
            for (std::size_t j = c; j <= k; ++j) a[r][j] -= f * a[c][j];
        }
    }
    x = fixed;
    for (std::size_t i = 0; i < k; ++i) x[index[i]] = a[i][k] / a[i][i];
    residual = 0;
    for (const CollectiveSample& s : samples) {
        const auto row = rowOf(s);
        const double e = (row[0] * x[0] + row[1] * x[1] + row[2] * x[2] - s.ns) / (s.ns > 0 ? s.ns : 1.0);
        residual += e * e;
    }
    return true;
}

}  // namespace

namespace {
// Piecewise linear through (bytes, ns) points by increasing bytes; before the first and after the last, the line
// through the two nearest (never below 0). One point: that time at every size.
double piecewiseLinear(const std::vector<std::pair<double, double>>& points, double bytes) {
    if (points.empty()) return 0;
    if (points.size() == 1) return points[0].second;
    std::size_t i = 1;  // the segment [i-1, i] that holds bytes, or the nearest one
    while (i + 1 < points.size() && bytes > points[i].first) ++i;
    const auto [x0, y0] = points[i - 1];
    const auto [x1, y1] = points[i];
    const double slope = x1 != x0 ? (y1 - y0) / (x1 - x0) : 0;
    return std::max(0.0, y0 + slope * (bytes - x0));
}
}  // namespace

double MeasuredCost::at(double bytes) const { return piecewiseLinear(points, bytes); }
double MeasuredCost::upperAt(double bytes) const { return piecewiseLinear(upper.empty() ? points : upper, bytes); }

const MeasuredCost* LinkParams::measuredCost(Algorithm algorithm) const {
    for (const MeasuredCost& m : measured)
        if (m.algorithm == algorithm && !m.points.empty()) return &m;
    return nullptr;
}

namespace {
double modelCostNs(Algorithm algorithm, int ranks, const Topology& topology, double bytes, const LinkParams& link) {
    const Coefficients c = coefficients(algorithm, ranks, topology);
    return c.alpha * link.alpha_ns + c.beta * bytes * link.beta_ns_per_byte + c.gamma * bytes * link.gamma_ns_per_byte;
}
}  // namespace

double allreduceCostNs(Algorithm algorithm, int ranks, const Topology& topology, double bytes, const LinkParams& link,
                       CostBound bound) {
    if (ranks <= 1) return 0;
    if (const MeasuredCost* m = link.measuredCost(algorithm)) {
        const bool upper = bound == CostBound::Upper;
        const auto [lastBytes, lastNs] = upper && !m->upper.empty() ? m->upper.back() : m->points.back();
        if (bytes <= lastBytes) return upper ? m->upperAt(bytes) : m->at(bytes);
        // Beyond the largest size timed, each grows from its last time by its model's cost per byte, with the α, β, γ
        // fitted over all algorithms (native as the ring, which is what Gloo's all-reduce and the shared-memory one
        // run). Why: a slope measured between two sizes is as noisy as they are, and on 4 Gloo ranks it made
        // recursive doubling, which moves a third more bytes than the ring, look cheapest from 16 MiB up, where it
        // ran at 0.69-0.88 of gloo::allreduce; the models know which algorithm moves more bytes.
        const Coefficients c = coefficients(algorithm == Algorithm::Native ? Algorithm::Ring : algorithm, ranks, topology);
        return lastNs + (bytes - lastBytes) * (c.beta * link.beta_ns_per_byte + c.gamma * link.gamma_ns_per_byte);
    }
    if (algorithm == Algorithm::Native || algorithm == Algorithm::Auto) return 0;
    return modelCostNs(algorithm, ranks, topology, bytes, link);
}

std::vector<Algorithm> candidateAlgorithms(int ranks, const Topology& topology) {
    std::vector<Algorithm> out{Algorithm::Ring, Algorithm::RecursiveDoubling, Algorithm::HalvingDoubling};
    if (topology.kind == Topology::Kind::Torus && validate(topology, ranks).ok()) out.push_back(Algorithm::Torus);
    return out;
}

Algorithm chooseAlgorithm(int ranks, const Topology& topology, std::size_t bytes, const LinkParams& link) {
    Algorithm best = Algorithm::Ring;
    double bestCost = 0;
    bool first = true;
    std::vector<Algorithm> candidates = candidateAlgorithms(ranks, topology);
    if (link.nativeKnown()) candidates.insert(candidates.begin(), Algorithm::Native);
    for (Algorithm a : candidates) {
        const double cost = allreduceCostNs(a, ranks, topology, static_cast<double>(bytes), link, CostBound::Upper);
        if (first || cost < bestCost) best = a, bestCost = cost, first = false;
    }
    return best;
}

Result<LinkParams> fitLinkParams(const std::vector<CollectiveSample>& samples, const Topology& topology,
                                 double gammaIfUnknown) {
    std::set<double> sizes;
    for (const CollectiveSample& s : samples) sizes.insert(s.bytes);
    if (sizes.size() < 2) return Status::error("fitting α, β, γ needs all-reduces of at least two sizes");
    // The best fit with every parameter free; where that is undetermined (β and γ always in one ratio) or gives a
    // negative value (noisy timings), the best of the fits with γ held at gammaIfUnknown and/or α at 0.
    const std::array<double, 3> fixed{0.0, 0.0, gammaIfUnknown};
    const std::array<std::array<bool, 3>, 4> tries{{{true, true, true}, {true, true, false}, {false, true, true},
                                                    {false, true, false}}};
    bool found = false;
    double bestResidual = 0;
    std::array<double, 3> best{};
    for (const auto& free : tries) {
        std::array<double, 3> x{};
        double residual = 0;
        if (!fitSubset(samples, topology, free, fixed, x, residual)) continue;
        if (x[0] < 0 || x[1] < 0 || x[2] < 0) continue;
        if (free[0] && free[1] && free[2]) return LinkParams{x[0], x[1], x[2]};  // determined and sane: take it
        if (!found || residual < bestResidual) best = x, bestResidual = residual, found = true;
    }
    if (!found) return Status::error("no fit with non-negative α, β, γ: the samples do not follow the model");
    return LinkParams{best[0], best[1], best[2]};
}

LinkParams emulatedLink(double gbps, double latencyUs, double gamma) {
    return {latencyUs * 1000.0, gbps > 0 ? 8.0 / gbps : 0.0, gamma};
}

}  // namespace pacer::engine
