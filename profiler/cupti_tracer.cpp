#include "profiler/cupti_tracer.h"

#include "pacer/config.h"

#if PACER_HAVE_CUPTI
#include <cuda_runtime_api.h>
#include <cupti.h>
#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <string>

#include "profiler/clock.h"
#include "profiler/cupti_records.h"

// Every CUPTI call goes through this: on failure the caller gets file:line, the call and CUPTI's own text.
#define PACER_CUPTI_CHECK(call)                                                                            \
    do {                                                                                                   \
        const CUptiResult pacer_cupti_rc_ = (call);                                                        \
        if (pacer_cupti_rc_ != CUPTI_SUCCESS) {                                                            \
            const char* pacer_cupti_msg_ = "unknown error";                                                \
            cuptiGetResultString(pacer_cupti_rc_, &pacer_cupti_msg_);                                      \
            return ::pacer::profiler::errorStatus(std::string(__FILE__) + ":" + std::to_string(__LINE__) +   \
                                                  ": " #call ": " + pacer_cupti_msg_);                     \
        }                                                                                                  \
    } while (0)
#endif

namespace pacer::profiler {

#if PACER_HAVE_CUPTI

namespace {
constexpr std::size_t kBufferBytes = 8u << 20;
constexpr std::size_t kAlign = 8;

const CUpti_ActivityKind kKinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_RUNTIME,           CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
    CUPTI_ACTIVITY_KIND_MARKER,            CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION};

struct Completed {
    std::uint8_t* buffer;
    std::size_t valid;
};
}  // namespace

struct CuptiTracer::State {
    State(int rank, int firstTrack, std::int64_t offset) : converter(rank, firstTrack, offset), offset(offset) {}
    std::mutex mutex;
    std::deque<Completed> completed;  // filled by CUPTI's callback, drained by takeEvents
    CuptiRecordConverter converter;
    std::atomic<std::uint64_t> dropped{0};
    std::int64_t offset;
    bool running = false;
};

namespace {
std::atomic<CuptiTracer::State*> gActive{nullptr};

void CUPTIAPI bufferRequested(uint8_t** buffer, size_t* size, size_t* maxNumRecords) {
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(kAlign, kBufferBytes));
    *size = *buffer ? kBufferBytes : 0;
    *maxNumRecords = 0;
}

void CUPTIAPI bufferCompleted(CUcontext context, uint32_t streamId, uint8_t* buffer, size_t, size_t validSize) {
    CuptiTracer::State* state = gActive.load(std::memory_order_acquire);
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(context, streamId, &dropped) == CUPTI_SUCCESS && state)
        state->dropped.fetch_add(dropped, std::memory_order_relaxed);
    if (!state) {
        std::free(buffer);
        return;
    }
    std::lock_guard lock(state->mutex);  // only a queue push: conversion happens in takeEvents
    state->completed.push_back(Completed{buffer, validSize});
}

// CLOCK_MONOTONIC minus CUPTI's clock, from the tightest of a few bracketed reads.
Result<std::int64_t> measureOffset() {
    std::int64_t best = 0, bestWidth = INT64_MAX;
    for (int i = 0; i < 7; ++i) {
        const std::int64_t before = nowNs();
        std::uint64_t gpu = 0;
        PACER_CUPTI_CHECK(cuptiGetTimestamp(&gpu));
        const std::int64_t after = nowNs();
        if (after - before < bestWidth) {
            bestWidth = after - before;
            best = before + (after - before) / 2 - static_cast<std::int64_t>(gpu);
        }
    }
    return best;
}

// NVTX ranges reach CUPTI only through NVTX's injection hook: the first NVTX call in the process loads the library
// that NVTX_INJECTION64_PATH names. Point it at the libcupti this process already uses, unless the user (or Nsight
// Systems, which injects itself) set it. Must run before the process's first NVTX call; the segment ranges come later.
void routeNvtxToCupti() {
    if (std::getenv("NVTX_INJECTION64_PATH")) return;
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&cuptiActivityEnable), &info) && info.dli_fname && *info.dli_fname)
        setenv("NVTX_INJECTION64_PATH", info.dli_fname, 0);
}
}  // namespace

