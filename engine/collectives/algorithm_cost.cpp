#include "engine/collectives/algorithm_cost.h"

#include <array>
#include <cmath>
#include <set>

namespace pacer::engine {
namespace {

// Coefficients of α, β·m and γ·m in an algorithm's cost.
struct Coefficients {
    double alpha = 0, beta = 0, gamma = 0;
};

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
        return {2.0 * steps, 2.0 * share / (2.0 * dims), share};
    }
    case Algorithm::Native:
    case Algorithm::Auto: break;
    }
    return {};
}

// Solves the 3×3 system a·x = b (Gaussian elimination with pivoting); false when singular.
bool solve3(std::array<std::array<double, 3>, 3> a, std::array<double, 3> b, std::array<double, 3>& x) {
    for (int c = 0; c < 3; ++c) {
        int pivot = c;
        for (int r = c + 1; r < 3; ++r)
            if (std::abs(a[r][c]) > std::abs(a[pivot][c])) pivot = r;
        if (std::abs(a[pivot][c]) < 1e-12 * (1 + std::abs(a[0][0]) + std::abs(a[1][1]) + std::abs(a[2][2]))) return false;
        std::swap(a[c], a[pivot]);
        std::swap(b[c], b[pivot]);
        for (int r = 0; r < 3; ++r) {
            if (r == c) continue;
            const double f = a[r][c] / a[c][c];
            for (int k = 0; k < 3; ++k) a[r][k] -= f * a[c][k];
            b[r] -= f * b[c];
        }
    }
    for (int c = 0; c < 3; ++c) x[c] = b[c] / a[c][c];
    return true;
}

}  // namespace

double allreduceCostNs(Algorithm algorithm, int ranks, const Topology& topology, double bytes, const LinkParams& link) {
    const Coefficients c = coefficients(algorithm, ranks, topology);
    return c.alpha * link.alpha_ns + c.beta * bytes * link.beta_ns_per_byte + c.gamma * bytes * link.gamma_ns_per_byte;
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
    for (Algorithm a : candidateAlgorithms(ranks, topology)) {
        const double cost = allreduceCostNs(a, ranks, topology, static_cast<double>(bytes), link);
        if (first || cost < bestCost) best = a, bestCost = cost, first = false;
    }
    return best;
}

Result<LinkParams> fitLinkParams(const std::vector<CollectiveSample>& samples, const Topology& topology,
                                 double gammaIfUnknown) {
    std::set<double> sizes;
    for (const CollectiveSample& s : samples) sizes.insert(s.bytes);
    if (sizes.size() < 2) return Status::error("fitting α, β, γ needs all-reduces of at least two sizes");
    // Normal equations of the least-squares fit, each sample weighted by 1/t so that small and large messages
    // count alike (relative error).
    std::array<std::array<double, 3>, 3> ata{};
    std::array<double, 3> atb{};
    for (const CollectiveSample& s : samples) {
        const Coefficients c = coefficients(s.algorithm, s.ranks, topology);
        const double w = s.ns > 0 ? 1.0 / s.ns : 1.0;
        const std::array<double, 3> row{c.alpha * w, c.beta * s.bytes * w, c.gamma * s.bytes * w};
        for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j) ata[i][j] += row[i] * row[j];
            atb[i] += row[i] * s.ns * w;
        }
    }
    std::array<double, 3> x{};
    LinkParams fitted;
    if (solve3(ata, atb, x) && x[2] >= 0) {
        fitted = {x[0], x[1], x[2]};
    } else {
        // β and γ inseparable: fix γ and fit α, β on what remains.
        for (int i = 0; i < 2; ++i) atb[i] -= ata[i][2] * gammaIfUnknown;
        const double det = ata[0][0] * ata[1][1] - ata[0][1] * ata[1][0];
        if (std::abs(det) < 1e-300) return Status::error("the samples do not determine α and β");
        fitted = {(atb[0] * ata[1][1] - atb[1] * ata[0][1]) / det, (ata[0][0] * atb[1] - ata[1][0] * atb[0]) / det,
                  gammaIfUnknown};
    }
    if (fitted.alpha_ns < 0 || fitted.beta_ns_per_byte < 0)
        return Status::error("the fitted α or β came out negative: the samples do not follow the model");
    return fitted;
}

LinkParams emulatedLink(double gbps, double latencyUs, double gamma) {
    return {latencyUs * 1000.0, gbps > 0 ? 8.0 / gbps : 0.0, gamma};
}

}  // namespace pacer::engine
