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
    // The fastest of a few after a warm-up: on a shared machine the others carry time spent descheduled.
    auto fastest = [&](auto&& once) -> Status {
        PACER_RETURN_IF_ERROR(once());
        double best = 0;
        for (int i = 0; i < kRepeats; ++i) {
            const auto start = std::chrono::steady_clock::now();
            PACER_RETURN_IF_ERROR(once());
            const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
            best = i == 0 ? ns : std::min(best, ns);
        }
        times.push_back(static_cast<float>(best));
        return Status::success();
    };
    for (Algorithm a : algorithms)
        for (std::size_t count : counts)
            PACER_RETURN_IF_ERROR(fastest([&] { return runAllreduce(a, *p2p, data.data(), count, {topology, 0}); }));
    // The transport's own all-reduce at the same sizes: auto keeps it where it is the fastest.
    for (std::size_t count : counts)
        PACER_RETURN_IF_ERROR(fastest([&] { return transport.allreduceOn(channel, data.data(), count); }));
    PACER_RETURN_IF_ERROR(transport.allreduceOn(channel, times.data(), times.size()));
    for (float& t : times) t /= static_cast<float>(n);
    std::vector<CollectiveSample> samples;
    std::size_t i = 0;
    for (Algorithm a : algorithms)
        for (std::size_t count : counts)
            samples.push_back({a, n, static_cast<double>(count * sizeof(float)), times[i++]});
    auto fitted = fitLinkParams(samples, topology);
    if (!fitted.ok()) return Status::error("calibrating the link: " + fitted.message());
    // Native's line through its two sizes (never negative: a noisy small size may come out slower).
    const double small = times[i], large = times[i + 1];
    const double bytesApart = static_cast<double>((counts[1] - counts[0]) * sizeof(float));
    fitted->native_ns_per_byte = std::max(0.0, (large - small) / bytesApart);
    fitted->native_alpha_ns = std::max(0.0, small - fitted->native_ns_per_byte * counts[0] * sizeof(float));
    return fitted;
}

}  // namespace pacer::engine
