#include "engine/planning/schedule_exchange.h"

#include "pacer/config.h"

#if PACER_HAVE_NCCL
#include <cuda_runtime.h>
#endif

namespace pacer::engine {
namespace {

constexpr std::int64_t kMaxWords = std::int64_t{1} << 26;

// Broadcast from `root`; NCCL wants the bytes in GPU memory.
Status broadcastBytes(Transport& transport, void* data, std::size_t bytes, int root, bool onDevice) {
    if (!onDevice) return transport.broadcast(data, bytes, root);
#if PACER_HAVE_NCCL
    void* device = nullptr;
    if (cudaMalloc(&device, bytes) != cudaSuccess) return Status::error("cudaMalloc failed for the schedule");
    cudaMemcpy(device, data, bytes, cudaMemcpyHostToDevice);
    Status st = transport.broadcast(device, bytes, root);
    if (st.ok() && cudaMemcpy(data, device, bytes, cudaMemcpyDeviceToHost) != cudaSuccess)
        st = Status::error("cannot copy the schedule from the GPU");
    cudaFree(device);
    return st;
#else
    (void)root;
    return Status::error("this build has no NCCL");
#endif
}

// A size, then the words.
Result<std::vector<std::int64_t>> broadcastWords(Transport& transport, std::vector<std::int64_t> words, int root,
                                                 bool onDevice) {
    std::int64_t size = static_cast<std::int64_t>(words.size());
    PACER_RETURN_IF_ERROR(broadcastBytes(transport, &size, sizeof size, root, onDevice));
    if (size <= 0 || size > kMaxWords)
        return Status::error("rank " + std::to_string(root) + " sent an impossible message size");
    words.resize(static_cast<std::size_t>(size));
    PACER_RETURN_IF_ERROR(
        broadcastBytes(transport, words.data(), words.size() * sizeof(std::int64_t), root, onDevice));
    return words;
}

}  // namespace

Result<std::vector<ObservedSpan>> gatherSpans(Transport& transport, const std::vector<ObservedSpan>& mine,
                                              bool onDevice) {
    std::vector<ObservedSpan> all;
    for (int root = 0; root < transport.size(); ++root) {
        auto words = broadcastWords(transport, root == transport.rank() ? encodeSpans(mine) : std::vector<std::int64_t>{},
                                    root, onDevice);
        if (!words.ok()) return words.status();
        auto spans = decodeSpans(words.value());
        if (!spans.ok()) return Status::error("rank " + std::to_string(root) + ": " + spans.status().message());
        all.insert(all.end(), spans.value().begin(), spans.value().end());
    }
    return all;
}

Result<Schedule> shareSchedule(Transport& transport, const Schedule& schedule, const PolicyConfig& base,
                               bool onDevice) {
    auto words = broadcastWords(transport, transport.rank() == 0 ? encodeSchedule(schedule) : std::vector<std::int64_t>{},
                                0, onDevice);
    if (!words.ok()) return words.status();
    return decodeSchedule(words.value(), base);
}

}  // namespace pacer::engine
