#include "profiler/cupti_records.h"

#if PACER_HAVE_CUPTI

#include <cupti_callbacks.h>

#include <algorithm>

#include "profiler/kernel_name.h"

namespace pacer::profiler {

CuptiRecordConverter::CuptiRecordConverter(int rank, int firstTrackId, std::int64_t gpuToMonotonicOffsetNs)
    : rank_(rank), firstTrackId_(firstTrackId), offset_(gpuToMonotonicOffsetNs) {}

int CuptiRecordConverter::track(TrackKind kind, std::uint64_t a, std::uint64_t b, const std::string& name) {
    const auto key = std::make_tuple(static_cast<int>(kind), a, b);
    auto it = trackIds_.find(key);
    if (it != trackIds_.end()) return it->second;
    Track t;
    t.id = firstTrackId_ + static_cast<int>(tracks_.size());
    t.rank = rank_;
    t.kind = kind;
    t.name = "rank " + std::to_string(rank_) + " " + name;
    tracks_.push_back(t);
    trackIds_.emplace(key, t.id);
    return t.id;
}

void CuptiRecordConverter::push(EventKind kind, int trackId, std::uint64_t start, std::uint64_t end, std::string name,
                                std::uint32_t correlation, std::int64_t bytes) {
    TraceEvent e;
    e.kind = kind;
    e.track = trackId;
    e.start = toMonotonic(start);
    e.end = toMonotonic(std::max(start, end));
    e.name = std::move(name);
    e.correlation = correlation;
    e.bytes = bytes;
    events_.push_back(std::move(e));
}

const std::string& CuptiRecordConverter::kernelName(const char* symbol) {
    auto it = kernelNames_.find(symbol);
    if (it == kernelNames_.end()) it = kernelNames_.emplace(symbol, kernelDisplayName(symbol)).first;
    return it->second;
}

bool CuptiRecordConverter::add(const CUpti_Activity* record) {
    switch (record->kind) {
        case CUPTI_ACTIVITY_KIND_KERNEL:
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
            const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
            const int t = track(TrackKind::CudaStream, k->deviceId, k->streamId,
                                "device " + std::to_string(k->deviceId) + " stream " + std::to_string(k->streamId));
            push(EventKind::Kernel, t, k->start, k->end, k->name ? kernelName(k->name) : std::string("kernel"),
                 k->correlationId, 0);
            return true;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
            const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
            const int t = track(TrackKind::CudaStream, m->deviceId, m->streamId,
                                "device " + std::to_string(m->deviceId) + " stream " + std::to_string(m->streamId));
            static const char* kCopy[] = {"Memcpy", "Memcpy HtoD", "Memcpy DtoH", "Memcpy HtoA", "Memcpy AtoH",
                                          "Memcpy AtoA", "Memcpy AtoD", "Memcpy DtoA", "Memcpy DtoD", "Memcpy HtoH",
                                          "Memcpy PtoP"};
            const char* name = m->copyKind < std::size(kCopy) ? kCopy[m->copyKind] : "Memcpy";
            push(EventKind::Memcpy, t, m->start, m->end, name, m->correlationId, static_cast<std::int64_t>(m->bytes));
            return true;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
            const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
            const int t = track(TrackKind::CudaStream, m->deviceId, m->streamId,
                                "device " + std::to_string(m->deviceId) + " stream " + std::to_string(m->streamId));
            push(EventKind::Memset, t, m->start, m->end, "Memset", m->correlationId, static_cast<std::int64_t>(m->bytes));
            return true;
        }
        case CUPTI_ACTIVITY_KIND_RUNTIME:
        case CUPTI_ACTIVITY_KIND_DRIVER: {
            const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
            const bool runtime = record->kind == CUPTI_ACTIVITY_KIND_RUNTIME;
            const int t = track(TrackKind::Other, a->threadId, 0, "CUDA API thread " + std::to_string(a->threadId));
            // CUPTI's own table names the call ("cudaLaunchKernel_v7000"); the number is the fallback.
            const char* name = nullptr;
            if (cuptiGetCallbackName(runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API, a->cbid, &name) !=
                    CUPTI_SUCCESS || !name)
                name = nullptr;
            push(EventKind::Runtime, t, a->start, a->end,
                 name ? std::string(name)
                      : std::string(runtime ? "cuda runtime " : "cuda driver ") + std::to_string(a->cbid),
                 a->correlationId, 0);
            return true;
        }
        case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
            const auto* s = reinterpret_cast<const CUpti_ActivitySynchronization2*>(record);
            static const char* kSync[] = {"sync unknown", "cudaEventSynchronize", "cudaStreamWaitEvent",
                                          "cudaStreamSynchronize", "cudaDeviceSynchronize"};
            const auto type = static_cast<std::size_t>(s->type);
            const int t = track(TrackKind::Other, 1u << 31, 0, "CUDA synchronization");
            push(EventKind::Sync, t, s->start, s->end, type < std::size(kSync) ? kSync[type] : "sync",
                 s->correlationId, 0);
            return true;
        }
        case CUPTI_ACTIVITY_KIND_MARKER: {
            const auto* m = reinterpret_cast<const CUpti_ActivityMarker2*>(record);
            if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
                const std::uint64_t thread =
                    m->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? m->objectId.pt.threadId : 0;
                const int t = track(TrackKind::Other, thread, 1, "NVTX thread " + std::to_string(thread));
                openMarkers_[m->id] = OpenMarker{m->timestamp, m->name ? m->name : "", t};
            } else if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
                auto it = openMarkers_.find(m->id);
                if (it == openMarkers_.end()) { ++ignored_; return true; }
                push(EventKind::Marker, it->second.track, it->second.start, m->timestamp, std::move(it->second.name), 0, 0);
                openMarkers_.erase(it);
            }
            return true;
        }
        case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
            const auto* x = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
            if (x->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0) externalIds_[x->correlationId] = x->externalId;
            return true;
        }
        default:
            ++ignored_;
            return false;
    }
}

std::vector<TraceEvent> CuptiRecordConverter::takeEvents() {
    for (TraceEvent& e : events_) {
        auto it = externalIds_.find(static_cast<std::uint32_t>(e.correlation));
        if (e.correlation == 0 || it == externalIds_.end()) continue;
        e.tensor = static_cast<int>(it->second >> 20);
        e.segment = static_cast<int>(it->second & 0xFFFFF);
    }
    std::vector<TraceEvent> out;
    out.swap(events_);
    std::stable_sort(out.begin(), out.end(), [](const TraceEvent& a, const TraceEvent& b) {
        return a.track != b.track ? a.track < b.track : a.start < b.start;
    });
    // Bound the map: correlation ids far behind are not seen again.
    if (externalIds_.size() > (1u << 20)) externalIds_.clear();
    return out;
}

}  // namespace pacer::profiler

#endif  // PACER_HAVE_CUPTI
