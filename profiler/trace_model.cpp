#include "profiler/trace_model.h"

#include <array>

namespace pacer::profiler {

namespace {
constexpr std::array<const char*, kEventKindCount> kEventKindNames = {
    "forward", "backward", "optimizer", "allreduce", "wait",   "iteration",
    "kernel",  "memcpy",   "memset",    "runtime",   "sync",   "marker", "agreement"};
constexpr std::array<const char*, kTrackKindCount> kTrackKindNames = {"compute", "comm", "cuda_stream", "other"};
}  // namespace

const char* eventKindName(EventKind kind) {
    const auto i = static_cast<std::size_t>(kind);
    return i < kEventKindNames.size() ? kEventKindNames[i] : "unknown";
}

std::optional<EventKind> eventKindFromName(std::string_view name) {
    for (std::size_t i = 0; i < kEventKindNames.size(); ++i)
        if (name == kEventKindNames[i]) return static_cast<EventKind>(i);
    return std::nullopt;
}

const char* trackKindName(TrackKind kind) {
    const auto i = static_cast<std::size_t>(kind);
    return i < kTrackKindNames.size() ? kTrackKindNames[i] : "unknown";
}

std::optional<TrackKind> trackKindFromName(std::string_view name) {
    for (std::size_t i = 0; i < kTrackKindNames.size(); ++i)
        if (name == kTrackKindNames[i]) return static_cast<TrackKind>(i);
    return std::nullopt;
}

}  // namespace pacer::profiler
