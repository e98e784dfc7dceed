// bench_collectives: the collective algorithms of engine/collectives, three ways, after what auto's calibration costs.
//   0. auto's calibration (engine/collectives/calibrate.h) on the ranks of part 1, with every calibration point and
//      without the largest, alternating --calibration-rounds C times (3; 0 skips): seconds at start-up, and what auto
//      then chooses at each size.
//   1. Bus bandwidth per algorithm against one gloo::allreduce of the same bytes in the same run, 2 and 4 ranks as
//      threads over TCP loopback, 4 KiB to 256 MiB (goal: auto >= 0.95 of Gloo at every size >= 1 MiB, and ahead of
//      it where Gloo's own choice is poor), judged per size from interleaved rounds (below); "poor" where another
//      algorithm of the same run is clearly ahead of Gloo (its interval above 1), and auto judged against 1 there.
//      --transport shm: the algorithms on the shared-memory point-to-point layer against its own all-reduce.
//   2. Link emulation at 1 Gb/s per port, 4 ranks: a 2×2 torus (4 ports per node, the torus algorithm) against a
//      single-port ring (the ring algorithm), 64 MiB, interleaved rounds, medians; the measured speed-up against the
//      one the α-β-γ formulas predict (goal: within 15%). γ is measured here, in the same run. Over shared memory by
//      default, the transport that moves real bytes cheapest (--emulated-transport gloo: over TCP loopback).
//   3. At scale, on a virtual clock: one rank's real schedule of ring and torus from 64 to 4,096 ranks (the
//      algorithm run on a dry point-to-point layer) against the closed-form costs (goal: within 1%), and the
//      replayed ResNet-50 iteration at 25 Gb/s per port under each.
// Timing goals are printed, never asserted (the machine is shared); wrong sums and a closed form off by more than
// 1% on a balanced torus make the exit status 1.
// --quick (CTest): 2 ranks to 256 KiB, the emulated comparison at 4 MiB, scale 64..512.
// --busbw-max-mib N: stop part 1 at N MiB (a loaded machine moves 256 MiB slowly); 0 skips part 1.
// --algorithms A,B (default every one), --ranks 2,4: part 1's rows. --rounds R (5), --iterations K (4),
// --seconds S (1): each size is timed in R rounds (passes over all sizes, so a size's rounds meet the machine at
// different times); a round runs at least K pairs of calls, one of the algorithm next to one of the transport's own,
// which first a coin per pair, and more pairs up to about S seconds per size and round (so a millisecond call gets
// hundreds). Per size: the median of the pairs' ratios (transport time / algorithm time) with its 95% interval from
// order statistics (the sign test's, engine/median_interval.h), and for auto at >= 1 MiB the verdict: met when the
// interval's low end is >= 0.95, NOT met when its high end is below, not judged while it holds 0.95.
// --emulated-gbps G, --emulated-mib M: part 2's link and size (default 1 Gb/s, 64 MiB). The emulated link can only
// slow the real transfer down: where the ranks' real loopback copies are slower than 2·D emulated ports, the torus
// is held back by the CPUs, not the link, and the comparison says nothing about the algorithm (see the report line).
#include "engine/bench/allreduce_bench.h"
#include "engine/collectives/algorithm_cost.h"
#include "engine/collectives/allreduce_algorithms.h"
#include "engine/collectives/calibrate.h"
#include "engine/collectives/dry_run.h"
#include "engine/replay/replay.h"
#include "engine/replay/zoo.h"
#include "engine/transport/transport.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace pacer::engine;
using Clock = std::chrono::steady_clock;

