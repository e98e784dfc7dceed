// What one all-reduce costs the calling thread in CPU, measured on the ranks before training starts.
//
// Why: on CPU ranks with every core busy, a collective's CPU comes out of compute, and replay prices it by a line in
// the message size fitted over the run's own collectives (fitCommCpu). A line's fixed cost shows only where the sizes
// lie far apart; a DDP run's units are a few buckets of about one size (the transformer sample: 1.06 and 2.39 MB),
// its line went through the origin, and the 54 small collectives of fifo predicted from it took ~2 ms less CPU from
// compute than fifo's own run showed (predicted 7-9% too fast at 10 Gb/s). Small all-reduces timed at start-up give
// every run a point at the small end (TraceBridge::addStartupCollectives); they join a run's line only below the
// sizes the run itself sent.
#pragma once

#include "engine/status.h"
#include "engine/transport/transport.h"

#include <cstddef>

namespace pacer::engine {

struct CollectiveCpu {
    std::size_t bytes = 0;
    double cpu_ns = 0;  // the median over the calls, of the calling thread's CPU time
    int calls = 0;
};

// The size and the number of calls the workers time at start-up: 4 KiB, among the smallest units a policy sends
// (single bias and norm tensors, fused groups), 16 calls.
inline constexpr std::size_t kStartupCollectiveBytes = 4096;
inline constexpr int kStartupCollectiveCalls = 16;

// Times `calls` all-reduces of `bytes` on channel 0 by the calling thread's CPU clock (CLOCK_THREAD_CPUTIME_ID). A
// collective call: every rank makes it at the same point. Each timed call follows an untimed one of one float, so
// that the ranks start it together (a rank that waits for a late peer would count its spin as the call's CPU).
Result<CollectiveCpu> measureCollectiveCpu(Transport& transport, std::size_t bytes, int calls);

}  // namespace pacer::engine
