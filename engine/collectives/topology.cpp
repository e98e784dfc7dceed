#include "engine/collectives/topology.h"

#include <algorithm>
#include <charconv>
#include <functional>
#include <limits>

namespace pacer::engine {

int Topology::ranks() const {
    if (kind != Kind::Torus) return 0;
    int n = 1;
    for (int d : dims) n *= d;
    return n;
}

std::vector<int> Topology::coordinates(int rank) const {
    std::vector<int> c(dims.size());
    for (std::size_t d = 0; d < dims.size(); ++d) {
        c[d] = rank % dims[d];
        rank /= dims[d];
    }
    return c;
}

int Topology::rankAt(const std::vector<int>& c) const {
    int rank = 0;
    for (std::size_t d = dims.size(); d-- > 0;) rank = rank * dims[d] + c[d];
    return rank;
}

int Topology::neighbor(int rank, int dim, int dir) const {
    std::vector<int> c = coordinates(rank);
    const int k = dims[dim];
    c[dim] = ((c[dim] + dir) % k + k) % k;
    return rankAt(c);
}

int Topology::portTowards(int rank, int peer) const {
    if (kind != Kind::Torus) return 0;
    const std::vector<int> a = coordinates(rank), b = coordinates(peer);
    for (std::size_t d = 0; d < dims.size(); ++d) {
        if (a[d] == b[d]) continue;
        const int forward = ((b[d] - a[d]) % dims[d] + dims[d]) % dims[d];
        return portOf(static_cast<int>(d), forward <= dims[d] - forward ? +1 : -1);
    }
    return 0;
}

std::string Topology::describe() const {
    switch (kind) {
    case Kind::Flat: return "flat";
    case Kind::Ring: return "ring";
    case Kind::Torus: break;
    }
    std::string s = "torus ";
    for (std::size_t d = 0; d < dims.size(); ++d) {
        if (d > 0) s += 'x';
        s += std::to_string(dims[d]);
    }
    return s;
}

Status validate(const Topology& t, int ranks) {
    if (t.kind != Topology::Kind::Torus) return Status::success();
    if (t.dims.empty() || t.dims.size() > 8) return Status::error("a torus needs 1 to 8 dimensions");
    // The product is checked as it grows: dimensions up to 2^20 each would overflow ranks()' int (and could wrap
    // onto the rank count).
    long long product = 1;
    for (int d : t.dims) {
        if (d < 1) return Status::error("torus dimensions must be at least 1, got " + std::to_string(d));
        product *= d;
        if (product > std::numeric_limits<int>::max())
            return Status::error("a " + t.describe() + " holds more than " + std::to_string(std::numeric_limits<int>::max()) +
                                 " ranks");
    }
    if (product != ranks)
        return Status::error("a " + t.describe() + " holds " + std::to_string(t.ranks()) + " ranks, not " +
                             std::to_string(ranks));
    return Status::success();
}

Result<Topology> parseTopology(const std::string& text, int ranks) {
    if (text == "flat") return Topology::flat();
    if (text == "ring") return Topology::ring();
    if (text == "torus") return balancedTorus(ranks);
    if (text.rfind("torus:", 0) == 0) {
        Topology t = Topology::torus({});
        // Digits only, every part present: "torus:2x", "torus:+2x2" or "torus: 4" are refused, never read as a
        // nearby shape.
        const std::string dims = text.substr(6);
        for (std::size_t at = 0;;) {
            const std::size_t x = std::min(dims.find('x', at), dims.size());
            const std::string part = dims.substr(at, x - at);
            int v = 0;
            auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
            if (part.empty() || ec != std::errc() || ptr != part.data() + part.size() || v < 1 || v > 1 << 20)
                return Status::error("bad torus dimension '" + part + "' in '" + text + "' (expected e.g. torus:4x4x2)");
            t.dims.push_back(v);
            if (x == dims.size()) break;
            at = x + 1;
        }
        PACER_RETURN_IF_ERROR(validate(t, ranks));
        return t;
    }
    return Status::error("unknown topology '" + text + "' (known: flat, ring, torus, torus:XxYxZ)");
}

Topology balancedTorus(int ranks, int dimensions) {
    // Every factorization into `dimensions` factors, d1 >= d2 >= ...: the one with the smallest largest factor wins,
    // then the smallest sum (the torus all-reduce pays one latency per step, sum(k - 1) steps). Rank counts are
    // small enough (≤ millions, few divisors) for a plain search.
    std::vector<int> best, current;
    int bestMax = ranks + 1, bestSum = 0;
    std::function<void(int, int, int)> go = [&](int rest, int left, int cap) {
        if (left == 1) {
            if (rest > cap) return;
            current.push_back(rest);
            int mx = 0, sum = 0;
            for (int v : current) mx = std::max(mx, v), sum += v;
            if (mx < bestMax || (mx == bestMax && sum < bestSum)) best = current, bestMax = mx, bestSum = sum;
            current.pop_back();
            return;
        }
        for (int f = std::min(cap, rest); f >= 1; --f) {
            if (rest % f) continue;
            current.push_back(f);
            go(rest / f, left - 1, f);
            current.pop_back();
        }
    };
    go(std::max(ranks, 1), std::max(dimensions, 1), std::max(ranks, 1));
    Topology t = Topology::torus({});
    for (int v : best)
        if (v > 1) t.dims.push_back(v);
    if (t.dims.empty()) t.dims.push_back(1);
    return t;
}

}  // namespace pacer::engine
