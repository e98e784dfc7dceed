#include "engine/transport/transport.h"

#include "engine/transport/heartbeat.h"

#include <cstring>
#include <filesystem>

namespace pacer::engine {

Status Transport::copy(float* dst, const float* src, std::size_t count) {
    if (count > 0) std::memmove(dst, src, count * sizeof(float));
    return Status::success();
}

Status Transport::allreduceSpansOn(int channel, const std::vector<FloatSpan>& spans) {
    if (spans.size() == 1) return allreduceOn(channel, spans.front().data, spans.front().count);
    // Spans of at least inPlaceSpanFloats() are reduced where they lie, one call each, before the rest are packed:
    // copying them in and out would cost more than the call saved. Every rank cuts the same spans the same way.
    const std::size_t inPlace = inPlaceSpanFloats();
    std::vector<FloatSpan> packed;
    for (const FloatSpan& s : spans) {
        if (s.count >= inPlace) PACER_RETURN_IF_ERROR(allreduceOn(channel, s.data, s.count));
        else packed.push_back(s);
    }
    if (packed.empty()) return Status::success();
    if (packed.size() == 1) return allreduceOn(channel, packed.front().data, packed.front().count);
    return packAndReduce(channel, packed);
}

Status Transport::packAndReduce(int channel, const std::vector<FloatSpan>& spans) {
    std::size_t total = 0;
    for (const FloatSpan& s : spans) total += s.count;
    auto buffer = scratch(total, channel);
    if (!buffer.ok()) return buffer.status();
    std::size_t at = 0;
    for (const FloatSpan& s : spans) {
        PACER_RETURN_IF_ERROR(copy(*buffer + at, s.data, s.count));
        at += s.count;
    }
    PACER_RETURN_IF_ERROR(allreduceOn(channel, *buffer, total));
    at = 0;
    for (const FloatSpan& s : spans) {
        PACER_RETURN_IF_ERROR(copy(s.data, *buffer + at, s.count));
        at += s.count;
    }
    return synchronize();
}

Result<float*> Transport::scratch(std::size_t count, int channel) {
    if (channel < 0 || channel >= channels())
        return Status::error("scratch for channel " + std::to_string(channel) + " of " + std::to_string(channels()));
    std::lock_guard lock(scratchMutex_);
    if (scratch_.size() < static_cast<std::size_t>(channels())) scratch_.resize(channels());
    HostScratch& s = scratch_[channel];
    if (count > s.count) {
        s.data = std::make_unique<float[]>(count);
        s.count = count;
    }
    return s.data.get();
}

Status validate(const TransportOptions& o) {
    if (o.size < 1) return Status::error("world size must be at least 1, got " + std::to_string(o.size));
    if (o.rank < 0 || o.rank >= o.size)
        return Status::error("rank " + std::to_string(o.rank) + " is outside 0.." + std::to_string(o.size - 1));
    if (o.rendezvous_dir.empty()) return Status::error("no rendezvous directory given");
    if (o.timeout.count() <= 0) return Status::error("timeout must be positive");
    if (o.link_gbps < 0) return Status::error("link bandwidth cannot be negative");
    if (o.link_latency_us < 0) return Status::error("link latency cannot be negative");
    if (o.channels < 1 || o.channels > 16)
        return Status::error("channels must be 1..16, got " + std::to_string(o.channels));
    return Status::success();
}

Status makeRendezvousDir(const std::string& dir, int rank) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const bool created = fs::create_directories(dir, ec);
    if (ec) return Status::error("cannot create rendezvous directory " + dir + ": " + ec.message());
    if (created) fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace, ec);
    if (ec) return Status::error("cannot make rendezvous directory " + dir + " private: " + ec.message());
    if (fs::exists(Heartbeat::pathOf(dir, rank), ec))
        return Status::error("rank " + std::to_string(rank) + ": the rendezvous directory " + dir +
                             " is stale: an earlier run's rank " + std::to_string(rank) +
                             " used it. Give each run its own rendezvous directory or PACER_RUN_KEY");
    return Status::success();
}

}  // namespace pacer::engine
