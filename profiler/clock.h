// The profiler's clock: CLOCK_MONOTONIC in int64 nanoseconds.
//
// Every process on one machine reads the same monotonic clock, so ranks started on one host need no offset;
// ranks on other hosts store their offset to the reference clock in the rank file (RankFileWriter).
#pragma once

#include <cstdint>

namespace pacer::profiler {

std::int64_t nowNs();

// CPU time of the calling thread in ns (CLOCK_THREAD_CPUTIME_ID): what a phase cost its thread, whatever else the
// machine was running meanwhile.
std::int64_t threadCpuNs();

// CLOCK_REALTIME in ns since the epoch: only to stamp when a run started, never to time events.
std::int64_t wallClockNs();

}  // namespace pacer::profiler
