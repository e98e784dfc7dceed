#include "engine/transport/shm_slot_stores.h"

#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace pacer::engine::shm {

namespace {

#if defined(__SSE2__)
// The first index from which to + i is 16-byte aligned, as _mm_stream_ps needs (at most 3 floats in).
std::size_t alignedFrom(const float* to, std::size_t n) {
    const std::size_t misaligned = (reinterpret_cast<std::uintptr_t>(to) / sizeof(float)) % 4;
    const std::size_t head = misaligned == 0 ? 0 : 4 - misaligned;
    return head < n ? head : n;
}
#endif

}  // namespace

void copyStreaming(float* to, const float* from, std::size_t n) {
#if defined(__SSE2__)
    std::size_t i = alignedFrom(to, n);
    std::memcpy(to, from, i * sizeof(float));
    for (; i + 4 <= n; i += 4) _mm_stream_ps(to + i, _mm_loadu_ps(from + i));
    std::memcpy(to + i, from + i, (n - i) * sizeof(float));
    _mm_sfence();
#else
    std::memcpy(to, from, n * sizeof(float));
#endif
}

void addIntoStreaming(float* sum, const float* in, std::size_t n, float* copy) {
    std::size_t i = 0;
#if defined(__SSE2__)
    for (const std::size_t head = alignedFrom(sum, n); i < head; ++i) copy[i] = sum[i] += in[i];
    for (; i + 4 <= n; i += 4) {
        const __m128 s = _mm_add_ps(_mm_load_ps(sum + i), _mm_loadu_ps(in + i));
        _mm_stream_ps(sum + i, s);
        _mm_storeu_ps(copy + i, s);
    }
#endif
    for (; i < n; ++i) copy[i] = sum[i] += in[i];
#if defined(__SSE2__)
    _mm_sfence();
#endif
}

bool SlotStoreChoice::streamingFor(std::size_t floats, bool published) {
    const bool inForce = fixed() ? setting_ == SlotStores::Streaming : published;
    if (floats < kMeasuredFloats) return inForce;
    if (!fixed() && published != lastPublished_) {
        lastPublished_ = published;
        nextExplore_ = measured_ + kRecheckAfter;
    }
    ++measured_;
    if (inForce) ++streaming_;
    if (fixed() || measured_ != nextExplore_) return inForce;
    nextExplore_ = measured_ + kExplorePeriod;
    return !inForce;
}

double SlotStoreChoice::best(int way) const {
    double least = 0;
    for (double v : recent_[way])
        if (v > 0 && (least == 0 || v < least)) least = v;
    return least;
}

bool SlotStoreChoice::record(bool streaming, std::size_t floats, std::chrono::nanoseconds took, bool published) {
    if (setting_ != SlotStores::Auto) return setting_ == SlotStores::Streaming;
    if (floats < kMeasuredFloats) return published;
    const int way = streaming ? 1 : 0;
    recent_[way][next_[way]] = std::max(1.0, static_cast<double>(took.count())) / static_cast<double>(floats);
    next_[way] = (next_[way] + 1) % kRecent;
    const double chosen = best(published ? 1 : 0), other = best(published ? 0 : 1);
    if (chosen > 0 && other > 0 && other < kSwitchBelow * chosen) return !published;
    return published;
}

}  // namespace pacer::engine::shm
