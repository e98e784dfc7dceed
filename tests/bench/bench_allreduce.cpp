// bench_allreduce: the engine's segmented all-reduce vs one monolithic gloo::allreduce of the same bytes, in
// the same run, 2 and 4 ranks as threads over TCP loopback, with 1 and 4 channels (segments in flight at once).
// Prints nccl-tests style columns and the ratio of bus bandwidths (goal: >= 0.95 at segments >= 1 MiB).
// --quick: 2 ranks, 4 KiB..1 MiB, 1 and 2 channels, a few iterations (the wrong-element check still counts).
//
//   bench_allreduce [--quick] [--ranks 2,4] [--channels 1,4] [--sizes 4KiB:256MiB] [--segment-bytes 1MiB]
//                   [--algorithm plan|dynamic] [--iterations K] [--link-gbps G]
#include "engine/bench/allreduce_bench.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace pacer::engine;

namespace {

bool parseSize(const std::string& text, std::size_t& out) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    const std::string unit = end;
    double scale = 1;
    if (unit == "KiB") scale = 1024;
    else if (unit == "MiB") scale = 1024.0 * 1024;
    else if (unit == "GiB") scale = 1024.0 * 1024 * 1024;
    else if (!unit.empty() && unit != "B") return false;
    if (end == text.c_str() || v <= 0) return false;
    out = static_cast<std::size_t>(v * scale);
    return true;
}

int usage(const char* why) {
    std::fprintf(stderr, "bench_allreduce: error: %s\n", why);
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    AllreduceBenchOptions base;
    std::vector<int> rankCounts{2, 4};
    std::vector<int> channelCounts{1, 4};
    bool quick = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool hasValue = i + 1 < argc;
        if (arg == "--quick") {
            quick = true;
        } else if (arg == "--ranks" && hasValue) {
            rankCounts.clear();
            for (char* tok = std::strtok(argv[++i], ","); tok; tok = std::strtok(nullptr, ",")) rankCounts.push_back(std::atoi(tok));
        } else if (arg == "--channels" && hasValue) {
            channelCounts.clear();
            for (char* tok = std::strtok(argv[++i], ","); tok; tok = std::strtok(nullptr, ",")) channelCounts.push_back(std::atoi(tok));
        } else if (arg == "--sizes" && hasValue) {
            const std::string v = argv[++i];
            const auto colon = v.find(':');
            if (colon == std::string::npos || !parseSize(v.substr(0, colon), base.min_bytes) ||
                !parseSize(v.substr(colon + 1), base.max_bytes))
                return usage("--sizes wants MIN:MAX, e.g. 4KiB:256MiB");
        } else if (arg == "--segment-bytes" && hasValue) {
            if (!parseSize(argv[++i], base.segment_bytes)) return usage("bad --segment-bytes");
        } else if (arg == "--algorithm" && hasValue) {
            base.algorithm = argv[++i];
        } else if (arg == "--iterations" && hasValue) {
            base.iterations = std::atoi(argv[++i]);
        } else if (arg == "--link-gbps" && hasValue) {
            base.link_gbps = std::atof(argv[++i]);
        } else {
            return usage(("unknown argument " + arg).c_str());
        }
    }
    if (quick) {
        rankCounts = {2};
        channelCounts = {1, 2};
        base.min_bytes = 4 << 10;
        base.max_bytes = 1 << 20;
        base.segment_bytes = 256 << 10;
        base.iterations = 3;
        base.warmup = 1;
    }
    std::size_t totalWrong = 0;
    for (int ranks : rankCounts)
    for (int channels : channelCounts) {
        AllreduceBenchOptions o = base;
        o.ranks = ranks;
        o.channels = channels;
        auto rows = runAllreduceBench(o);
        if (!rows.ok()) {
            std::fprintf(stderr, "bench_allreduce: error: %s\n", rows.message().c_str());
            return 1;
        }
        std::printf("# all-reduce, %d ranks (threads, Gloo TCP loopback), segments of %zu B, %d channel(s), algorithm %s, "
                    "%d iterations\n", ranks, o.segment_bytes, channels, o.algorithm.c_str(), o.iterations);
        std::printf("%12s %12s %10s %10s %7s %14s %12s %8s\n", "bytes", "time_us", "algbw", "busbw", "wrong",
                    "gloo_time_us", "gloo_busbw", "ratio");
        double worstLarge = 1e9;
        for (const auto& r : *rows) {
            const double ratio = r.gloo_busbw > 0 ? r.busbw / r.gloo_busbw : 0;
            if (r.bytes >= o.segment_bytes && o.segment_bytes >= (1u << 20)) worstLarge = std::min(worstLarge, ratio);
            std::printf("%12zu %12.1f %10.3f %10.3f %7zu %14.1f %12.3f %8.3f\n", r.bytes, r.time_us, r.algbw, r.busbw,
                        r.wrong, r.gloo_time_us, r.gloo_busbw, ratio);
            totalWrong += r.wrong;
        }
        if (worstLarge < 1e9)
            std::printf("# worst busbw ratio (engine / gloo) for sizes >= one 1 MiB+ segment: %.3f (goal >= 0.95)\n", worstLarge);
    }
    if (totalWrong > 0) {
        std::fprintf(stderr, "bench_allreduce: %zu wrong elements\n", totalWrong);
        return 1;
    }
    return 0;
}
