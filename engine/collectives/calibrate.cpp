#include "engine/collectives/calibrate.h"

#include "engine/median_interval.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <vector>

namespace pacer::engine {

namespace {

// One timed pair of calls: a candidate's and native's, which first.
struct Pair {
    Algorithm algorithm;
    bool nativeFirst;
};

// The bytes an all-reduce moves on its critical path, by the formulas (their cost with 1 ns per byte, nothing else).
double criticalPathBytes(Algorithm algorithm, int ranks, const Topology& topology, double bytes) {
    return allreduceCostNs(algorithm, ranks, topology, bytes, LinkParams{0, 1, 0});
}

// Each pair's speed-up: native's time over the candidate's.
std::vector<double> speedupsOf(const PairedTimes& t) {
    std::vector<double> speedups;
    for (std::size_t i = 0; i < t.nativeNs.size() && i < t.algorithmNs.size(); ++i)
        speedups.push_back(t.algorithmNs[i] > 0 ? t.nativeNs[i] / t.algorithmNs[i] : 0);
    return speedups;
}

}  // namespace

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
        const MedianInterval s = medianInterval(speedupsOf(t));
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

Algorithm unsettledLead(std::span<const PairedTimes> atLargestPoint) {
    Algorithm unsettled = Algorithm::Native;
    double best = 1;
    for (const PairedTimes& t : atLargestPoint) {
        if (t.derived) continue;
        const MedianInterval s = medianInterval(speedupsOf(t));
        if (!s.known()) continue;
        if (s.low > 1) return Algorithm::Native;  // one is settled ahead: the choice has what it needs
        if (s.median > best) {
            best = s.median;
            unsettled = t.algorithm;
        }
    }
    return unsettled;
}

namespace {

// Times pairs of calls at one size on every rank, one next to the other, and gathers them: ns per call, [pair]
// [native, candidate], averaged over the ranks (one all-reduce), so that every rank holds the same numbers and makes
// the same choices.
class PairTimer {
public:
    PairTimer(Transport& transport, PointToPoint& p2p, const Topology& topology, int channel, float* data)
        : transport_(transport), p2p_(p2p), topology_(topology), channel_(channel), data_(data) {}

    Status once(Algorithm a, std::size_t count) {
        return a == Algorithm::Native ? transport_.allreduceOn(channel_, data_, count)
                                      : runAllreduce(a, p2p_, data_, count, {topology_, 0});
    }

    Result<std::vector<float>> time(const std::vector<Pair>& pairs, std::size_t count) {
        std::vector<float> times;
        for (const Pair& p : pairs) {
            float nativeNs = 0, algorithmNs = 0;
            if (p.nativeFirst) {
                PACER_RETURN_IF_ERROR(timed(Algorithm::Native, count, nativeNs));
                PACER_RETURN_IF_ERROR(timed(p.algorithm, count, algorithmNs));
            } else {
                PACER_RETURN_IF_ERROR(timed(p.algorithm, count, algorithmNs));
                PACER_RETURN_IF_ERROR(timed(Algorithm::Native, count, nativeNs));
            }
            times.push_back(nativeNs);
            times.push_back(algorithmNs);
        }
        PACER_RETURN_IF_ERROR(transport_.allreduceOn(channel_, times.data(), times.size()));
        for (float& t : times) t /= static_cast<float>(transport_.size());
        return times;
    }

private:
    Status timed(Algorithm a, std::size_t count, float& ns) {
        const auto start = std::chrono::steady_clock::now();
        PACER_RETURN_IF_ERROR(once(a, count));
        ns = std::chrono::duration<float, std::nano>(std::chrono::steady_clock::now() - start).count();
        return Status::success();
    }

    Transport& transport_;
    PointToPoint& p2p_;
    const Topology& topology_;
    const int channel_;
    float* const data_;
};

// Pairs of `candidate` against native, which side first alternating by pair (from native).
std::vector<Pair> pairsOf(Algorithm candidate, int pairs) {
    std::vector<Pair> out;
    for (int pair = 0; pair < pairs; ++pair) out.push_back({candidate, pair % 2 == 0});
    return out;
}

}  // namespace

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
    // The calls reduce a buffer in the transport's memory space: on a GPU transport device memory (NCCL's
    // point-to-point layer takes nothing else, and its all-reduce would stage a host buffer through the device, which
    // calibration would then time as native's cost). Its values do not matter; the times only go through the host.
    std::vector<float> host;
    float* data = nullptr;
    if (transport.deviceMemory()) {
        Result<float*> device = transport.scratch(largest / sizeof(float), channel);
        if (!device.ok()) return Status::error("calibrating the link: " + device.status().message());
        data = device.value();
    } else {
        host.assign(largest / sizeof(float), 1.0f);
        data = host.data();
    }
    PairTimer timer(transport, *p2p, topology, channel, data);
    std::vector<PairedTimes> timings;
    for (const CalibrationPoint& point : points) {
        const std::size_t count = point.bytes / sizeof(float);
        const double bytes = static_cast<double>(point.bytes);
        // The candidates timed here and the pairs each gets: at the largest point the bandwidth-optimal ones, with
        // the pairs of those left out (the same calls in all).
        const std::vector<Algorithm> here =
            point.bytes < largest ? candidates : timedAtLargestPoint(n, topology, bytes);
        const int pairs = point.pairs * static_cast<int>(candidates.size()) / static_cast<int>(here.size());
        const std::size_t first = timings.size();
        for (Algorithm a : here) timings.push_back({a, n, bytes, {}, {}});
        auto timingsOf = [&](Algorithm a) -> PairedTimes& {
            return timings[first + static_cast<std::size_t>(std::find(here.begin(), here.end(), a) - here.begin())];
        };
        auto timePairs = [&](const std::vector<Pair>& order) -> Status {
            Result<std::vector<float>> times = timer.time(order, count);
            if (!times.ok()) return times.status();
            for (std::size_t k = 0; k < order.size(); ++k) {
                PairedTimes& t = timingsOf(order[k].algorithm);
                t.nativeNs.push_back(times.value()[2 * k]);
                t.algorithmNs.push_back(times.value()[2 * k + 1]);
            }
            return Status::success();
        };
        PACER_RETURN_IF_ERROR(timer.once(Algorithm::Native, count));  // warm-ups: each side's buffers exist first
        for (Algorithm a : here) PACER_RETURN_IF_ERROR(timer.once(a, count));
        std::vector<Pair> order;  // the candidates take turns; which side first alternates by pair
        for (int pair = 0; pair < pairs; ++pair)
            for (std::size_t c = 0; c < here.size(); ++c)
                order.push_back({here[(c + static_cast<std::size_t>(pair)) % here.size()], pair % 2 == 0});
        PACER_RETURN_IF_ERROR(timePairs(order));
        for (int look = 1; point.bytes == largest && look < kLooksAtLargestPoint; ++look) {
            const Algorithm unsettled = unsettledLead(std::span(timings).subspan(first));
            if (unsettled == Algorithm::Native) break;
            PACER_RETURN_IF_ERROR(timePairs(pairsOf(unsettled, pairs)));
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