Result<std::unique_ptr<CuptiTracer>> CuptiTracer::start(int rank, int firstTrackId) {
    int devices = 0;
    const cudaError_t rc = cudaGetDeviceCount(&devices);
    if (rc != cudaSuccess || devices == 0)
        return errorStatus(std::string("CUPTI tracer: no GPU (") + (rc != cudaSuccess ? cudaGetErrorString(rc) : "0 devices") + ")");
    PROFILER_ASSIGN_OR_RETURN(const std::int64_t offset, measureOffset());
    auto state = std::make_unique<State>(rank, firstTrackId, offset);
    State* expected = nullptr;
    if (!gActive.compare_exchange_strong(expected, state.get()))
        return errorStatus("CUPTI tracer: already running in this process (CUPTI allows one subscriber)");
    Status s = [&]() -> Status {
        routeNvtxToCupti();
        PACER_CUPTI_CHECK(cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted));
        for (CUpti_ActivityKind kind : kKinds) PACER_CUPTI_CHECK(cuptiActivityEnable(kind));
        return okStatus();
    }();
    if (!s.ok()) {
        for (CUpti_ActivityKind kind : kKinds) cuptiActivityDisable(kind);
        gActive.store(nullptr);
        return s;
    }
    state->running = true;
    return std::unique_ptr<CuptiTracer>(new CuptiTracer(std::move(state)));
}

CuptiTracer::CuptiTracer(std::unique_ptr<State> state) : state_(std::move(state)) {}

CuptiTracer::~CuptiTracer() {
    (void)stop();
    for (const Completed& c : state_->completed) std::free(c.buffer);
}

Status CuptiTracer::flush() {
    PACER_CUPTI_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
    return okStatus();
}

std::vector<TraceEvent> CuptiTracer::takeEvents() {
    std::deque<Completed> buffers;
    {
        std::lock_guard lock(state_->mutex);
        buffers.swap(state_->completed);
    }
    for (const Completed& c : buffers) {
        CUpti_Activity* record = nullptr;
        while (cuptiActivityGetNextRecord(c.buffer, c.valid, &record) == CUPTI_SUCCESS) state_->converter.add(record);
        std::free(c.buffer);
    }
    return state_->converter.takeEvents();
}

std::vector<Track> CuptiTracer::tracks() const { return state_->converter.tracks(); }
std::uint64_t CuptiTracer::dropped() const { return state_->dropped.load(); }
std::int64_t CuptiTracer::clockOffsetNs() const { return state_->offset; }

Status CuptiTracer::stop() {
    if (!state_->running) return okStatus();
    state_->running = false;
    const CUptiResult flushed = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    for (CUpti_ActivityKind kind : kKinds) cuptiActivityDisable(kind);
    gActive.store(nullptr, std::memory_order_release);
    PACER_CUPTI_CHECK(flushed);
    return okStatus();
}

#else  // !PACER_HAVE_CUPTI

struct CuptiTracer::State {};

Result<std::unique_ptr<CuptiTracer>> CuptiTracer::start(int, int) {
    return errorStatus("CUPTI tracer: this build has no CUPTI (CUDA was not found at configure time)");
}
CuptiTracer::CuptiTracer(std::unique_ptr<State> state) : state_(std::move(state)) {}
CuptiTracer::~CuptiTracer() = default;
Status CuptiTracer::flush() { return okStatus(); }
std::vector<TraceEvent> CuptiTracer::takeEvents() { return {}; }
std::vector<Track> CuptiTracer::tracks() const { return {}; }
std::uint64_t CuptiTracer::dropped() const { return 0; }
std::int64_t CuptiTracer::clockOffsetNs() const { return 0; }
Status CuptiTracer::stop() { return okStatus(); }

#endif

}  // namespace pacer::profiler
