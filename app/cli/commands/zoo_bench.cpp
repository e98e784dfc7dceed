// pacer-cli zoo / bench: the model-zoo profiles, and the all-reduce benchmark (nccl-tests style).
#include "app/cli/commands/commands.h"
#include "app/cli/commands/replay_source.h"
#include "engine/bench/allreduce_bench.h"
#include "engine/replay/zoo.h"

#include <cstdio>

namespace pacer::cli {

int runZoo(const Args& args) {
    if (args.positionals() != std::vector<std::string>{"list"}) throw usageError("usage: pacer-cli zoo list [--json]");
    nlohmann::json list = nlohmann::json::array();
    for (const std::string& name : engine::zooNames(zooDirs())) {
        auto w = engine::loadProfile(name, 0, zooDirs());
        if (!w.ok()) throw usageError(w.status().message());
        std::size_t params = 0;
        for (const engine::TensorInfo& t : w.value().tensors) params += t.elements;
        list.push_back({{"name", name}, {"tensors", w.value().tensors.size()}, {"parameters", params},
                        {"layers", w.value().layers.size()}});
    }
    if (args.flag("json")) {
        printJson({{"models", list}});
        return 0;
    }
    std::printf("%-16s %8s %14s %8s\n", "model", "tensors", "parameters", "layers");
    for (const auto& m : list)
        std::printf("%-16s %8zu %14zu %8zu\n", m["name"].get<std::string>().c_str(), m["tensors"].get<std::size_t>(),
                    m["parameters"].get<std::size_t>(), m["layers"].get<std::size_t>());
    return 0;
}

int runBench(const Args& args) {
    if (args.positionals() != std::vector<std::string>{"allreduce"})
        throw usageError("usage: pacer-cli bench allreduce [--algorithm A] [--ranks N] [--sizes MIN:MAX] ...");
    engine::AllreduceBenchOptions o;
    if (auto a = args.value("algorithm")) o.algorithm = *a;
    if (auto r = args.integer("ranks", 1, 64)) o.ranks = *r;
    if (auto s = args.sizeRange("sizes")) std::tie(o.min_bytes, o.max_bytes) = *s;
    if (auto s = args.size("segment-bytes")) o.segment_bytes = static_cast<std::size_t>(*s);
    if (auto k = args.integer("iterations", 1, 100000)) o.iterations = *k;
    if (auto k = args.integer("rounds", 1, 1000)) o.rounds = *k;
    if (auto s = args.number("seconds", 0, 3600)) o.min_round_seconds = *s;
    if (auto c = args.integer("channels", 1, 16)) o.channels = *c;
    if (auto t = args.value("topology")) o.topology = *t;
    if (auto g = args.number("link-gbps", 0, 10000)) o.link_gbps = *g;
    if (auto l = args.number("link-latency-us", 0, 1e6)) o.link_latency_us = *l;
    if (auto t = args.value("transport")) o.transport = *t;
    auto rows = engine::runAllreduceBench(o);
    if (!rows.ok()) throw usageError(rows.status().message());
    if (args.flag("json")) {
        nlohmann::json list = nlohmann::json::array();
        for (const auto& r : rows.value())
            // busbw/gloo_busbw and the *_gbs names carry the same GB/s (the latter kept for older scripts). The
            // baseline is the transport's own all-reduce: native_* always, gloo_* where that is gloo::allreduce.
            // ratio_low/high: the 95% interval of the pairs' median ratio (null under 6 pairs).
            list.push_back({{"bytes", r.bytes}, {"algorithm", r.ran}, {"time_us", r.time_us}, {"algbw_gbs", r.algbw},
                            {"busbw", r.busbw}, {"busbw_gbs", r.busbw}, {"wrong", r.wrong},
                            {"native_time_us", r.gloo_time_us}, {"native_busbw", r.gloo_busbw},
                            {"ratio_vs_native", r.ratio.median}, {"pairs", r.ratio.count},
                            {"ratio_low", r.ratio.known() ? nlohmann::json(r.ratio.low) : nlohmann::json()},
                            {"ratio_high", r.ratio.known() ? nlohmann::json(r.ratio.high) : nlohmann::json()},
                            {"pair_ratios", r.pair_ratios}});
        if (o.transport == "gloo")
            for (nlohmann::json& row : list) {
                row["gloo_time_us"] = row["native_time_us"];
                row["gloo_busbw"] = row["gloo_busbw_gbs"] = row["native_busbw"];
                row["ratio_vs_gloo"] = row["ratio_vs_native"];
            }
        printJson({{"algorithm", o.algorithm}, {"topology", o.topology.empty() ? "default" : o.topology},
                   {"ranks", o.ranks}, {"channels", o.channels}, {"transport", o.transport}, {"rows", list}});
        return 0;
    }
    const std::string native = o.transport == "shm" ? "shm" : "gloo";  // the baseline's column names
    std::printf("# all-reduce, %d ranks, algorithm %s, %d channel(s), float32 sum, over %s; the transport's own "
                "all-reduce in pairs of calls with the algorithm's (which first a coin per pair) in the same run, %d "
                "round(s) over all sizes; medians; ratio = median of the pairs' ratios, [95%% interval] from order "
                "statistics (none under 6 pairs)\n",
                o.ranks, o.algorithm.c_str(), o.channels, o.transport.c_str(), o.rounds);
    std::printf("%12s %-18s %12s %10s %10s %7s %14s %12s %6s %8s %13s\n", "size(B)", "ran", "time(us)", "algbw",
                "busbw", "#wrong", (native + " time(us)").c_str(), (native + " busbw").c_str(), "pairs", "ratio",
                "[interval]");
    for (const auto& r : rows.value())
        std::printf("%12zu %-18s %12.1f %10.3f %10.3f %7zu %14.1f %12.3f %6zu %8.3f  [%.2f..%.2f]\n",
                    static_cast<std::size_t>(r.bytes), r.ran.c_str(), r.time_us, r.algbw, r.busbw,
                    static_cast<std::size_t>(r.wrong), r.gloo_time_us, r.gloo_busbw, r.ratio.count, r.ratio.median,
                    r.ratio.low, r.ratio.high);
    return 0;
}

}  // namespace pacer::cli
