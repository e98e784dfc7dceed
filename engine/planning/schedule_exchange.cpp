#include "engine/planning/schedule_exchange.h"

namespace pacer::engine {
namespace {

constexpr std::int64_t kMaxWords = std::int64_t{1} << 26;

// Broadcast from `root`. The bytes stay in host memory on every transport: the NCCL transport stages a
// broadcast through device memory itself (a device copy made here had it copy "host to device" from a device
// pointer).
Status broadcastBytes(Transport& transport, void* data, std::size_t bytes, int root) {
    return transport.broadcast(data, bytes, root);
}

// A size, then the words.
Result<std::vector<std::int64_t>> broadcastWords(Transport& transport, std::vector<std::int64_t> words, int root) {
    std::int64_t size = static_cast<std::int64_t>(words.size());
    PACER_RETURN_IF_ERROR(broadcastBytes(transport, &size, sizeof size, root));
    if (size <= 0 || size > kMaxWords)
        return Status::error("rank " + std::to_string(root) + " sent an impossible message size");
    words.resize(static_cast<std::size_t>(size));
    PACER_RETURN_IF_ERROR(
        broadcastBytes(transport, words.data(), words.size() * sizeof(std::int64_t), root));
    return words;
}

}  // namespace

Result<std::vector<ObservedSpan>> gatherSpans(Transport& transport, const std::vector<ObservedSpan>& mine) {
    std::vector<ObservedSpan> all;
    for (int root = 0; root < transport.size(); ++root) {
        auto words = broadcastWords(transport, root == transport.rank() ? encodeSpans(mine) : std::vector<std::int64_t>{},
                                    root);
        if (!words.ok()) return words.status();
        auto spans = decodeSpans(words.value());
        if (!spans.ok()) return Status::error("rank " + std::to_string(root) + ": " + spans.status().message());
        all.insert(all.end(), spans.value().begin(), spans.value().end());
    }
    return all;
}

Result<Schedule> shareSchedule(Transport& transport, const Schedule& schedule, const PolicyConfig& base) {
    auto words = broadcastWords(transport, transport.rank() == 0 ? encodeSchedule(schedule) : std::vector<std::int64_t>{},
                                0);
    if (!words.ok()) return words.status();
    return decodeSchedule(words.value(), base);
}

}  // namespace pacer::engine
