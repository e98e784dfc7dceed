// The in-memory trace model: what the store reads back and what every view draws.
//
// A run is a set of ranks; each rank has tracks (lanes): its compute thread, its communication thread, and on
// GPUs one track per CUDA stream. Events are spans with int64 nanosecond start/end on one common clock
// (rank clocks are aligned by the offset stored per rank when merging).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pacer::profiler {

enum class EventKind : std::uint8_t {
    Forward,     // one layer's forward on the compute track
    Backward,    // one layer's backward
    Optimizer,   // parameter update of one tensor (or all, under DDP)
    AllReduce,   // one communication unit (segment or fused buffer) on the comm track
    Wait,        // compute waiting for a reduction (exposed communication)
    Iteration,   // a whole training iteration (the marker PyTorch calls ProfilerStep#)
    Kernel,      // CUPTI: a GPU kernel (NCCL kernels included)
    Memcpy,
    Memset,
    Runtime,     // CUPTI: a CUDA runtime/driver API call
    Sync,
    Marker,      // NVTX range or imported user annotation
    Agreement,   // on the comm track: a stand-alone round in which the ranks agree which unit goes next (dynamic order)
};

inline constexpr int kEventKindCount = 13;

// Layer numbers index per-layer tables in replay: a trace claiming layer 2^31 would make it allocate gigabytes
// (or overflow layer + 1). No model has anywhere near this many layers; the store refuses more.
inline constexpr int kMaxLayer = 65535;

// Stable lower-case names ("forward", "allreduce", "kernel", ...): stored in Chrome exports' "cat" field.
const char* eventKindName(EventKind kind);
std::optional<EventKind> eventKindFromName(std::string_view name);

enum class TrackKind : std::uint8_t { Compute, Comm, CudaStream, Other };
inline constexpr int kTrackKindCount = 4;

const char* trackKindName(TrackKind kind);  // "compute", "comm", "cuda_stream", "other"
std::optional<TrackKind> trackKindFromName(std::string_view name);

struct Track {
    int id = 0;          // unique within a run
    int rank = 0;
    TrackKind kind = TrackKind::Compute;
    std::string name;    // "rank 0 compute", "rank 0 comm", "rank 0 stream 7"
};

// Tracks whose name ends so carry the replay input an importer extracted from a framework's trace (the events
// in Pacer's own vocabulary: layers, tensors, buckets); replay reads a run that has them from them alone.
inline constexpr std::string_view kReplayInputTrackSuffix = " replay input";
inline bool isReplayInputTrack(const Track& track) {
    return track.name.size() >= kReplayInputTrackSuffix.size() &&
           track.name.compare(track.name.size() - kReplayInputTrackSuffix.size(), kReplayInputTrackSuffix.size(),
                              kReplayInputTrackSuffix) == 0;
}

struct TraceEvent {
    std::int64_t start = 0;  // ns
    std::int64_t end = 0;    // ns
    EventKind kind = EventKind::Forward;
    int track = 0;
    int iteration = -1;
    int layer = -1;          // forward/backward/optimizer
    int tensor = -1;         // first tensor of an all-reduce unit, or the tensor updated
    int segment = -1;
    std::int64_t bytes = 0;  // all-reduce unit size
    int priority = -1;
    std::string name;        // layer name, "allreduce fc1.weight[2]", kernel name, ...
    std::int64_t correlation = 0;  // CUPTI correlation id (GPU activity and the API call that launched it)
};

struct TensorRecord {
    int id = 0;
    std::string name;
    int layer = 0;
    std::int64_t elements = 0;
};

struct RunTrace {
    std::int64_t run_id = 0;
    std::string label;      // user-visible run name
    std::string policy;     // the policy it ran with
    std::int64_t segment_bytes = 0;
    int ranks = 0;
    int iterations = 0;
    std::vector<Track> tracks;
    std::vector<TensorRecord> tensors;
    std::vector<TraceEvent> events;  // sorted by (track, start)
};

}  // namespace pacer::profiler