namespace {

// Part 1's settings: which algorithms, how many rounds, and how many pairs of calls (or seconds of them) per round.
struct BusbwSettings {
    bool quick = false;
    std::size_t maxBytes = 256 << 20;
    std::string transport = "gloo";
    std::vector<std::string> algorithms{"ring", "recursive-doubling", "halving-doubling", "torus", "auto"};
    std::vector<int> ranks{2, 4};
    int rounds = 5;
    int iterations = 4;
    double seconds = 1.0;
};

constexpr double kAutoGoal = 0.95;

// Part 1's verdicts on auto at >= 1 MiB: against the goal of 0.95, and, at the sizes where another algorithm of the
// same run was clearly ahead of the transport's own (its interval above 1: the transport's choice is poor there),
// whether auto was ahead too.
struct AutoVerdicts {
    int met = 0, missed = 0, unjudged = 0;
    int ahead = 0, notAhead = 0, aheadUnjudged = 0;
};

// Auto where the transport's own choice is poor (judgeAheadWherePoor), one line each. Each algorithm's rows come
// from rounds of its own, minutes apart from auto's: a lead that comes and goes with the load may show in one and
// not the other.
void printAheadWherePoor(const std::map<std::string, std::vector<AllreduceBenchRow>>& rows, const std::string& native,
                         AutoVerdicts& v) {
    const std::vector<AheadJudgement> judged = judgeAheadWherePoor(rows);
    if (judged.empty()) return;
    std::printf("# where %s's own choice is poor (another algorithm clearly ahead of it): is auto ahead too?\n",
                native.c_str());
    for (const AheadJudgement& j : judged) {
        const MedianInterval &b = j.bestRow->ratio, &a = j.autoRow->ratio;
        const char* text = j.verdict == Verdict::Met      ? "ahead"
                           : j.verdict == Verdict::NotMet ? "NOT ahead"
                                                          : "not judged";
        std::printf("%12zu %s %.3f [%.2f..%.2f]; auto:%s %.3f [%.2f..%.2f]  %s\n", j.bytes, j.best.c_str(), b.median,
                    b.low, b.high, j.autoRow->ran.c_str(), a.median, a.low, a.high, text);
        ++(j.verdict == Verdict::Met ? v.ahead : j.verdict == Verdict::NotMet ? v.notAhead : v.aheadUnjudged);
    }
}

// Part 1. Returns the number of wrong elements; judges auto at >= 1 MiB.
std::size_t busBandwidth(const BusbwSettings& b, AutoVerdicts& verdicts) {
    std::size_t wrong = 0;
    const std::string native = b.transport == "shm" ? "shm" : "gloo";
    const int rounds = b.quick ? 1 : b.rounds, pairs = b.quick ? 3 : b.iterations;
    const double seconds = b.quick ? 0 : b.seconds;
    for (int ranks : b.quick ? std::vector<int>{2} : b.ranks) {
        std::printf("\n# %d ranks (threads, %s): busbw GB/s per algorithm against the transport's own all-reduce in "
                    "pairs of calls, which first a coin per pair; %d round(s) over all sizes, each >= %d pairs and up to "
                    "~%.2f s; ratio = median of the pairs' ratios, [95%% interval] from order statistics\n",
                    ranks, b.transport == "shm" ? "shared memory" : "Gloo TCP loopback", rounds, pairs, seconds);
        std::printf("%12s %-28s %10s %10s %6s %8s %15s %6s  %s\n", "bytes", "algorithm(ran)", "busbw",
                    (native + "_busbw").c_str(), "pairs", "ratio", "[95% interval]", "wrong",
                    "auto >= 0.95 (sizes >= 1 MiB)");
        std::map<std::string, std::vector<AllreduceBenchRow>> all;
        for (const std::string& algorithm : b.algorithms) {
            AllreduceBenchOptions o;
            o.transport = b.transport;
            o.ranks = ranks;
            o.algorithm = algorithm;
            o.min_bytes = 4 << 10;
            o.max_bytes = b.quick ? 256 << 10 : b.maxBytes;
            o.rounds = rounds;
            o.iterations = pairs;
            o.min_round_seconds = seconds;
            o.warmup = b.quick ? 1 : 2;
            auto rows = runAllreduceBench(o);
            if (!rows.ok()) {
                std::fprintf(stderr, "bench_collectives: %s: %s\n", algorithm.c_str(), rows.message().c_str());
                return 1;
            }
            for (const AllreduceBenchRow& r : rows.value()) {
                const bool judged = algorithm == "auto" && r.bytes >= (1u << 20);
                const Judgement verdict = judged ? judgeRatio(r.ratio, kAutoGoal) : Judgement{};
                char interval[32] = "";
                if (r.ratio.known()) std::snprintf(interval, sizeof interval, "[%.2f..%.2f]", r.ratio.low, r.ratio.high);
                std::printf("%12zu %-28s %10.3f %10.3f %6zu %8.3f %15s %6zu  %s\n", r.bytes,
                            (algorithm == "auto" ? "auto:" + r.ran : r.ran).c_str(), r.busbw, r.gloo_busbw,
                            r.ratio.count, r.ratio.median, interval, r.wrong, judged ? verdict.text.c_str() : "");
                wrong += r.wrong;
                if (!judged) continue;
                if (verdict.verdict == Verdict::Met) ++verdicts.met;
                else if (verdict.verdict == Verdict::NotMet) ++verdicts.missed;
                else ++verdicts.unjudged;
            }
            all[algorithm] = std::move(rows.value());
        }
        printAheadWherePoor(all, native, verdicts);
    }
    return wrong;
}

// γ on this machine: ns per byte of dst += src over a buffer far larger than the caches.
double measureGamma() {
    const std::size_t count = 8 << 20;
    std::vector<float> a(count, 1.0f), b(count, 2.0f);
    std::vector<double> ns;
    for (int i = 0; i < 5; ++i) {
        const auto start = Clock::now();
        for (std::size_t k = 0; k < count; ++k) a[k] += b[k];
        ns.push_back(std::chrono::duration<double, std::nano>(Clock::now() - start).count());
    }
    if (a[12345] != 11.0f) std::fprintf(stderr, "bench_collectives: the γ loop summed wrong\n");
    return median(ns) / (count * sizeof(float));
}

// `ranks` transports (threads) connected through a fresh temporary directory (`dir`, for the caller to remove);
// empty when any failed.
std::vector<std::unique_ptr<Transport>> connectGroup(int ranks, const std::string& transport, double gbps,
                                                     std::string& dir) {
    dir = (std::filesystem::temp_directory_path() / "pacer-bench-coll-XXXXXX").string();
    if (!mkdtemp(dir.data())) return {};
    std::vector<std::unique_ptr<Transport>> group(ranks);
    std::vector<std::thread> threads;
    for (int r = 0; r < ranks; ++r)
        threads.emplace_back([&, r] {
            TransportOptions o;
            o.rank = r;
            o.size = ranks;
            o.rendezvous_dir = dir;
            o.link_gbps = gbps;
            auto t = transport == "gloo" ? makeGlooTransport(o) : makeSharedMemoryTransport(o);
            if (t.ok()) group[r] = std::move(t.value());
        });
    for (auto& t : threads) t.join();
    for (auto& t : group)
        if (!t) {
            std::filesystem::remove_all(dir);
            return {};
        }
    return group;
}

// Part 0: what auto's calibration (engine/collectives/calibrate.h) costs at start-up, and what it then chooses, with
// every calibration point and without the largest, the two alternating `rounds` times on the same ranks (so both meet
// the same load). Per calibration: seconds (the slowest rank), auto's choice at each point's size and at 128 MiB, and
// at the largest point each candidate's speed-up over native, median and the interval's low end that auto weighs.
bool calibrationCost(const std::string& transport, int ranks, int rounds) {
    std::string dir;
    std::vector<std::unique_ptr<Transport>> group = connectGroup(ranks, transport, 0, dir);
    if (group.empty()) return false;
    const std::vector<CalibrationPoint> all = calibrationPoints();
    const std::vector<std::vector<CalibrationPoint>> variants{{all.begin(), all.end() - 1}, all};
    auto mib = [](std::size_t bytes) {
        char text[16];
        std::snprintf(text, sizeof text, bytes >= (1u << 20) ? "%zuM" : "%zuK", bytes >= (1u << 20) ? bytes >> 20 : bytes >> 10);
        return std::string(text);
    };
    std::printf("\n# calibration cost, %d ranks (threads, %s): seconds per calibration (slowest rank), with and without "
                "the largest point alternating, %d round(s); auto's choice after it; speed-ups at the largest point as "
                "median [low end]\n",
                ranks, transport == "shm" ? "shared memory" : "Gloo TCP loopback", rounds);
    std::vector<std::vector<double>> seconds(variants.size());
    bool ok = true;
    for (int round = 0; round < rounds && ok; ++round)
        for (std::size_t v = 0; v < variants.size() && ok; ++v) {
            std::vector<LinkParams> links(ranks);
            std::vector<double> s(ranks);
            std::vector<std::thread> threads;
            for (int r = 0; r < ranks; ++r)
                threads.emplace_back([&, r] {
                    const auto start = Clock::now();
                    auto link = calibrateLinkParams(*group[r], Topology::flat(), 0, variants[v]);
                    s[r] = std::chrono::duration<double>(Clock::now() - start).count();
                    if (link.ok()) links[r] = link.value();
                    else std::fprintf(stderr, "bench_collectives: calibration: %s\n", link.message().c_str());
                });
            for (auto& t : threads) t.join();
            ok = links[0].nativeKnown();
            if (!ok) break;
            seconds[v].push_back(*std::max_element(s.begin(), s.end()));
            std::string line = "to " + mib(variants[v].back().bytes) + ":";
            char text[64];
            std::snprintf(text, sizeof text, " %6.2f s  chose", seconds[v].back());
            line += text;
            std::vector<std::size_t> sizes;
            for (const CalibrationPoint& p : all) sizes.push_back(p.bytes);
            sizes.push_back(128 << 20);
            for (std::size_t bytes : sizes) {
                line += ' ';
                line += mib(bytes);
                line += '=';
                line += algorithmName(chooseAlgorithm(ranks, Topology::flat(), bytes, links[0]));
            }
            const double largest = static_cast<double>(variants[v].back().bytes);
            const double native = links[0].measuredCost(Algorithm::Native)->at(largest);
            line += "  at " + mib(variants[v].back().bytes) + ":";
            for (Algorithm a : candidateAlgorithms(ranks, Topology::flat())) {
                const MeasuredCost* m = links[0].measuredCost(a);
                std::snprintf(text, sizeof text, " %s %.2f [%.2f]", algorithmName(a).c_str(), native / m->at(largest),
                              native / m->upperAt(largest));
                line += text;
            }
            std::printf("%s\n", line.c_str());
        }
    group.clear();
    std::filesystem::remove_all(dir);
    if (ok)
        std::printf("median seconds: to %s %.2f, to %s %.2f (%.2fx)\n", mib(variants[0].back().bytes).c_str(),
                    median(seconds[0]), mib(variants[1].back().bytes).c_str(), median(seconds[1]),
                    median(seconds[1]) / median(seconds[0]));
    return ok;
}

// Part 2: one timed all-reduce of `bytes` on 4 ranks with the given topology and algorithm; the slowest rank's ms.
double emulatedOnce(std::vector<std::unique_ptr<Transport>>& group, Algorithm algorithm, const Topology& topology,
                    std::vector<std::vector<float>>& data, bool& ok) {
    std::vector<double> ms(group.size());
    std::vector<std::thread> threads;
    std::vector<Status> status(group.size());
    for (std::size_t r = 0; r < group.size(); ++r)
        threads.emplace_back([&, r] {
            const auto start = Clock::now();
            status[r] = runAllreduce(algorithm, *group[r]->pointToPoint(0), data[r].data(), data[r].size(), {topology, 0});
            ms[r] = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
        });
    for (auto& t : threads) t.join();
    for (const Status& s : status)
        if (!s.ok()) {
            std::fprintf(stderr, "bench_collectives: %s\n", s.message().c_str());
            ok = false;
        }
    return *std::max_element(ms.begin(), ms.end());
}

bool emulatedTorusAgainstRing(bool quick, double gbps, std::size_t mib, const std::string& transport) {
    const int ranks = 4;
    const std::size_t bytes = quick ? 4 << 20 : mib << 20;
    const int rounds = quick ? 2 : 5;
    std::string dir;
    std::vector<std::unique_ptr<Transport>> group = connectGroup(ranks, transport, gbps, dir);
    if (group.empty()) return false;
    std::vector<std::vector<float>> data(ranks, std::vector<float>(bytes / sizeof(float), 1.0f));
    const Topology ring = Topology::ring(), torus = Topology::torus({2, 2});
    bool ok = true;
    std::vector<double> ringMs, torusMs;
    for (int i = 0; i < rounds && ok; ++i) {  // interleaved, so both see the same machine load
        ringMs.push_back(emulatedOnce(group, Algorithm::Ring, ring, data, ok));
        torusMs.push_back(emulatedOnce(group, Algorithm::Torus, torus, data, ok));
    }
    group.clear();
    std::filesystem::remove_all(dir);
    if (!ok) return false;
    const LinkParams link = emulatedLink(gbps, 0, measureGamma());
    const double ringModel = allreduceCostNs(Algorithm::Ring, ranks, ring, bytes, link) / 1e6;
    const double torusModel = allreduceCostNs(Algorithm::Torus, ranks, torus, bytes, link) / 1e6;
    const double measured = median(ringMs) / median(torusMs), predicted = ringModel / torusModel;
    std::printf("\n# emulated %g Gb/s per port over %s, %d ranks, %zu MiB, %d interleaved rounds (medians); γ = %.3f ns/B measured\n",
                gbps, transport.c_str(), ranks, bytes >> 20, rounds, link.gamma_ns_per_byte);
    std::printf("%-28s %12s %12s\n", "", "measured ms", "model ms");
    std::printf("%-28s %12.1f %12.1f\n", "ring, single port", median(ringMs), ringModel);
    std::printf("%-28s %12.1f %12.1f\n", "torus 2x2, 4 ports", median(torusMs), torusModel);
    std::printf("speed-up: measured %.2f×, predicted %.2f× (off by %.1f%%; goal within 15%%)\n", measured, predicted,
                100 * std::abs(measured / predicted - 1));
    return true;
}

// Part 3. Returns false when a balanced torus or the ring disagrees with its closed form by more than 1%.
bool atScale(bool quick) {
    const LinkParams link = emulatedLink(25, 1.0, 0.0);  // 25 Gb/s per port, 1 µs per step
    const double bytes = 100.0 * (1 << 20);              // about ResNet-50's gradients
    bool ok = true;
    std::printf("\n# one rank's schedule on a virtual clock vs the closed form, %.0f MiB, 25 Gb/s per port, 1 µs per step\n",
                bytes / (1 << 20));
    std::printf("%7s %-18s %8s %14s %14s %8s\n", "ranks", "topology", "rounds", "schedule ms", "formula ms", "diff");
    auto row = [&](int ranks, Algorithm a, const Topology& t) {
        std::unique_ptr<float[]> data(new float[static_cast<std::size_t>(bytes) / 4]);  // never touched
        DryRunPointToPoint dry(0, ranks, link);
        if (!runAllreduce(a, dry, data.get(), static_cast<std::size_t>(bytes) / 4, {t, 0}).ok()) return 1.0;
        const double model = allreduceCostNs(a, ranks, t, bytes, link);
        const double diff = dry.elapsedNs() / model - 1;
        std::printf("%7d %-18s %8d %14.3f %14.3f %7.2f%%\n", ranks, (algorithmName(a) + " " + t.describe()).c_str(),
                    dry.rounds(), dry.elapsedNs() / 1e6, model / 1e6, 100 * diff);
        return diff;
    };
    const int maxRanks = quick ? 512 : 4096;
    for (int n = 64; n <= maxRanks; n *= 2) {
        ok = std::abs(row(n, Algorithm::Ring, Topology::ring())) <= 0.01 && ok;
        const Topology t = balancedTorus(n);
        const bool cubic = t.dims.size() == 3 && t.dims[0] == t.dims[1] && t.dims[1] == t.dims[2];
        const double d = row(n, Algorithm::Torus, t);
        if (cubic) ok = std::abs(d) <= 0.01 && ok;  // uneven shapes share ports in some rounds: shown, not held to 1%
    }

    Result<Workload> resnet = loadProfile("resnet50", 0, {std::string(PACER_SAMPLES_DIR) + "/zoo"});
    if (!resnet.ok()) {
        std::fprintf(stderr, "bench_collectives: %s\n", resnet.message().c_str());
        return false;
    }
    PolicyConfig pace;
    pace.name = "pace";
    std::printf("\n# replayed ResNet-50 (pace), 25 Gb/s per port: ms per iteration\n%7s %10s %12s %12s %12s\n", "ranks",
                "native", "ring", "torus", "auto(torus)");
    for (int n = 64; n <= maxRanks; n *= 4) {
        std::printf("%7d", n);
        for (const auto& [algorithm, topology] : std::vector<std::pair<std::string, std::string>>{
                 {"native", ""}, {"ring", "ring"}, {"torus", "torus"}, {"auto", "torus"}}) {
            WhatIf w;
            w.ranks = n;
            w.link_gbps = 25;
            w.algorithm = algorithm;
            w.topology = topology;
            auto r = replay(resnet.value(), CostModel{}, pace, w);
            std::printf(" %12.3f", r.ok() ? r.value().sim.figures.iter_ms : -1.0);
            ok = r.ok() && ok;
        }
        std::printf("\n");
    }
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    bool quick = false;
    BusbwSettings busbw;
    long maxMiB = 256, emulatedMiB = 64;
    int calibrationRounds = 3;
    double emulatedGbps = 1;
    std::string transport = "gloo", emulatedTransport = "shm";
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto number = [&](double lo, double hi, double& out) {
            char* end = nullptr;
            out = i + 1 < argc ? std::strtod(argv[++i], &end) : -1;
            if (!end || *end != '\0' || !(out >= lo && out <= hi)) {
                std::fprintf(stderr, "bench_collectives: error: %s wants %g..%g\n", arg.c_str(), lo, hi);
                return false;
            }
            return true;
        };
        double value = 0;
        if (arg == "--quick") {
            quick = true;
        } else if (arg == "--busbw-max-mib") {
            if (!number(0, 4096, value)) return 2;
            maxMiB = static_cast<long>(value);
        } else if (arg == "--emulated-gbps") {
            if (!number(0.001, 1000, emulatedGbps)) return 2;
        } else if ((arg == "--transport" || arg == "--emulated-transport") && i + 1 < argc &&
                   (std::string(argv[i + 1]) == "gloo" || std::string(argv[i + 1]) == "shm")) {
            (arg == "--transport" ? transport : emulatedTransport) = argv[++i];
        } else if (arg == "--rounds") {
            if (!number(1, 100, value)) return 2;
            busbw.rounds = static_cast<int>(value);
        } else if (arg == "--iterations") {
            if (!number(1, 1000, value)) return 2;
            busbw.iterations = static_cast<int>(value);
        } else if (arg == "--calibration-rounds") {
            if (!number(0, 100, value)) return 2;
            calibrationRounds = static_cast<int>(value);
        } else if (arg == "--seconds") {
            if (!number(0, 60, busbw.seconds)) return 2;
        } else if ((arg == "--algorithms" || arg == "--ranks") && i + 1 < argc) {
            std::vector<std::string> list;
            for (std::string rest = argv[++i]; !rest.empty();) {
                const auto comma = rest.find(',');
                list.push_back(rest.substr(0, comma));
                rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
            }
            if (arg == "--algorithms") {
                for (const std::string& a : list)
                    if (a == "plan" || a == "dynamic" || !parseAlgorithm(a).ok() || a == "native") {
                        std::fprintf(stderr, "bench_collectives: error: --algorithms: unknown algorithm '%s'\n", a.c_str());
                        return 2;
                    }
                busbw.algorithms = list;
            } else {
                busbw.ranks.clear();
                for (const std::string& r : list) {
                    const int n = std::atoi(r.c_str());
                    if (n < 2 || n > 64) {
                        std::fprintf(stderr, "bench_collectives: error: --ranks wants 2..64, got '%s'\n", r.c_str());
                        return 2;
                    }
                    busbw.ranks.push_back(n);
                }
            }
        } else if (arg == "--emulated-mib") {
            if (!number(1, 1024, value)) return 2;
            emulatedMiB = static_cast<long>(value);
        } else {
            std::fprintf(stderr,
                         "bench_collectives: error: unknown argument %s (--quick, --busbw-max-mib N, --emulated-gbps G, "
                         "--emulated-mib M, --transport gloo|shm, --emulated-transport gloo|shm, --algorithms A,B, --ranks 2,4, "
                         "--rounds R, --iterations K, --seconds S, --calibration-rounds C)\n",
                         argv[i]);
            return 2;
        }
    }
    busbw.quick = quick;
    busbw.maxBytes = static_cast<std::size_t>(maxMiB) << 20;
    busbw.transport = transport;
    bool calibrated = true;
    for (int ranks : quick ? std::vector<int>{2} : busbw.ranks)
        if (calibrationRounds > 0) calibrated = calibrationCost(transport, ranks, quick ? 1 : calibrationRounds) && calibrated;
    AutoVerdicts v;
    const std::size_t wrong = maxMiB > 0 || quick ? busBandwidth(busbw, v) : 0;
    if (v.met + v.missed + v.unjudged > 0)
        std::printf("# auto against the %s all-reduce at sizes >= 1 MiB (goal: median ratio >= %.2f, judged by its "
                    "95%% interval): met at %d, NOT met at %d, not judged at %d\n",
                    transport.c_str(), kAutoGoal, v.met, v.missed, v.unjudged);
    if (v.ahead + v.notAhead + v.aheadUnjudged > 0)
        std::printf("# and ahead of it where its choice is poor (another algorithm clearly ahead; sizes x rank "
                    "counts): ahead at %d, NOT ahead at %d, not judged at %d\n",
                    v.ahead, v.notAhead, v.aheadUnjudged);
    const bool emulated =
        emulatedTorusAgainstRing(quick, emulatedGbps, static_cast<std::size_t>(emulatedMiB), emulatedTransport);
    const bool scale = atScale(quick);
    if (wrong > 0) std::fprintf(stderr, "bench_collectives: %zu wrong elements\n", wrong);
    if (!emulated) std::fprintf(stderr, "bench_collectives: the emulated comparison failed to run\n");
    if (!scale) std::fprintf(stderr, "bench_collectives: a schedule disagrees with its closed form by more than 1%%\n");
    if (!calibrated) std::fprintf(stderr, "bench_collectives: a calibration failed\n");
    return wrong == 0 && emulated && scale && calibrated ? 0 : 1;
}
