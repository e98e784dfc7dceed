// The CPU tracer: the hot path every rank calls around layers, all-reduce units and waits.
//
// record() writes one fixed-size TraceRecord into a ring owned by the calling thread (single producer, no lock,
// published with a release store, as Tracy does). A flush thread drains the rings every millisecond into one
// pending list so that rings rarely fill; when a ring is full anyway the record is dropped and counted, never
// blocking the training loop. Names are interned ids (internName, called outside the hot path). drain() hands
// the records to the writer (RankFileWriter::flush), which sorts them before storing.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "profiler/trace_model.h"

namespace pacer::profiler {

// One event as captured: plain data, names as ids. 56 bytes, so a cache line holds one record.
struct TraceRecord {
    std::int64_t start = 0;
    std::int64_t end = 0;
    std::int64_t bytes = 0;
    std::int32_t track = 0;
    std::int32_t nameId = -1;
    std::int32_t iteration = -1;
    std::int32_t layer = -1;
    std::int32_t tensor = -1;
    std::int32_t segment = -1;
    std::int32_t priority = -1;
    EventKind kind = EventKind::Forward;
};
static_assert(sizeof(TraceRecord) == 56, "TraceRecord must stay small and fixed-size");

class CpuTracer {
public:
    // ringCapacity: records per thread between two drains (rounded up to a power of two).
    explicit CpuTracer(int rank, std::size_t ringCapacity = 1u << 16);
    ~CpuTracer();
    CpuTracer(const CpuTracer&) = delete;
    CpuTracer& operator=(const CpuTracer&) = delete;

    int rank() const { return rank_; }

    int internName(std::string_view name);            // stable id, call outside the hot path
    int addTrack(TrackKind kind, std::string name);   // returns track id (unique within the rank file)

    // Thread-safe, lock-free on the common path. Never blocks: a full ring drops and counts.
    void record(EventKind kind, int track, int nameId, std::int64_t start, std::int64_t end, int iteration,
                int layer = -1, int tensor = -1, int segment = -1, std::int64_t bytes = 0, int priority = -1);

    std::uint64_t dropped() const;

    // Everything recorded since the last drain, in no particular order.
    std::vector<TraceRecord> drain();

    std::vector<std::string> names() const;   // indexed by name id
    std::vector<Track> tracks() const;         // in id order

private:
    struct Ring;
    Ring* ringForThisThread();
    Ring* registerThread();
    void drainRingsLocked(std::vector<TraceRecord>& out);
    void flushLoop();

    const int rank_;
    const std::uint64_t id_;
    const std::size_t ringCapacity_;

    mutable std::mutex ringsMutex_;  // guards rings_ and ringByThread_, and serialises consumers
    std::vector<std::unique_ptr<Ring>> rings_;
    std::unordered_map<std::thread::id, Ring*> ringByThread_;
    std::vector<TraceRecord> pending_;  // drained by the flush thread, guarded by ringsMutex_
    std::atomic<std::uint64_t> droppedPending_{0};

    mutable std::mutex namesMutex_;
    std::unordered_map<std::string, int> nameIds_;
    std::vector<std::string> names_;
    std::vector<Track> tracks_;

    std::mutex stopMutex_;
    std::condition_variable stopCv_;
    bool stop_ = false;
    std::thread flushThread_;
};

}  // namespace pacer::profiler
