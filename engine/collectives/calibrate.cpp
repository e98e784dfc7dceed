#include "engine/collectives/calibrate.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <vector>

namespace pacer::engine {

std::vector<std::size_t> calibrationSizes() { return {16 << 10, 256 << 10, 4 << 20}; }

Result<LinkParams> linkFromCalibration(const std::vector<CollectiveSample>& samples, const Topology& topology) {
    std::vector<CollectiveSample> modelled;
    std::map<Algorithm, std::vector<std::pair<double, double>>> points;
    for (const CollectiveSample& s : samples) {
        if (s.algorithm != Algorithm::Native) modelled.push_back(s);
        points[s.algorithm].emplace_back(s.bytes, s.ns);
    }
    auto fitted = fitLinkParams(modelled, topology);
    if (!fitted.ok()) return Status::error("calibrating the link: " + fitted.message());
    for (auto& [algorithm, p] : points) {
        std::sort(p.begin(), p.end());
        fitted->measured.push_back({algorithm, p});
    }
    return fitted;
}

Result<LinkParams> calibrateLinkParams(Transport& transport, const Topology& topology, int channel) {
    PointToPoint* p2p = transport.pointToPoint(channel);
    if (!p2p) return Status::error("this transport has no point-to-point layer to calibrate");
    const int n = transport.size();
    if (n == 1) return LinkParams{0, 0, 0};
    std::vector<Algorithm> algorithms = candidateAlgorithms(n, topology);
    algorithms.push_back(Algorithm::Native);  // the transport's own all-reduce, timed alike
    const std::vector<std::size_t> sizes = calibrationSizes();
    constexpr int kRepeats = 4;
    std::vector<float> data(sizes.back() / sizeof(float), 1.0f);
    std::vector<float> times;  // ns per collective, summed over ranks below
    // The fastest of a few after a warm-up: on a shared machine the others carry time spent descheduled. Sizes
    // interleave with algorithms, so that a slow spell of the machine falls on several algorithms, not one.
    for (std::size_t bytes : sizes)
        for (Algorithm a : algorithms) {
            const std::size_t count = bytes / sizeof(float);
            auto once = [&] {
                return a == Algorithm::Native ? transport.allreduceOn(channel, data.data(), count)
                                              : runAllreduce(a, *p2p, data.data(), count, {topology, 0});
            };
            PACER_RETURN_IF_ERROR(once());
            double best = 0;
            for (int i = 0; i < kRepeats; ++i) {
                const auto start = std::chrono::steady_clock::now();
                PACER_RETURN_IF_ERROR(once());
                const double ns =
                    std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
                best = i == 0 ? ns : std::min(best, ns);
            }
            times.push_back(static_cast<float>(best));
        }
    PACER_RETURN_IF_ERROR(transport.allreduceOn(channel, times.data(), times.size()));
    std::vector<CollectiveSample> samples;
    std::size_t i = 0;
    for (std::size_t bytes : sizes)
        for (Algorithm a : algorithms) samples.push_back({a, n, static_cast<double>(bytes), times[i++] / n});
    return linkFromCalibration(samples, topology);
}

}  // namespace pacer::engine
