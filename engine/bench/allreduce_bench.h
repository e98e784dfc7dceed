// The all-reduce benchmark: the engine's segmented all-reduce (plan, dynamic) or one of the collective algorithms of
// engine/collectives (ring, recursive-doubling, halving-doubling, torus, auto) against the transport's own all-reduce
// of the same bytes (one monolithic gloo::allreduce over Gloo), measured in the same run, ranks as threads over Gloo
// TCP loopback or shared memory.
//
// Reported as nccl-tests does: time per all-reduce, algorithm bandwidth (bytes / time), bus bandwidth
// (algbw × 2(n−1)/n, comparable across rank counts) and a count of wrong elements from a separate check
// pass with integer values. Both tests/bench/bench_allreduce and `pacer-cli bench allreduce` call this.
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
    int iterations = 20;                      // timed, after warmup
    int warmup = 3;
    double link_gbps = 0;                     // optional link emulation (both sides measured under it)
    double link_latency_us = 0;
    std::string transport = "gloo";           // gloo or shm: what carries both sides
    std::string rendezvous_dir;               // empty: a fresh temporary directory
};

struct AllreduceBenchRow {
    std::size_t bytes = 0;
    double time_us = 0;        // engine, per all-reduce: the slowest rank's median (interleaved with Gloo's)
    double algbw = 0;          // GB/s
    double busbw = 0;          // GB/s
    std::size_t wrong = 0;     // elements differing from the exact sum, engine path and baseline together
    double gloo_time_us = 0;   // the transport's own all-reduce of the whole buffer (gloo::allreduce), the same way
    double gloo_busbw = 0;     // GB/s
    std::string ran;           // the algorithm that ran (what auto chose; plan/dynamic as given)
};

std::vector<std::string> allreduceBenchAlgorithms();
Status validate(const AllreduceBenchOptions& options);
Result<std::vector<AllreduceBenchRow>> runAllreduceBench(const AllreduceBenchOptions& options);

}  // namespace pacer::engine
