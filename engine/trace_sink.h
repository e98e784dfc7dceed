// How the engine reports what it did: one CommEvent per collective (a segment or a fused unit), carrying the
// tensor ids, segment indices, bytes and priority of its pieces, so that order and preemption are visible on
// the timeline. The worker forwards these to the profiler; onComm is called on the communication thread and
// must be quick (copy the event into a buffer, nothing more).
#pragma once

#include "engine/tensor.h"

namespace pacer::engine {

struct CommEvent {
    int iteration = 0;
    CommUnit unit;
    Nanos start = 0;  // steady_clock, ns since its epoch (CLOCK_MONOTONIC on Linux)
    Nanos end = 0;
    int channel = 0;  // which of the runtime's channels carried it (RuntimeOptions::channels)
    // CPU time of the thread that ran it, since that thread's previous collective ended: the collective and the
    // decisions and agreement rounds that led to it (its sleeps cost nothing). What it takes from compute on CPU
    // ranks whose cores are busy (Workload::comm_cpu). Gloo's I/O threads are not counted.
    Nanos cpu = 0;
};

class TraceSink {
public:
    virtual ~TraceSink() = default;
    virtual void onComm(const CommEvent& event) = 0;
};

}  // namespace pacer::engine
