#include "engine/collectives/calibrate.h"

#include "engine/median_interval.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <vector>

namespace pacer::engine {

std::vector<CalibrationPoint> calibrationPoints() {
    return {{16 << 10}, {256 << 10}, {1 << 20}, {4 << 20}, {32 << 20, kLargestPointPairs}};
}

Result<LinkParams> linkFromCalibration(const std::vector<PairedTimes>& timings, const Topology& topology) {
    // Native's median at each size, over every call it made there (with every candidate).
    std::map<double, std::vector<double>> nativeCalls;
    for (const PairedTimes& t : timings) {
        if (t.nativeNs.size() != t.algorithmNs.size() || t.nativeNs.empty())
            return Status::error("calibrating the link: " + algorithmName(t.algorithm) + " has unpaired timings");
        if (t.derived) continue;  // its native calls are another candidate's
        auto& calls = nativeCalls[t.bytes];
        calls.insert(calls.end(), t.nativeNs.begin(), t.nativeNs.end());
    }
    std::map<double, double> nativeNs;
    for (const auto& [bytes, calls] : nativeCalls) nativeNs[bytes] = medianInterval(calls).median;

    std::vector<CollectiveSample> modelled;
    std::map<Algorithm, std::vector<std::pair<double, double>>> points, upper;
    for (const auto& [bytes, ns] : nativeNs) points[Algorithm::Native].emplace_back(bytes, ns);
    for (const PairedTimes& t : timings) {
        std::vector<double> speedups;
        for (std::size_t i = 0; i < t.nativeNs.size(); ++i)
            speedups.push_back(t.algorithmNs[i] > 0 ? t.nativeNs[i] / t.algorithmNs[i] : 0);
        const MedianInterval s = medianInterval(speedups);
        const double native = nativeNs[t.bytes];
        const double ns = s.median > 0 ? native / s.median : native;
        // Too few pairs for an interval: nothing shows it faster than native, so it may be as slow.
        const double slowest = s.known() && s.low > 0 ? native / s.low : std::max(ns, native);
        points[t.algorithm].emplace_back(t.bytes, ns);
        upper[t.algorithm].emplace_back(t.bytes, slowest);
        if (!t.derived) modelled.push_back({t.algorithm, t.ranks, t.bytes, ns});
    }
    auto fitted = fitLinkParams(modelled, topology);
    if (!fitted.ok()) return Status::error("calibrating the link: " + fitted.message());
    for (auto& [algorithm, p] : points) {
        std::vector<std::pair<double, double>>& u = upper[algorithm];
        std::sort(p.begin(), p.end());
        std::sort(u.begin(), u.end());
        fitted->measured.push_back({algorithm, p, u});
    }
    return fitted;
}

namespace {

// The bytes an all-reduce moves on its critical path, by the formulas (their cost with 1 ns per byte, nothing else).
double criticalPathBytes(Algorithm algorithm, int ranks, const Topology& topology, double bytes) {
    return allreduceCostNs(algorithm, ranks, topology, bytes, LinkParams{0, 1, 0});
}

}  // namespace

std::vector<Algorithm> timedAtLargestPoint(int ranks, const Topology& topology, double bytes) {
    const std::vector<Algorithm> candidates = candidateAlgorithms(ranks, topology);
    if (bytes < static_cast<double>(kBandwidthBoundBytes)) return candidates;
    std::vector<double> costs;
    for (Algorithm a : candidates) costs.push_back(criticalPathBytes(a, ranks, topology, bytes));
    const double least = *std::min_element(costs.begin(), costs.end());
    std::vector<Algorithm> kept;
    for (std::size_t c = 0; c < candidates.size(); ++c)
        if (costs[c] <= kLargestPointReach * least) kept.push_back(candidates[c]);
    return kept;
}

Result<LinkParams> calibrateLinkParams(Transport& transport, const Topology& topology, int channel,
                                       const std::vector<CalibrationPoint>& points) {
    PointToPoint* p2p = transport.pointToPoint(channel);
    if (!p2p) return Status::error("this transport has no point-to-point layer to calibrate");
    const int n = transport.size();
    if (n == 1) return LinkParams{0, 0, 0};
    const std::vector<Algorithm> candidates = candidateAlgorithms(n, topology);
    if (points.empty()) return Status::error("calibrating the link needs at least one size");
    std::size_t largest = 0;
    for (const CalibrationPoint& p : points) {
        if (p.pairs < 1 || p.bytes < sizeof(float)) return Status::error("calibrating the link: a size without pairs or bytes");
        largest = std::max(largest, p.bytes);
    }
    std::vector<float> data(largest / sizeof(float), 1.0f);
    // Per point, the candidates timed there and the pairs each gets: at the largest point the bandwidth-optimal
    // ones, with the pairs of those left out (the same calls in all).
    std::vector<std::pair<std::vector<Algorithm>, int>> plans;
    for (const CalibrationPoint& p : points) {
        if (p.bytes < largest) {
            plans.emplace_back(candidates, p.pairs);
            continue;
        }
        std::vector<Algorithm> kept = timedAtLargestPoint(n, topology, static_cast<double>(p.bytes));
        const int pairs = p.pairs * static_cast<int>(candidates.size()) / static_cast<int>(kept.size());
        plans.emplace_back(std::move(kept), pairs);
    }
    // ns per call, [size][pair][candidate][native, candidate], summed over ranks below.
    std::vector<float> times;
    for (std::size_t k = 0; k < points.size(); ++k) {
        const auto& [here, pairs] = plans[k];
        const std::size_t bytes = points[k].bytes;
        const std::size_t count = bytes / sizeof(float);
        auto once = [&](Algorithm a) {
            return a == Algorithm::Native ? transport.allreduceOn(channel, data.data(), count)
                                          : runAllreduce(a, *p2p, data.data(), count, {topology, 0});
        };
        auto timed = [&](Algorithm a, float& ns) -> Status {
            const auto start = std::chrono::steady_clock::now();
            PACER_RETURN_IF_ERROR(once(a));
            ns = std::chrono::duration<float, std::nano>(std::chrono::steady_clock::now() - start).count();
            return Status::success();
        };
        PACER_RETURN_IF_ERROR(once(Algorithm::Native));  // warm-ups: each side's buffers exist before timing
        for (Algorithm a : here) PACER_RETURN_IF_ERROR(once(a));
        for (int pair = 0; pair < pairs; ++pair)
            for (std::size_t c = 0; c < here.size(); ++c) {
                const Algorithm a = here[(c + pair) % here.size()];  // the candidates take turns
                float nativeNs = 0, algorithmNs = 0;
                if (pair % 2 == 0) {
                    PACER_RETURN_IF_ERROR(timed(Algorithm::Native, nativeNs));
                    PACER_RETURN_IF_ERROR(timed(a, algorithmNs));
                } else {
                    PACER_RETURN_IF_ERROR(timed(a, algorithmNs));
                    PACER_RETURN_IF_ERROR(timed(Algorithm::Native, nativeNs));
                }
                times.push_back(nativeNs);
                times.push_back(algorithmNs);
            }
    }
    PACER_RETURN_IF_ERROR(transport.allreduceOn(channel, times.data(), times.size()));
    std::vector<PairedTimes> timings;
    std::size_t i = 0;
    for (std::size_t k = 0; k < points.size(); ++k) {
        const auto& [here, pairs] = plans[k];
        const double bytes = static_cast<double>(points[k].bytes);
        const std::size_t first = timings.size();
        for (Algorithm a : here) timings.push_back({a, n, bytes, {}, {}});
        for (int pair = 0; pair < pairs; ++pair)
            for (std::size_t c = 0; c < here.size(); ++c) {
                PairedTimes& t = timings[first + (c + pair) % here.size()];
                t.nativeNs.push_back(times[i++] / n);
                t.algorithmNs.push_back(times[i++] / n);
            }
        // A candidate left out here moves more bytes than the first one timed, by the formulas: its times are that
        // one's scaled by the ratio of the two (extrapolated from its last point instead, it came out at no cost at
        // all where its fit had no slope, and was chosen).
        const PairedTimes reference = timings[first];
        for (Algorithm a : candidates) {
            if (std::find(here.begin(), here.end(), a) != here.end()) continue;
            const double ratio = criticalPathBytes(a, n, topology, bytes) /
                                 criticalPathBytes(reference.algorithm, n, topology, bytes);
            PairedTimes scaled = reference;
            scaled.algorithm = a;
            scaled.derived = true;
            for (double& ns : scaled.algorithmNs) ns *= ratio;
            timings.push_back(std::move(scaled));
        }
    }
    return linkFromCalibration(timings, topology);
}

}  // namespace pacer::engine
