#include "engine/bench/allreduce_bench.h"

#include "engine/collectives/algorithm_cost.h"
#include "engine/collectives/calibrate.h"
#include "engine/host_memory.h"
#include "engine/plan.h"
#include "engine/policy_config.h"
#include "engine/runtime.h"
#include "engine/transport/transport.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <new>
#include <optional>
#include <string>
#include <thread>

namespace pacer::engine {
namespace {

using Clock = std::chrono::steady_clock;

float checkValue(int rank, std::size_t i) { return static_cast<float>((rank + 1) * static_cast<int>(i % 13 + 1)); }

struct RankTimes {
    std::vector<double> engineUs, glooUs;  // every timed call, round after round, paired by index
    std::size_t wrong = 0;
    std::string ran;
};

bool isCollectiveAlgorithm(const std::string& name) { return name != "plan" && name != "dynamic"; }

Result<Topology> benchTopology(const AllreduceBenchOptions& o) {
    if (!o.topology.empty()) return parseTopology(o.topology, o.ranks);
    return o.algorithm == "torus" ? balancedTorus(o.ranks) : Topology::flat();
}

// What one rank runs as "the engine" for one size: the runtime (plan, dynamic) or a collective algorithm.
struct EngineSide {
    Algorithm algorithm = Algorithm::Native;  // Native: the runtime
    Topology topology;
    LinkParams link;  // auto's choice
};

// Which side of pair `index` at `bytes` runs first: a fixed pseudo-random coin (splitmix64), the same on every rank.
// Why not strict alternation (AB BA AB ...): it puts two calls of the same side next to each other at every pair
// boundary, so a slow spell over a boundary lowers (or raises) two neighbouring ratios at once; with a coin it lowers
// one and raises the other as often as it moves both the same way.
bool engineFirst(std::size_t bytes, std::size_t index) {
    std::uint64_t z = static_cast<std::uint64_t>(bytes) * 0x9E3779B97F4A7C15ull + index + 1;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return ((z ^ (z >> 31)) & 1) != 0;
}

// One rank's part for one size in one round (the exact-sum check in the first round only). Every rank runs the same
// sequence of collectives, so their loops stay in step; each timed all-reduce starts after an all-reduce of one float
// that acts as a barrier.
Status benchOneSize(Transport& transport, const AllreduceBenchOptions& o, const EngineSide& side, std::size_t bytes,
                    bool check, RankTimes& out) {
    const std::size_t count = bytes / sizeof(float);
    std::vector<float> data(count);
    float barrierValue = 0;
    auto barrier = [&] { return transport.allreduce(&barrierValue, 1); };

    // plan and dynamic: the runtime, with the segment size as its policy's.
    std::optional<Runtime> runtime;
    int iteration = 0;
    if (side.algorithm == Algorithm::Native) {
        std::vector<TensorInfo> tensors{TensorInfo{0, "bench", 0, count}};
        PolicyConfig config;
        config.name = "manual";
        config.segment_bytes = o.segment_bytes;
        auto policy = makePolicy(config, tensors);
        if (!policy.ok()) return policy.status();
        RuntimeOptions ro;
        ro.mode = o.algorithm == "dynamic" ? OrderMode::Dynamic : OrderMode::Plan;
        ro.channels = o.channels;
        if (ro.mode == OrderMode::Plan) {
            auto planner = makePolicy(config, tensors);
            auto plan = recordPlan(**planner, tensors);
            if (!plan.ok()) return plan.status();
            ro.plan = std::move(plan.value());
        }
        runtime.emplace(transport, std::move(policy.value()), tensors, std::vector<float*>{data.data()}, ro, nullptr);
    }
    const Algorithm chosen = side.algorithm == Algorithm::Auto
                                 ? chooseAlgorithm(transport.size(), side.topology, bytes, side.link)
                                 : side.algorithm;
    out.ran = side.algorithm == Algorithm::Native ? o.algorithm : algorithmName(chosen);
    // Both sides reduce the same buffer in place, whole: Gloo's ring cuts it into its own 1 MiB segments, the
    // algorithms into the point-to-point layer's pieces, the runtime into the policy's segments.
    auto engineOnce = [&]() -> Status {
        if (side.algorithm != Algorithm::Native && chosen == Algorithm::Native)  // auto kept the transport's own
            return transport.allreduce(data.data(), count);
        if (side.algorithm != Algorithm::Native)
            return runAllreduce(chosen, *transport.pointToPoint(0), data.data(), count, {side.topology, 0});
        PACER_RETURN_IF_ERROR(runtime->beginIteration(iteration++));
        runtime->gradientReady(0);
        return runtime->waitAll();
    };
    auto fill = [&] {
        for (std::size_t i = 0; i < count; ++i) data[i] = checkValue(transport.rank(), i);
    };
    auto countWrong = [&] {
        const int n = transport.size();
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < count; ++i) wrong += data[i] != checkValue(0, i) * static_cast<float>(n * (n + 1) / 2);
        return wrong;
    };

