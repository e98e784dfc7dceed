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
// sizes (so a size's rounds lie minutes apart and meet different load), and within a round the engine's all-reduce
// and the transport's own alternate (ABAB...). Each round gives a ratio (the transport's median time over the
// engine's); a row carries the median of those and their spread, and judgeRatio says whether a goal is met, not met,
// or cannot be told from this run.
#pragma once

#include "engine/status.h"

#include <cstddef>
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
    int iterations = 20;                      // timed per round, after warmup
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
    // busbw / gloo_busbw per round (the transport's median time over the engine's, the calls of that round), and the
    // median of those; with one round, the one ratio.
    std::vector<double> round_ratios;
    double ratio = 0;
    double ratioMin() const;
    double ratioMax() const;
};

// Whether the row meets `goal` (ratio >= goal): "met" when every round met it, "NOT met" when none did; where the
// rounds straddle the goal, the median decides if the rounds lie within `maxSpread` of each other (max - min),
// otherwise "not judged (spread 0.82..1.21 wider than 0.10)".
std::string judgeRatio(const AllreduceBenchRow& row, double goal, double maxSpread);

std::vector<std::string> allreduceBenchAlgorithms();
Status validate(const AllreduceBenchOptions& options);
Result<std::vector<AllreduceBenchRow>> runAllreduceBench(const AllreduceBenchOptions& options);

}  // namespace pacer::engine
