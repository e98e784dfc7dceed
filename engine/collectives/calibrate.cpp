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
        modelled.push_back({t.algorithm, t.ranks, t.bytes, ns});
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
    // ns per call, [size][pair][candidate][native, candidate], summed over ranks below.
    std::vector<float> times;
    for (const auto& [bytes, pairs] : points) {
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
        for (Algorithm a : candidates) PACER_RETURN_IF_ERROR(once(a));
        for (int pair = 0; pair < pairs; ++pair)
            for (std::size_t c = 0; c < candidates.size(); ++c) {
                const Algorithm a = candidates[(c + pair) % candidates.size()];  // the candidates take turns
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
    for (const auto& [bytes, pairs] : points) {
        const std::size_t first = timings.size();
        for (Algorithm a : candidates) timings.push_back({a, n, static_cast<double>(bytes), {}, {}});
        for (int pair = 0; pair < pairs; ++pair)
            for (std::size_t c = 0; c < candidates.size(); ++c) {
                PairedTimes& t = timings[first + (c + pair) % candidates.size()];
                t.nativeNs.push_back(times[i++] / n);
                t.algorithmNs.push_back(times[i++] / n);
            }
    }
    return linkFromCalibration(timings, topology);
}

}  // namespace pacer::engine