    if (check) {  // exact integer sums, both paths
        fill();
        PACER_RETURN_IF_ERROR(engineOnce());
        out.wrong = countWrong();
        fill();
        PACER_RETURN_IF_ERROR(transport.allreduce(data.data(), count));
        out.wrong += countWrong();
    }

    // Timed pairs: each engine all-reduce next to one of the transport's own, each timed on its own between
    // barriers, so that a load spike on the shared machine hits both sides alike; which side runs first is a coin
    // per pair (engineFirst). The warm-up pairs touch every buffer either side allocates (scratch,
    // pieces) before the timing, and time how long a pair takes here. The values grow as sums of sums; only the time
    // matters here.
    const auto warmupStart = Clock::now();
    for (int i = 0; i < o.warmup; ++i) {
        PACER_RETURN_IF_ERROR(engineOnce());
        PACER_RETURN_IF_ERROR(transport.allreduce(data.data(), count));
    }
    int pairs = o.iterations;
    if (o.min_round_seconds > 0 && o.warmup > 0) {
        // Every rank must run the same number of pairs: the ranks' estimates are averaged by an all-reduce.
        float pairSeconds = std::chrono::duration<float>(Clock::now() - warmupStart).count() / o.warmup;
        PACER_RETURN_IF_ERROR(transport.allreduce(&pairSeconds, 1));
        pairSeconds /= static_cast<float>(transport.size());
        const double affordable = pairSeconds > 0 ? o.min_round_seconds / pairSeconds : kMaxPairsPerRound;
        pairs = std::max(pairs, static_cast<int>(std::min<double>(affordable, kMaxPairsPerRound)));
    }
    auto timed = [&](auto&& once, std::vector<double>& us) -> Status {
        PACER_RETURN_IF_ERROR(barrier());
        const auto start = Clock::now();
        PACER_RETURN_IF_ERROR(once());
        us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
        return Status::success();
    };
    auto glooOnce = [&] { return transport.allreduce(data.data(), count); };
    for (int i = 0; i < pairs; ++i) {
        if (engineFirst(bytes, out.engineUs.size())) {
            PACER_RETURN_IF_ERROR(timed(engineOnce, out.engineUs));
            PACER_RETURN_IF_ERROR(timed(glooOnce, out.glooUs));
        } else {
            PACER_RETURN_IF_ERROR(timed(glooOnce, out.glooUs));
            PACER_RETURN_IF_ERROR(timed(engineOnce, out.engineUs));
        }
    }
    return Status::success();
}

}  // namespace

Judgement judgeRatio(const MedianInterval& ratio, double goal) {
    char text[96];
    if (!ratio.known()) {
        std::snprintf(text, sizeof text, "not judged (%zu pairs, fewer than %zu)", ratio.count,
                      medianIntervalMinCount(0.95));
        return {Verdict::NotJudged, text};
    }
    if (ratio.low >= goal) return {Verdict::Met, "met"};
    if (ratio.high < goal) return {Verdict::NotMet, "NOT met"};
    std::snprintf(text, sizeof text, "not judged (%.2f..%.2f holds %.2f)", ratio.low, ratio.high, goal);
    return {Verdict::NotJudged, text};
}

