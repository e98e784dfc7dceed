// The all-reduce benchmark: the engine's segmented all-reduce (plan, dynamic) or one of the collective algorithms of
// engine/collectives (ring, recursive-doubling, halving-doubling, torus, auto) against the transport's own all-reduce
// of the same bytes (one monolithic gloo::allreduce over Gloo), measured in the same run, ranks as threads over Gloo
// TCP loopback or shared memory.
//
// Reported as nccl-tests does: time per all-reduce, algorithm bandwidth (bytes / time), bus bandwidth
// (algbw × 2(n−1)/n, comparable across rank counts) and a count of wrong elements from a separate check
// pass with integer values. Both tests/bench/bench_allreduce and `pacer-cli bench allreduce` call this.
//
// Judging a ratio on a shared machine: each size is measured in `rounds` rounds, a round being one pass over all
// sizes (so a size's rounds lie minutes apart and meet different load). Within a round the engine's all-reduce and
// the transport's own run in pairs, each call timed on its own between barriers by its slowest rank, which side goes
// first a coin per pair (the same on every rank), so that neither side always runs second. Each pair gives one ratio (the
// transport's time over the engine's); a row carries every pair's ratio, their median and a 95% distribution-free
// interval for that median (engine/median_interval.h: order statistics, the sign test's interval, no assumption on
// the shape of the noise). judgeRatio: "met" when the interval's low end reaches the goal, "NOT met" when its high end
// is below it, "not judged" while the interval holds the goal or the pairs are too few (under 6) for an interval.
// A round runs at least `iterations` pairs, and with `min_round_seconds` more, up to about that long, so that the
// fast sizes, where a pair takes milliseconds, collect the hundreds of pairs a judgement under load needs. The
// interval assumes independent pairs; neighbouring pairs share the machine's slow spells, which the coin and the
// rounds (minutes apart) weaken but do not remove, so under heavy load a row can conclude wrongly more often than 5%
// (docs/ARCHITECTURE.md has an A/A row that did).
#pragma once

#include "engine/median_interval.h"
#include "engine/status.h"

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace pacer::engine {

struct AllreduceBenchOptions {
    int ranks = 2;
    std::size_t min_bytes = 4 << 10;
    std::size_t max_bytes = 256 << 20;        // sizes double from min to max
    std::size_t segment_bytes = 1 << 20;
    // plan: the runtime follows the segment order; dynamic: agreed per unit; or a collective algorithm of
    // engine/collectives on the point-to-point layer (auto: chosen per size by the cost model)
    std::string algorithm = "plan";
    // flat, ring, torus, torus:XxY…; empty: flat, or the most nearly cubic torus for the torus algorithm
    std::string topology;
    int channels = 1;                         // plan only: segments in flight at once (RuntimeOptions::channels)
    int iterations = 20;                      // pairs timed per round, after warmup (at least)
    // More pairs per round where they are fast: up to about this many seconds per size and round, estimated from the
    // warm-up pairs and agreed by all ranks (0: exactly `iterations`). At most kMaxPairsPerRound.
    double min_round_seconds = 0;
    int rounds = 1;                           // passes over all sizes
    int warmup = 3;
    double link_gbps = 0;                     // optional link emulation (both sides measured under it)
    double link_latency_us = 0;
    std::string transport = "gloo";           // gloo or shm: what carries both sides
    std::string rendezvous_dir;               // empty: a fresh temporary directory
};

struct AllreduceBenchRow {
    std::size_t bytes = 0;
    double time_us = 0;        // engine, per all-reduce: median over every timed call of the slowest rank's time
    double algbw = 0;          // GB/s
    double busbw = 0;          // GB/s
    std::size_t wrong = 0;     // elements differing from the exact sum, engine path and baseline together
    double gloo_time_us = 0;   // the transport's own all-reduce of the whole buffer (gloo::allreduce), the same way
    double gloo_busbw = 0;     // GB/s
    std::string ran;           // the algorithm that ran (what auto chose; plan/dynamic as given)
    // Per pair of calls, the transport's time over the engine's (slowest rank each), in the order timed; their
    // median and its 95% interval.
    std::vector<double> pair_ratios;
    MedianInterval ratio;
};

constexpr int kMaxPairsPerRound = 1000;

enum class Verdict { Met, NotMet, NotJudged };
struct Judgement {
    Verdict verdict = Verdict::NotJudged;
    std::string text;  // "met", "NOT met", "not judged (0.91..1.04 holds 0.95)", "not judged (5 pairs, fewer than 6)"
};

// Whether the ratios' median reaches `goal` at the interval's confidence (see the top of this file).
Judgement judgeRatio(const MedianInterval& ratio, double goal);

// The goal's second half: at each size >= 1 MiB where another algorithm of the same run was clearly ahead of the
// transport's own all-reduce (its interval's low end >= 1: the transport's choice is poor there), auto's ratio
// judged against 1: Met ("ahead") when its low end is >= 1, NotMet when its high end is below 1. `rows` by the
// algorithm asked for ("auto" among them); the best of the others is the one with the highest median.
struct AheadJudgement {
    std::size_t bytes = 0;
    std::string best;                            // the algorithm clearly ahead
    const AllreduceBenchRow* bestRow = nullptr;  // its row, and auto's, in `rows`
    const AllreduceBenchRow* autoRow = nullptr;
    Verdict verdict = Verdict::NotJudged;
};
std::vector<AheadJudgement> judgeAheadWherePoor(const std::map<std::string, std::vector<AllreduceBenchRow>>& rows);

std::vector<std::string> allreduceBenchAlgorithms();
Status validate(const AllreduceBenchOptions& options);
Result<std::vector<AllreduceBenchRow>> runAllreduceBench(const AllreduceBenchOptions& options);

}  // namespace pacer::engine
