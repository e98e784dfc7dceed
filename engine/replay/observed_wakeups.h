// How long the threads of a run took to react, read off its spans: the compute resuming after a reduction, the comm
// thread starting a unit once its gradients were ready, the next unit waiting while a woken compute thread held the
// core, Horovod's tick. The workload carries them (Workload::resume_ns and the rest) and the simulator charges them.
// Internal to engine/replay (observed_run.cpp's extraction reads them).
#pragma once

#include "engine/replay/observed_spans.h"

#include <cstddef>
#include <map>

namespace pacer::engine::observed {

// How long after a collective ends the compute stream that waited for it goes on: per wait span that a collective
// of its rank ended (waitReleases), the wait's end minus that end; the mean over the counted iterations (an iteration
// set aside as an outlier, where a thread lost its core for 100 ms, must not set every wake-up of the replay).
double resumeLatency(const ObservedRun& run, const Counted& counts);

// How long after a unit is ready on every rank its collective starts, when the link was idle: the latest rank's start
// of the collective (of the round that chose it, busyStarts) minus the latest end of the backward that made it ready,
// for collectives that found the link idle (the previous collective had ended before the unit was ready); the mean.
// Single-tensor collectives are preferred; fused ones are sampled only when there are none (a DDP run: every bucket is
// fused), and never from a Horovod run, which holds each of them until its cycle's tick (the simulator models the hold
// by itself): there the time from a gradient to its unit was 240-390 us against 10-30 us of wake-up in fifo runs. (0
// where there are none.) Beside it the mean per layer that made the unit ready, for the layers with
// kDispatchSamplesOfALayer samples or more (Workload::dispatch_by_layer_ns says why).
constexpr std::size_t kDispatchSamplesOfALayer = 4;
struct Dispatch {
    double overall = 0;
    std::map<int, double> byLayer;  // the layers that gave enough samples
};
Dispatch dispatchLatency(const ObservedRun& run, const Counted& counts);

// How long the comm thread's next collective waits after one that ended a compute wait (Workload::release_gap_ns):
// the woken compute thread takes the core until it blocks again or the scheduler hands the core back. Of each
// collective that ended a wait (waitReleases), the next one by the last rank's join counts where its unit was ready
// on every rank by the released one's last leave and no agreement round came between: its last join minus that last
// leave, with how long the woken compute then ran before its next wait (the longest over the ranks that waited;
// unbounded when it never waited again). The gap is read uncapped (uncappedGap) over the counted
// iterations; 0 with channels (their units overlap), in a Horovod run (its units wait for their tick) or where no
// such pair occurs.
double releaseGap(const ObservedRun& run, const Counted& counts);

// Horovod's tick, as the runtime keeps it: the policy counts its cycle from rank 0's entry into the iteration's
// first round (the first gradient's news; rank 0's clock rides in it) and holds what that round heard until the tick
// a cycle later, whose round is every rank's next. Two figures, per counted iteration and then their means; 0
// without a cycle:
// - anchor_lead (Workload::tick_anchor_lead_ns): how far before the last rank rank 0 entered the first round.
//   The simulator's first round is the last rank's, and began the cycle there.
// - late (Workload::timer_wake_ns): how long after the tick the tick's round began, at the last rank's join (where
//   under a cycle; otherwise the round was not the tick's).
// Taken from rank 0's rounds alone, with the cycle begun at the last rank's first round (until 2026-12-05): the small
// MLP at 10 Gb/s began its tick's round 39-43 us late, and the runs replayed as themselves came within 1.1%; the last
// rank's join (rank 1 turns the tick into its clock by an estimated offset and joined 80-90 us later still) made them
// 2.5-5.1% too slow, for want of the anchor's lead: rank 0's backward runs ahead of the last rank's (0-1.0 ms),
// and its cycle with it. Both together, 96 Horovod runs of five grids replayed as themselves (2026-12-05): worst
// error 3.81 -> 2.14%, median 0.35 -> 0.33%, inside their band 70 -> 75.
struct HorovodTick {
    double anchor_lead_ns = 0;
    double late_ns = 0;
};
HorovodTick horovodTick(const ObservedRun& run, const Counted& counts);

}  // namespace pacer::engine::observed
