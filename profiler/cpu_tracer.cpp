#include "profiler/cpu_tracer.h"

#include <bit>
#include <chrono>

namespace pacer::profiler {

namespace {
// Pending records beyond this are dropped: a tracer nobody flushes must not eat all memory.
constexpr std::size_t kMaxPending = std::size_t{1} << 25;  // 32 M records, 1.75 GiB
constexpr auto kFlushPeriod = std::chrono::milliseconds(1);

std::atomic<std::uint64_t> nextTracerId{1};

// The calling thread's ring for the tracer it used last; a thread that alternates tracers takes the slow path.
struct ThreadCache {
    std::uint64_t tracerId = 0;
    void* ring = nullptr;
};
thread_local ThreadCache tlsCache;
}  // namespace

// Single-producer (the owning thread), single-consumer (whoever holds ringsMutex_) ring.
struct CpuTracer::Ring {
    explicit Ring(std::size_t capacity) : slots(capacity), mask(capacity - 1) {}
    std::vector<TraceRecord> slots;
    const std::size_t mask;
    alignas(64) std::atomic<std::uint64_t> head{0};  // written by the producer
    alignas(64) std::atomic<std::uint64_t> tail{0};  // written by the consumer
    alignas(64) std::atomic<std::uint64_t> dropped{0};
};

CpuTracer::CpuTracer(int rank, std::size_t ringCapacity)
    : rank_(rank),
      id_(nextTracerId.fetch_add(1)),
      ringCapacity_(std::bit_ceil(std::max<std::size_t>(ringCapacity, 16))) {
    flushThread_ = std::thread([this] { flushLoop(); });
}

CpuTracer::~CpuTracer() {
    {
        std::lock_guard lock(stopMutex_);
        stop_ = true;
    }
    stopCv_.notify_all();
    flushThread_.join();
}

int CpuTracer::internName(std::string_view name) {
    std::lock_guard lock(namesMutex_);
    auto [it, inserted] = nameIds_.try_emplace(std::string(name), static_cast<int>(names_.size()));
    if (inserted) names_.emplace_back(name);
    return it->second;
}

int CpuTracer::addTrack(TrackKind kind, std::string name) {
    std::lock_guard lock(namesMutex_);
    Track t;
    t.id = static_cast<int>(tracks_.size());
    t.rank = rank_;
    t.kind = kind;
    t.name = std::move(name);
    tracks_.push_back(std::move(t));
    return tracks_.back().id;
}

CpuTracer::Ring* CpuTracer::ringForThisThread() {
    if (tlsCache.tracerId == id_) [[likely]]
        return static_cast<Ring*>(tlsCache.ring);
    return registerThread();
}

CpuTracer::Ring* CpuTracer::registerThread() {
    std::lock_guard lock(ringsMutex_);
    Ring*& ring = ringByThread_[std::this_thread::get_id()];
    if (!ring) {
        rings_.push_back(std::make_unique<Ring>(ringCapacity_));
        ring = rings_.back().get();
    }
    tlsCache.tracerId = id_;
    tlsCache.ring = ring;
    return ring;
}

void CpuTracer::record(EventKind kind, int track, int nameId, std::int64_t start, std::int64_t end, int iteration,
                       int layer, int tensor, int segment, std::int64_t bytes, int priority) {
    Ring* ring = ringForThisThread();
    const std::uint64_t head = ring->head.load(std::memory_order_relaxed);
    if (head - ring->tail.load(std::memory_order_acquire) > ring->mask) {
        ring->dropped.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    TraceRecord& r = ring->slots[head & ring->mask];
    r.start = start;
    r.end = end;
    r.bytes = bytes;
    r.track = track;
    r.nameId = nameId;
    r.iteration = iteration;
    r.layer = layer;
    r.tensor = tensor;
    r.segment = segment;
    r.priority = priority;
    r.kind = kind;
    ring->head.store(head + 1, std::memory_order_release);
}

std::uint64_t CpuTracer::dropped() const {
    std::lock_guard lock(ringsMutex_);
    std::uint64_t n = droppedPending_.load(std::memory_order_relaxed);
    for (const auto& ring : rings_) n += ring->dropped.load(std::memory_order_relaxed);
    return n;
}

void CpuTracer::drainRingsLocked(std::vector<TraceRecord>& out) {
    for (const auto& ring : rings_) {
        const std::uint64_t tail = ring->tail.load(std::memory_order_relaxed);
        const std::uint64_t head = ring->head.load(std::memory_order_acquire);
        for (std::uint64_t i = tail; i != head; ++i) {
            if (out.size() >= kMaxPending) {
                droppedPending_.fetch_add(head - i, std::memory_order_relaxed);
                break;
            }
            out.push_back(ring->slots[i & ring->mask]);
        }
        ring->tail.store(head, std::memory_order_release);
    }
}

std::vector<TraceRecord> CpuTracer::drain() {
    std::lock_guard lock(ringsMutex_);
    drainRingsLocked(pending_);
    std::vector<TraceRecord> out;
    out.swap(pending_);
    return out;
}

std::vector<std::string> CpuTracer::names() const {
    std::lock_guard lock(namesMutex_);
    return names_;
}

std::vector<Track> CpuTracer::tracks() const {
    std::lock_guard lock(namesMutex_);
    return tracks_;
}

void CpuTracer::flushLoop() {
    std::unique_lock stopLock(stopMutex_);
    while (!stopCv_.wait_for(stopLock, kFlushPeriod, [this] { return stop_; })) {
        std::lock_guard lock(ringsMutex_);
        drainRingsLocked(pending_);
    }
}

}  // namespace pacer::profiler
