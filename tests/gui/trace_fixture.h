// A small two-rank run built in memory, shaped like what the tracer records: per rank a compute track with
// forward and backward spans of four layers and a comm track with all-reduce segments whose priorities
// follow the layer (0 = nearest the input), plus a burst of tiny all-reduce pieces that fold when zoomed out.
// Times are chosen so tests can compute where each event lands on screen.
#pragma once

#include "profiler/trace_model.h"

#include <memory>
#include <string>

namespace pacer::gui::test {

inline constexpr std::int64_t kLayerNs = 1'000'000;  // every forward/backward span is 1 ms
inline constexpr int kLayers = 4;
inline constexpr int kBurst = 40;                    // tiny pieces, 1 µs apart, in each rank's comm lane

inline std::shared_ptr<profiler::RunTrace> makeTwoRankTrace(int iterations = 2)
{
    using profiler::EventKind;
    using profiler::TrackKind;
    auto run = std::make_shared<profiler::RunTrace>();
    run->run_id = 7;
    run->label = "pace 1 MiB";
    run->policy = "pace";
    run->segment_bytes = 1 << 20;
    run->ranks = 2;
    run->iterations = iterations;
    for (int layer = 0; layer < kLayers; ++layer)
        run->tensors.push_back({layer, "fc" + std::to_string(layer + 1) + ".weight", layer, 262'144});
    // Tracks listed out of display order on purpose: the model orders lanes by rank, then compute before comm.
    run->tracks = {{3, 1, TrackKind::Comm, "rank 1 comm"},
                   {0, 0, TrackKind::Compute, "rank 0 compute"},
                   {2, 1, TrackKind::Compute, "rank 1 compute"},
                   {1, 0, TrackKind::Comm, "rank 0 comm"}};
    const std::int64_t iterationNs = 2 * kLayers * kLayerNs + 2 * kLayerNs;
    for (int rank = 0; rank < 2; ++rank) {
        const int compute = rank == 0 ? 0 : 2;
        const int comm = rank == 0 ? 1 : 3;
        for (int it = 0; it < iterations; ++it) {
            const std::int64_t base = it * iterationNs;
            profiler::TraceEvent iter;
            iter.kind = EventKind::Iteration;
            iter.start = base;
            iter.end = base + iterationNs;
            iter.track = compute;
            iter.iteration = it;
            iter.name = "iteration " + std::to_string(it);
            run->events.push_back(iter);
            for (int layer = 0; layer < kLayers; ++layer) {
                profiler::TraceEvent f;
                f.kind = EventKind::Forward;
                f.start = base + layer * kLayerNs;
                f.end = f.start + kLayerNs;
                f.track = compute;
                f.iteration = it;
                f.layer = layer;
                f.name = "fc" + std::to_string(layer + 1);
                run->events.push_back(f);
            }
            for (int k = 0; k < kLayers; ++k) {
                const int layer = kLayers - 1 - k;
                profiler::TraceEvent b;
                b.kind = EventKind::Backward;
                b.start = base + (kLayers + k) * kLayerNs;
                b.end = b.start + kLayerNs;
                b.track = compute;
                b.iteration = it;
                b.layer = layer;
                b.name = "fc" + std::to_string(layer + 1) + " backward";
                run->events.push_back(b);
                // Its gradient is reduced in two segments of half a millisecond each, right after it is ready.
                for (int segment = 0; segment < 2; ++segment) {
                    profiler::TraceEvent a;
                    a.kind = EventKind::AllReduce;
                    a.start = b.end + segment * kLayerNs / 2;
                    a.end = a.start + kLayerNs / 2;
                    a.track = comm;
                    a.iteration = it;
                    a.tensor = layer;
                    a.segment = segment;
                    a.bytes = 524'288;
                    a.priority = layer;
                    a.name = "allreduce fc" + std::to_string(layer + 1) + ".weight[" + std::to_string(segment) + "]";
                    run->events.push_back(a);
                }
            }
        }
        // A burst of tiny pieces after the last iteration: 40 spans of 500 ns, 1 µs apart.
        const std::int64_t burst = iterations * iterationNs + kLayerNs / 10;
        for (int i = 0; i < kBurst; ++i) {
            profiler::TraceEvent a;
            a.kind = EventKind::AllReduce;
            a.start = burst + i * 1'000;
            a.end = a.start + 500;
            a.track = comm;
            a.tensor = 0;
            a.segment = 2 + i;
            a.bytes = 256;
            a.priority = 0;
            a.name = "allreduce piece";
            run->events.push_back(a);
        }
    }
    return run;
}

}  // namespace pacer::gui::test