std::vector<AheadJudgement> judgeAheadWherePoor(const std::map<std::string, std::vector<AllreduceBenchRow>>& rows) {
    std::vector<AheadJudgement> out;
    const auto autoRows = rows.find("auto");
    if (autoRows == rows.end()) return out;
    for (const AllreduceBenchRow& a : autoRows->second) {
        if (a.bytes < (1u << 20)) continue;
        AheadJudgement j{a.bytes, "", nullptr, &a};
        for (const auto& [name, list] : rows) {
            if (name == "auto") continue;
            for (const AllreduceBenchRow& r : list)
                if (r.bytes == a.bytes && judgeRatio(r.ratio, 1.0).verdict == Verdict::Met &&
                    (!j.bestRow || r.ratio.median > j.bestRow->ratio.median)) {
                    j.bestRow = &r;
                    j.best = name;
                }
        }
        if (!j.bestRow) continue;
        j.verdict = judgeRatio(a.ratio, 1.0).verdict;
        out.push_back(j);
    }
    return out;
}

std::vector<std::string> allreduceBenchAlgorithms() {
    return {"plan", "dynamic", "ring", "recursive-doubling", "halving-doubling", "torus", "auto"};
}

Status validate(const AllreduceBenchOptions& o) {
    if (o.ranks < 1 || o.ranks > 64) return Status::error("ranks must be 1..64, got " + std::to_string(o.ranks));
    if (o.min_bytes < sizeof(float)) return Status::error("the smallest size must be at least 4 bytes");
    if (o.max_bytes < o.min_bytes) return Status::error("the largest size is below the smallest");
    // Every rank holds one buffer of the largest size (Gloo and the runtime add their own on top).
    const std::uint64_t available = availableHostMemoryBytes();
    const long double needed = static_cast<long double>(o.max_bytes) * o.ranks;
    if (o.max_bytes > (std::size_t(1) << 40) || (available > 0 && needed > static_cast<long double>(available))) {
        auto gib = [](long double b) {
            char text[32];
            std::snprintf(text, sizeof text, "%.1f", static_cast<double>(b / (1ull << 30)));
            return std::string(text);
        };
        return Status::error("sizes up to " + gib(o.max_bytes) + " GiB on " + std::to_string(o.ranks) +
                             " ranks need at least " + gib(needed) + " GiB, but this machine has " + gib(available) +
                             " GiB available");
    }
    if (o.segment_bytes < sizeof(float)) return Status::error("segment size must be at least 4 bytes");
    if (o.iterations < 1) return Status::error("iterations must be at least 1");
    if (o.rounds < 1) return Status::error("rounds must be at least 1");
    if (o.warmup < 0) return Status::error("warmup cannot be negative");
    if (!(o.min_round_seconds >= 0 && o.min_round_seconds <= 3600))
        return Status::error("seconds per size and round must be 0..3600");
    bool known = false;
    for (const auto& a : allreduceBenchAlgorithms()) known = known || a == o.algorithm;
    if (!known) {
        std::string names;
        for (const auto& a : allreduceBenchAlgorithms()) names += (names.empty() ? "" : ", ") + a;
        return Status::error("unknown algorithm '" + o.algorithm + "' (known: " + names + ")");
    }
    if (o.channels < 1 || o.channels > 16) return Status::error("channels must be 1..16, got " + std::to_string(o.channels));
    if (o.transport != "gloo" && o.transport != "shm")
        return Status::error("transport must be gloo or shm, got '" + o.transport + "'");
    if (o.channels > 1 && o.algorithm != "plan") return Status::error("more than one channel needs the plan algorithm");
    auto topology = benchTopology(o);
    if (!topology.ok()) return topology.status();
    if (o.algorithm == "torus" && topology->kind != Topology::Kind::Torus)
        return Status::error("the torus algorithm needs a torus topology, not " + topology->describe());
    return Status::success();
}

