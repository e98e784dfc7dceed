// A hand-timed two-rank iteration (times in µs, stored as ns) whose HTA figures are worked out by hand below, and a
// generated run of many iterations (syntheticRun) for comparing two ways of computing the figures;
// shared by the analysis library's test and pacer-cli analyze's.
//
//            compute track                                     comm track
//   rank 0   F0 0-10  F1 10-20  B1 20-40  B0 40-60  wait 60-80  AR t1 45-70   AR t0 70-85
//            opt(t0) 80-90                          iteration 0-100
//   rank 1   F0 0-10  F1 10-20  B1 20-50  B0 50-70  opt(t0) 90-100   AR t1 50-68   AR t0 75-88
//                                                   iteration 0-110
// rank 0: span 100; compute [0,60)+[80,90) = 70; comm [45,85) = 40; busy [0,90) = 90 -> exposed 20, idle 10,
//         overlap 70+40-90 = 20 (50 %).
// rank 1: span 110; compute [0,70)+[90,100) = 80; comm [50,68)+[75,88) = 31; busy 70+13+10 = 93 -> exposed 13,
//         idle 17, overlap 80+31-93 = 18 (58.06 %).
// straggler: collectives by order start at 45/50 and 70/75: rank 1 starts both last, 5 µs late on average.
// critical path: iteration 0 ends last on rank 1 (opt at 100). opt waits for AR t0 (ends 88, later than B0's 70);
//   AR t0 waits for B0 (ends 70, later than AR t1's 68); then B1, F1, F0 on the compute thread:
//   F0 F1 B1 B0 AR t0 opt, length 100 µs, compute 10+10+30+20+10 = 80 µs, communication 13 µs.
#pragma once

#include "profiler/trace_model.h"

#include <algorithm>
#include <random>
#include <string>

namespace pacer::profiler::testing {

inline RunTrace handTimedIteration() {
    RunTrace t;
    t.label = "hand-timed";
    t.ranks = 2;
    t.iterations = 1;
    t.tensors = {{0, "fc1.weight", 0, 100}, {1, "fc2.weight", 1, 100}};
    t.tracks = {{0, 0, TrackKind::Compute, "rank 0 compute"}, {1, 0, TrackKind::Comm, "rank 0 comm"},
                {2, 1, TrackKind::Compute, "rank 1 compute"}, {3, 1, TrackKind::Comm, "rank 1 comm"}};
    auto add = [&t](EventKind kind, int track, std::int64_t startUs, std::int64_t endUs, const char* name, int layer = -1,
                    int tensor = -1) {
        TraceEvent e;
        e.kind = kind;
        e.track = track;
        e.start = startUs * 1000;
        e.end = endUs * 1000;
        e.iteration = 0;
        e.layer = layer;
        e.tensor = tensor;
        e.name = name;
        if (kind == EventKind::AllReduce) e.bytes = 400;
        t.events.push_back(e);
    };
    for (int rank = 0; rank < 2; ++rank) {
        const int c = 2 * rank, m = 2 * rank + 1;
        add(EventKind::Iteration, c, 0, rank == 0 ? 100 : 110, "iteration 0");
        add(EventKind::Forward, c, 0, 10, "fc1", 0);
        add(EventKind::Forward, c, 10, 20, "fc2", 1);
        add(EventKind::Backward, c, 20, rank == 0 ? 40 : 50, "fc2 backward", 1);
        add(EventKind::Backward, c, rank == 0 ? 40 : 50, rank == 0 ? 60 : 70, "fc1 backward", 0);
        if (rank == 0) add(EventKind::Wait, c, 60, 80, "wait fc1.weight");
        add(EventKind::Optimizer, c, rank == 0 ? 80 : 90, rank == 0 ? 90 : 100, "sgd fc1.weight", 0, 0);
        add(EventKind::AllReduce, m, rank == 0 ? 45 : 50, rank == 0 ? 70 : 68, "allreduce fc2.weight[0]", 1, 1);
        add(EventKind::AllReduce, m, rank == 0 ? 70 : 75, rank == 0 ? 85 : 88, "allreduce fc1.weight[0]", 0, 0);
    }
    return t;
}

// Ranks with a compute track (forward, backward, waits, optimizer steps), a comm track (one all-reduce per tensor,
// late by a random amount), and on GPU ranks a stream of kernels (NCCL's among them) and copies; iteration markers
// when asked for. Times overlap across tracks and repeat, so that the unions, the straggler and ties are exercised.
inline RunTrace syntheticRun(int ranks, int iterations, bool gpu, bool markers, unsigned seed) {
    RunTrace t;
    t.label = "synthetic";
    t.ranks = ranks;
    t.iterations = iterations;
    constexpr int kLayers = 4;
    for (int l = 0; l < kLayers; ++l) t.tensors.push_back({l, "layer" + std::to_string(l) + ".weight", l, 100});
    std::mt19937 rng(seed);
    std::uniform_int_distribution<std::int64_t> dur(1, 40), jitter(0, 15);
    for (int r = 0; r < ranks; ++r) {
        const int c = 3 * r, m = 3 * r + 1, g = 3 * r + 2;
        t.tracks.push_back({c, r, TrackKind::Compute, "rank compute"});
        t.tracks.push_back({m, r, TrackKind::Comm, "rank comm"});
        if (gpu) t.tracks.push_back({g, r, TrackKind::CudaStream, "rank stream"});
        auto add = [&t](EventKind kind, int track, std::int64_t start, std::int64_t end, std::string name, int it, int layer = -1,
                        int tensor = -1) {
            TraceEvent e;
            e.kind = kind;
            e.track = track;
            e.start = start * 1000;
            e.end = end * 1000;
            e.iteration = it;
            e.layer = layer;
            e.tensor = tensor;
            e.name = std::move(name);
            t.events.push_back(std::move(e));
        };
        std::int64_t now = 0, link = 0;
        for (int it = 0; it < iterations; ++it) {
            const std::int64_t begin = now;
            for (int l = 0; l < kLayers; ++l) {
                const std::int64_t d = dur(rng);
                add(EventKind::Forward, c, now, now + d, "fc" + std::to_string(l), it, l);
                if (gpu) add(EventKind::Kernel, g, now + 1, now + d, "gemm", it);
                now += d;
            }
            for (int l = kLayers - 1; l >= 0; --l) {
                const std::int64_t d = dur(rng);
                add(EventKind::Backward, c, now, now + d, "fc" + std::to_string(l) + " backward", it, l);
                now += d;
                link = std::max(link, now) + jitter(rng);
                const std::int64_t ar = dur(rng);
                add(EventKind::AllReduce, m, link, link + ar, "allreduce", it, -1, l);
                if (gpu) add(EventKind::Kernel, g, link, link + ar, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", it);
                link += ar;
            }
            if (link > now) {
                add(EventKind::Wait, c, now, link, "wait", it);
                now = link;
            }
            add(EventKind::Optimizer, c, now, now + 5, "sgd", it, 0, 0);
            if (gpu) add(EventKind::Memcpy, g, now, now + 3, "HtoD", it);
            now += 5 + jitter(rng);
            if (markers) add(EventKind::Iteration, c, begin, now, "iteration " + std::to_string(it), it);
        }
    }
    return t;
}

}  // namespace pacer::profiler::testing
