#include "engine/transport/transport.h"

#include <cstring>

namespace pacer::engine {

Status Transport::copy(float* dst, const float* src, std::size_t count) {
    if (count > 0) std::memmove(dst, src, count * sizeof(float));
    return Status::success();
}

Result<float*> Transport::scratch(std::size_t count) {
    if (count > scratchCount_) {
        scratch_ = std::make_unique<float[]>(count);
        scratchCount_ = count;
    }
    return scratch_.get();
}

Status validate(const TransportOptions& o) {
    if (o.size < 1) return Status::error("world size must be at least 1, got " + std::to_string(o.size));
    if (o.rank < 0 || o.rank >= o.size)
        return Status::error("rank " + std::to_string(o.rank) + " is outside 0.." + std::to_string(o.size - 1));
    if (o.rendezvous_dir.empty()) return Status::error("no rendezvous directory given");
    if (o.timeout.count() <= 0) return Status::error("timeout must be positive");
    if (o.link_gbps < 0) return Status::error("link bandwidth cannot be negative");
    if (o.link_latency_us < 0) return Status::error("link latency cannot be negative");
    return Status::success();
}

}  // namespace pacer::engine