Result<std::vector<AllreduceBenchRow>> runAllreduceBench(const AllreduceBenchOptions& o) {
    PACER_RETURN_IF_ERROR(validate(o));
    std::string dir = o.rendezvous_dir;
    bool ownDir = false;
    if (dir.empty()) {
        std::string pattern = (std::filesystem::temp_directory_path() / "pacer-bench-XXXXXX").string();
        if (!mkdtemp(pattern.data())) return Status::error("cannot create a temporary rendezvous directory");
        dir = pattern;
        ownDir = true;
    }
    std::vector<std::size_t> sizes;
    for (std::size_t b = o.min_bytes; b <= o.max_bytes; b *= 2) sizes.push_back(b / sizeof(float) * sizeof(float));

    std::vector<std::vector<RankTimes>> times(o.ranks, std::vector<RankTimes>(sizes.size()));
    std::vector<Status> results(o.ranks);
    std::vector<std::thread> threads;
    for (int r = 0; r < o.ranks; ++r) {
        threads.emplace_back([&, r] {
            TransportOptions to;
            to.rank = r;
            to.size = o.ranks;
            to.rendezvous_dir = dir;
            to.link_gbps = o.link_gbps;
            to.link_latency_us = o.link_latency_us;
            to.channels = o.channels;
            auto transport = o.transport == "shm" ? makeSharedMemoryTransport(to) : makeGlooTransport(to);
            if (!transport.ok()) {
                results[r] = transport.status();
                return;
            }
            // Memory may still run out (other programs, Gloo's buffers): a failure like any other, never an abort in
            // a thread, so the temporary directory below is always removed.
            try {
                EngineSide side;
                if (isCollectiveAlgorithm(o.algorithm)) {
                    side.algorithm = parseAlgorithm(o.algorithm).value();
                    side.topology = benchTopology(o).value();
                    // auto chooses by α, β, γ: those of the emulated link, or fitted on these ranks now.
                    if (o.link_gbps > 0) {
                        side.link = emulatedLink(o.link_gbps, o.link_latency_us);
                    } else if (side.algorithm == Algorithm::Auto) {
                        auto fitted = calibrateLinkParams(**transport, side.topology);
                        if (!fitted.ok()) results[r] = fitted.status();
                        else side.link = fitted.value();
                    }
                }
                for (int round = 0; round < o.rounds && results[r].ok(); ++round)
                    for (std::size_t s = 0; s < sizes.size() && results[r].ok(); ++s)
                        results[r] = benchOneSize(**transport, o, side, sizes[s], round == 0, times[r][s]);
            } catch (const std::bad_alloc&) {
                results[r] = Status::error("rank " + std::to_string(r) + ": out of memory");
            }
            if (!results[r].ok()) (*transport)->abort();  // the other ranks fail fast instead of timing out
        });
    }
    for (auto& t : threads) t.join();
    if (ownDir) {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    }
    for (const Status& s : results)
        if (!s.ok()) return s;

    const double busFactor = o.ranks > 1 ? 2.0 * (o.ranks - 1) / o.ranks : 1.0;
    std::vector<AllreduceBenchRow> rows;
    for (std::size_t s = 0; s < sizes.size(); ++s) {
        AllreduceBenchRow row;
        row.bytes = sizes[s];
        row.ran = times[0][s].ran;
        // Per timed call, the slowest rank's time, as in nccl-tests; every rank timed the same calls in the same order.
        const std::size_t calls = times[0][s].engineUs.size();
        std::vector<double> engineUs(calls, 0.0), glooUs(calls, 0.0);
        for (int r = 0; r < o.ranks; ++r) {
            for (std::size_t c = 0; c < calls; ++c) {
                engineUs[c] = std::max(engineUs[c], times[r][s].engineUs[c]);
                glooUs[c] = std::max(glooUs[c], times[r][s].glooUs[c]);
            }
            row.wrong += times[r][s].wrong;
        }
        row.time_us = median(engineUs);
        row.gloo_time_us = median(glooUs);
        for (std::size_t c = 0; c < calls; ++c) row.pair_ratios.push_back(engineUs[c] > 0 ? glooUs[c] / engineUs[c] : 0);
        row.ratio = medianInterval(row.pair_ratios);
        row.algbw = row.time_us > 0 ? row.bytes / row.time_us / 1e3 : 0;
        row.busbw = row.algbw * busFactor;
        row.gloo_busbw = row.gloo_time_us > 0 ? row.bytes / row.gloo_time_us / 1e3 * busFactor : 0;
        rows.push_back(row);
    }
    return rows;
}

}  // namespace pacer::engine
