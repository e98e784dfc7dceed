#include "engine/collectives/calibrate.h"

#include <algorithm>
#include <chrono>
#include <vector>

namespace pacer::engine {

Result<LinkParams> calibrateLinkParams(Transport& transport, const Topology& topology, int channel) {
    PointToPoint* p2p = transport.pointToPoint(channel);
    if (!p2p) return Status::error("this transport has no point-to-point layer to calibrate");
    const int n = transport.size();
    if (n == 1) return LinkParams{0, 0, 0};
    const Algorithm algorithms[] = {Algorithm::Ring, Algorithm::RecursiveDoubling, Algorithm::HalvingDoubling};
    const std::size_t counts[] = {4 << 10, 256 << 10};  // 16 KiB and 1 MiB
    constexpr int kRepeats = 4;
    std::vector<float> data(counts[1], 1.0f);
    std::vector<float> times;  // ns per collective, summed over ranks below
    for (Algorithm a : algorithms)
        for (std::size_t count : counts) {
            PACER_RETURN_IF_ERROR(runAllreduce(a, *p2p, data.data(), count, {topology, 0}));  // warm-up
            // The fastest of a few: on a shared machine the others carry time spent descheduled.
            double fastest = 0;
            for (int i = 0; i < kRepeats; ++i) {
                const auto start = std::chrono::steady_clock::now();
                PACER_RETURN_IF_ERROR(runAllreduce(a, *p2p, data.data(), count, {topology, 0}));
                const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
                fastest = i == 0 ? ns : std::min(fastest, ns);
            }
            times.push_back(static_cast<float>(fastest));
        }
    PACER_RETURN_IF_ERROR(transport.allreduceOn(channel, times.data(), times.size()));
    std::vector<CollectiveSample> samples;
    std::size_t i = 0;
    for (Algorithm a : algorithms)
        for (std::size_t count : counts)
            samples.push_back({a, n, static_cast<double>(count * sizeof(float)), times[i++] / n});
    auto fitted = fitLinkParams(samples, topology);
    if (!fitted.ok()) return Status::error("calibrating the link: " + fitted.message());
    return fitted;
}

}  // namespace pacer::engine
