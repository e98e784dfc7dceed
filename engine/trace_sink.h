// How the engine reports what it did: one CommEvent per collective (a segment or a fused unit), carrying the
// tensor ids, segment indices, bytes and priority of its pieces, so that order and preemption are visible on
// the timeline, and one RoundEvent per stand-alone agreement round of dynamic order. The worker forwards these
// to the profiler; both are called on the communication thread and must be quick (copy the event, nothing more).
#pragma once

#include "engine/tensor.h"

namespace pacer::engine {

struct CommEvent {
    int iteration = 0;
    CommUnit unit;
    Nanos start = 0;  // steady_clock, ns since its epoch (CLOCK_MONOTONIC on Linux)
    Nanos end = 0;
    int channel = 0;  // which of the runtime's channels carried it (RuntimeOptions::channels)
    // CPU time of the thread that ran it, since that thread's previous collective or agreement round ended: the
    // collective and the decisions that led to it (its sleeps cost nothing). What it takes from compute on CPU
    // ranks whose cores are busy (Workload::comm_cpu). Gloo's I/O threads are not counted.
    Nanos cpu = 0;
};

// Dynamic order: a round in which the ranks agree on what is ready everywhere (a small all-reduce of readiness
// flags), run on its own where no unit carried those flags (at an iteration's start, after the comm thread waited
// for news, at each tick of a policy that holds work back). `chose_unit`: the next collective on this thread is the
// unit the round chose; otherwise it found nothing to send (or the iteration was over). Traced apart from the unit:
// a unit's span that included its round made one collective cost twice another of its size (a fifo run's 1 KiB
// bias 350-530 us with its round, 180-290 us without, over Gloo on 2 cores), and from a run whose units all come by
// a round (DDP's, Horovod's) replay could not tell the round from the unit and priced it into every unit of another
// schedule.
struct RoundEvent {
    int iteration = 0;
    Nanos start = 0;  // steady_clock, as CommEvent
    Nanos end = 0;
    std::int64_t bytes = 0;  // what the round reduced: the readiness flags and rank 0's clock
    bool chose_unit = false;
    // CPU time of the comm thread since its previous collective or round: the wait for news and the round (as
    // CommEvent::cpu). The unit a round chose counts its own CPU from the round's end.
    Nanos cpu = 0;
};

class TraceSink {
public:
    virtual ~TraceSink() = default;
    virtual void onComm(const CommEvent& event) = 0;
    virtual void onRound(const RoundEvent&) {}
};

}  // namespace pacer::engine
