// Conversion of CUPTI activity records (CUDA 13.0 structs: CUpti_ActivityKernel10, Memcpy6, Memset4, API,
// Synchronization2, Marker2, ExternalCorrelation) into trace events and tracks.
//
// Kept apart from the tracer so that it runs on the CPU in tests with records built in memory. GPU times are
// moved onto CLOCK_MONOTONIC by the offset the tracer measured. NVTX ranges arrive as start and end records and
// are paired by id. External correlation: Pacer's engine pushes CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0 with id
// `encodeSegmentId(tensor, segment)` around each segment's launch, so the NCCL kernel of a segment carries its
// tensor and segment.
#pragma once

#include "pacer/config.h"

#if PACER_HAVE_CUPTI

#include <cupti_activity.h>

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "profiler/trace_model.h"

namespace pacer::profiler {

inline std::uint64_t encodeSegmentId(int tensor, int segment) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(tensor)) << 20) | (static_cast<std::uint32_t>(segment) & 0xFFFFF);
}

class CuptiRecordConverter {
public:
    // Tracks get ids from firstTrackId up, so they do not collide with the CPU tracer's tracks of the same rank.
    CuptiRecordConverter(int rank, int firstTrackId, std::int64_t gpuToMonotonicOffsetNs);

    // Converts one record; returns false for kinds it does not handle (they are counted in ignored()).
    bool add(const CUpti_Activity* record);

    // Events converted so far, sorted by (track, start). Marker starts without their end stay pending.
    std::vector<TraceEvent> takeEvents();
    const std::vector<Track>& tracks() const { return tracks_; }
    std::uint64_t ignored() const { return ignored_; }

private:
    int track(TrackKind kind, std::uint64_t a, std::uint64_t b, const std::string& name);
    std::int64_t toMonotonic(std::uint64_t gpuNs) const { return static_cast<std::int64_t>(gpuNs) + offset_; }
    void push(EventKind kind, int track, std::uint64_t start, std::uint64_t end, std::string name,
              std::uint32_t correlation, std::int64_t bytes);

    const int rank_;
    const int firstTrackId_;
    const std::int64_t offset_;
    std::vector<Track> tracks_;
    std::map<std::tuple<int, std::uint64_t, std::uint64_t>, int> trackIds_;
    std::vector<TraceEvent> events_;
    struct OpenMarker { std::uint64_t start; std::string name; int track; };
    std::unordered_map<std::uint32_t, OpenMarker> openMarkers_;
    std::unordered_map<std::uint32_t, std::uint64_t> externalIds_;  // CUPTI correlation id -> Pacer segment id
    // Kernel names as shown, by CUPTI's name pointer: CUPTI shares one string among all records of a kernel, and a
    // GPU iteration launches hundreds, each of which would otherwise be demangled again.
    std::unordered_map<const char*, std::string> kernelNames_;
    const std::string& kernelName(const char* symbol);
    std::uint64_t ignored_ = 0;
};

}  // namespace pacer::profiler

#endif  // PACER_HAVE_CUPTI
