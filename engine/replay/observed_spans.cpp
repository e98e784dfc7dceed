#include "engine/replay/observed_spans.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace pacer::engine::observed {

double mean(const std::vector<double>& v) {
    if (v.empty()) return 0;
    double sum = 0;
    for (double x : v) sum += x;
    return sum / static_cast<double>(v.size());
}

Status validateRun(const ObservedRun& run) {
    if (run.ranks < 1) return Status::error("observed run has " + std::to_string(run.ranks) + " ranks");
    if (run.tensors.empty()) return Status::error("observed run lists no gradient tensors");
    for (std::size_t i = 0; i < run.tensors.size(); ++i)
        if (run.tensors[i].id != static_cast<int>(i))
            return Status::error("observed run: tensor " + std::to_string(i) + " has id " +
                                 std::to_string(run.tensors[i].id) + "; ids must be 0..n-1");
    for (const ObservedSpan& s : run.spans) {
        if (s.end < s.start)
            return Status::error("observed run: a span of rank " + std::to_string(s.rank) + ", iteration " +
                                 std::to_string(s.iteration) + " ends before it starts");
        if (s.rank < 0 || s.rank >= run.ranks)
            return Status::error("observed run: span on rank " + std::to_string(s.rank) + " of " +
                                 std::to_string(run.ranks));
    }
    return Status::success();
}

int warmupIteration(const ObservedRun& run, ObservedSpan::Kind a, ObservedSpan::Kind b) {
    if (run.warmup_removed) return INT32_MIN;
    int lo = INT32_MAX, hi = INT32_MIN;
    for (const ObservedSpan& s : run.spans)
        if (s.kind == a || s.kind == b) {
            lo = std::min(lo, s.iteration);
            hi = std::max(hi, s.iteration);
        }
    return hi > lo ? lo : INT32_MIN;  // INT32_MIN: keep everything
}

CollectiveSpans lastJoinAndLeave(const ObservedRun& run, const Counted& counts) {
    CollectiveSpans spans;
    for (const ObservedSpan& s : run.spans) {
        if (s.kind != ObservedSpan::Comm || !counts(s.iteration)) continue;
        auto [it, fresh] = spans.try_emplace(CollectiveKey{s.iteration, s.tensor, s.segment, s.bytes}, s.start, s.end);
        if (!fresh) it->second = {std::max(it->second.first, s.start), std::max(it->second.second, s.end)};
    }
    return spans;
}

std::map<std::pair<int, int>, Nanos> latestBackwardEnds(const ObservedRun& run) {
    std::map<std::pair<int, int>, Nanos> ends;
    for (const ObservedSpan& s : run.spans)
        if (s.kind == ObservedSpan::Backward) {
            Nanos& e = ends[{s.iteration, s.layer}];
            e = std::max(e, s.end);
        }
    return ends;
}

int readyLayer(const ObservedRun& run, int tensor, std::int64_t bytes) {
    const auto& t = run.tensors;
    if (bytes <= static_cast<std::int64_t>(t[tensor].bytes())) return t[tensor].layer;
    for (int step : {-1, 1}) {
        std::int64_t sum = 0;
        int lowest = t[tensor].layer;
        for (int i = tensor; i >= 0 && i < static_cast<int>(t.size()) && sum < bytes; i += step) {
            sum += static_cast<std::int64_t>(t[i].bytes());
            lowest = std::min(lowest, t[i].layer);
        }
        if (sum == bytes) return lowest;
    }
    return -1;
}

std::map<int, std::vector<std::size_t>> commThreadOrder(const ObservedRun& run) {
    std::map<int, std::vector<std::size_t>> byRank;
    for (std::size_t i = 0; i < run.spans.size(); ++i)
        if (run.spans[i].kind == ObservedSpan::Comm || run.spans[i].kind == ObservedSpan::Round)
            byRank[run.spans[i].rank].push_back(i);
    for (auto& [rank, ids] : byRank)
        std::sort(ids.begin(), ids.end(), [&](std::size_t x, std::size_t y) {
            return run.spans[x].start < run.spans[y].start;
        });
    return byRank;
}

bool chosenBy(const ObservedSpan& round, const ObservedSpan& unit) {
    return round.kind == ObservedSpan::Round && unit.kind == ObservedSpan::Comm && round.iteration == unit.iteration;
}

}  // namespace pacer::engine::observed
