// Helpers shared by the profiler suites: small synthetic runs and event comparison.
#pragma once

#include <QtTest>

#include <algorithm>
#include <tuple>

#include "profiler/trace_model.h"

namespace pacer::profiler::testing {

// A run of `ranks` ranks with a compute and a comm track each, `iterations` iterations of forward/backward per
// layer, all-reduce segments on comm, and one GPU kernel per iteration on a stream track of rank 0.
inline RunTrace makeRun(int ranks, int iterations, int layers) {
    RunTrace t;
    t.label = "synthetic";
    t.policy = "pace";
    t.ranks = ranks;
    t.iterations = iterations;
    t.segment_bytes = 4096;
    for (int l = 0; l < layers; ++l) t.tensors.push_back(TensorRecord{l, "fc" + std::to_string(l) + ".weight", l, 1000 + l});
    for (int r = 0; r < ranks; ++r) {
        t.tracks.push_back(Track{2 * r, r, TrackKind::Compute, "rank " + std::to_string(r) + " compute"});
        t.tracks.push_back(Track{2 * r + 1, r, TrackKind::Comm, "rank " + std::to_string(r) + " comm"});
    }
    const int stream = static_cast<int>(t.tracks.size());
    t.tracks.push_back(Track{stream, 0, TrackKind::CudaStream, "rank 0 stream 7"});
    for (int r = 0; r < ranks; ++r) {
        std::int64_t now = 1'000'000 + r * 17;
        for (int it = 0; it < iterations; ++it) {
            for (int l = 0; l < layers; ++l, now += 1000)
                t.events.push_back(TraceEvent{now, now + 900, EventKind::Forward, 2 * r, it, l, -1, -1, 0, -1,
                                              "fc" + std::to_string(l), 0});
            for (int l = layers - 1; l >= 0; --l, now += 1500) {
                t.events.push_back(TraceEvent{now, now + 1400, EventKind::Backward, 2 * r, it, l, -1, -1, 0, -1,
                                              "fc" + std::to_string(l), 0});
                for (int s = 0; s < 2; ++s)
                    t.events.push_back(TraceEvent{now + 1400 + s * 300, now + 1650 + s * 300, EventKind::AllReduce,
                                                  2 * r + 1, it, l, l, s, 2048, l,
                                                  "allreduce fc" + std::to_string(l) + "[" + std::to_string(s) + "]", 0});
            }
            if (r == 0)
                t.events.push_back(TraceEvent{now, now + 300, EventKind::Kernel, stream, it, -1, -1, -1, 0, -1,
                                              "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 1000 + it});
        }
    }
    return t;
}

inline auto eventKey(const TraceEvent& e) {
    return std::make_tuple(e.track, e.start, e.end, static_cast<int>(e.kind), e.iteration, e.layer, e.tensor,
                           e.segment, e.bytes, e.priority, e.name, e.correlation);
}

inline std::vector<TraceEvent> sortedEvents(std::vector<TraceEvent> v) {
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return eventKey(a) < eventKey(b); });
    return v;
}

// Compares event lists as multisets; on mismatch names the first differing event.
inline bool sameEvents(const std::vector<TraceEvent>& a, const std::vector<TraceEvent>& b, QString* why) {
    if (a.size() != b.size()) {
        *why = QStringLiteral("event count %1 != %2").arg(a.size()).arg(b.size());
        return false;
    }
    const auto sa = sortedEvents(a), sb = sortedEvents(b);
    for (std::size_t i = 0; i < sa.size(); ++i)
        if (eventKey(sa[i]) != eventKey(sb[i])) {
            *why = QStringLiteral("event %1 differs: '%2' @%3 vs '%4' @%5")
                       .arg(i).arg(QString::fromStdString(sa[i].name)).arg(sa[i].start)
                       .arg(QString::fromStdString(sb[i].name)).arg(sb[i].start);
            return false;
        }
    return true;
}

}  // namespace pacer::profiler::testing
