// The CUPTI tracer: GPU kernels (CONCURRENT_KERNEL), MEMCPY, MEMSET, RUNTIME and DRIVER calls, SYNCHRONIZATION,
// NVTX markers and external correlation through the Activity API, one per process.
//
// CUPTI hands full buffers to a callback that only queues them (callbacks stay short); takeEvents() converts the
// queued records (CuptiRecordConverter) outside CUPTI's thread. GPU timestamps are aligned to CLOCK_MONOTONIC by
// reading the CPU clock on both sides of cuptiGetTimestamp. Records CUPTI could not keep are counted (dropped()).
// Compiles on every build; without CUPTI, or without a GPU at run time, start() returns a clear error.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "profiler/status.h"
#include "profiler/trace_model.h"

namespace pacer::profiler {

class CuptiTracer {
public:
    // firstTrackId: GPU tracks are numbered from here (the CPU tracer numbers its own from 0).
    static Result<std::unique_ptr<CuptiTracer>> start(int rank, int firstTrackId = 1000);
    ~CuptiTracer();

    Status flush();                       // asks CUPTI to hand over every buffer it holds
    std::vector<TraceEvent> takeEvents();  // converted events since the last call, sorted by (track, start)
    std::vector<Track> tracks() const;
    std::uint64_t dropped() const;
    std::int64_t clockOffsetNs() const;    // CLOCK_MONOTONIC minus CUPTI's clock
    Status stop();                         // flushes and disables; also done by the destructor

    struct State;

private:
    explicit CuptiTracer(std::unique_ptr<State> state);
    std::unique_ptr<State> state_;
};

}  // namespace pacer::profiler
