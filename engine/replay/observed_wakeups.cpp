#include "engine/replay/observed_wakeups.h"

#include "engine/policy_config.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>
#include <tuple>
#include <vector>

namespace pacer::engine::observed {
namespace {

// Which collective ended each counted wait span: of the wait's rank, the one that ended last before the wait did,
// where it ended inside the wait (its end on that rank and its key).
struct WaitRelease {
    const ObservedSpan* wait;
    Nanos end;
    CollectiveKey collective;
};
std::vector<WaitRelease> waitReleases(const ObservedRun& run, const Counted& counts) {
    std::map<int, std::vector<std::pair<Nanos, CollectiveKey>>> ends;  // rank -> (end, collective), sorted
    for (const ObservedSpan& s : run.spans)
        if (s.kind == ObservedSpan::Comm)
            ends[s.rank].emplace_back(s.end, CollectiveKey{s.iteration, s.tensor, s.segment, s.bytes});
    for (auto& [rank, e] : ends) std::sort(e.begin(), e.end());
    std::vector<WaitRelease> releases;
    for (const ObservedSpan& s : run.spans) {
        if (s.kind != ObservedSpan::Wait || !counts(s.iteration)) continue;
        auto it = ends.find(s.rank);
        if (it == ends.end()) continue;
        const auto after = std::upper_bound(it->second.begin(), it->second.end(), s.end,
                                            [](Nanos t, const auto& e) { return t < e.first; });
        if (after != it->second.begin() && (after - 1)->first >= s.start)
            releases.push_back({&s, (after - 1)->first, (after - 1)->second});
    }
    return releases;
}

// Per span of the run: where a collective's comm thread got busy with it, which is the start of the agreement round
// that chose it if the run traced one (chosenBy), else the span's start.
std::vector<Nanos> busyStarts(const ObservedRun& run) {
    std::vector<Nanos> starts(run.spans.size());
    for (std::size_t i = 0; i < run.spans.size(); ++i) starts[i] = run.spans[i].start;
    for (const auto& [rank, ids] : commThreadOrder(run))
        for (std::size_t k = 1; k < ids.size(); ++k)
            if (chosenBy(run.spans[ids[k - 1]], run.spans[ids[k]])) starts[ids[k]] = run.spans[ids[k - 1]].start;
    return starts;
}

// The release gap that, capped as the simulator caps it by how long the woken compute ran before it blocked again
// (min(gap, run)), gives the samples' total: the gaps a run shows are that cap where the compute blocked soon (its
// next layer's unit not sent yet) and the whole gap where it ran on. Samples are (gap, run); a run that never
// blocked again in its iteration is unbounded. Where every gap reached its run, the longest gap.
double uncappedGap(const std::vector<std::pair<double, double>>& samples) {
    if (samples.empty()) return 0;
    double total = 0, longest = 0;
    std::vector<double> runs;
    for (const auto& [gap, run] : samples) {
        total += gap;
        longest = std::max(longest, gap);
        runs.push_back(run);
    }
    std::sort(runs.begin(), runs.end());
    // f(G) = sum of min(G, run) rises with G; between two sorted runs it is linear: the runs below G plus G for each
    // run above it.
    double below = 0;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const double above = static_cast<double>(runs.size() - i);
        const double g = (total - below) / above;  // G if it lies at or below runs[i]
        if (g <= runs[i]) return std::max(0.0, g);
        below += runs[i];
    }
    return longest;
}

}  // namespace

double resumeLatency(const ObservedRun& run, const Counted& counts) {
    std::vector<double> samples;
    for (const WaitRelease& r : waitReleases(run, counts)) samples.push_back(static_cast<double>(r.wait->end - r.end));
    return mean(samples);
}

Dispatch dispatchLatency(const ObservedRun& run, const Counted& counts) {
    const std::map<std::pair<int, int>, Nanos> backwardEnd = latestBackwardEnds(run);
    // (iteration, tensor, segment) -> latest start and end over ranks, and the layer that made the unit ready.
    struct Unit {
        Nanos start = 0, end = 0;
        int layer = -1;
        bool single = false;
    };
    std::map<std::tuple<int, int, int>, Unit> latest;
    const std::vector<Nanos> starts = busyStarts(run);
    for (std::size_t i = 0; i < run.spans.size(); ++i) {
        const ObservedSpan& s = run.spans[i];
        if (s.kind != ObservedSpan::Comm || s.tensor < 0 || s.tensor >= static_cast<int>(run.tensors.size())) continue;
        const bool single = s.bytes <= static_cast<std::int64_t>(run.tensors[s.tensor].bytes());
        auto [it, fresh] = latest.emplace(std::make_tuple(s.iteration, s.tensor, s.segment),
                                          Unit{starts[i], s.end, readyLayer(run, s.tensor, s.bytes), single});
        if (!fresh) {
            it->second.start = std::max(it->second.start, starts[i]);
            it->second.end = std::max(it->second.end, s.end);
        }
    }
    std::vector<std::tuple<Nanos, Nanos, int, int, bool>> units;  // (start, end, iteration, layer, single)
    for (const auto& [key, u] : latest) units.emplace_back(u.start, u.end, std::get<0>(key), u.layer, u.single);
    std::sort(units.begin(), units.end());
    std::vector<std::pair<int, double>> singles, fused;  // (layer that made the unit ready, latency)
    for (std::size_t i = 1; i < units.size(); ++i) {
        const auto& [start, end, iteration, layer, single] = units[i];
        if (!counts(iteration)) continue;
        if (layer < 0) continue;
        auto it = backwardEnd.find({iteration, layer});
        if (it == backwardEnd.end()) continue;
        const Nanos ready = it->second, previousEnd = std::get<1>(units[i - 1]);
        if (ready > previousEnd && start >= ready && (single || !holdsUnitsUntilATick(run.policy)))
            (single ? singles : fused).emplace_back(layer, static_cast<double>(start - ready));
    }
    const std::vector<std::pair<int, double>>& samples = singles.empty() ? fused : singles;
    std::map<int, std::vector<double>> byLayer;
    std::vector<double> all;
    for (const auto& [layer, latency] : samples) {
        byLayer[layer].push_back(latency);
        all.push_back(latency);
    }
    Dispatch d;
    d.overall = mean(all);
    for (const auto& [layer, latencies] : byLayer)
        if (latencies.size() >= kDispatchSamplesOfALayer) d.byLayer[layer] = mean(latencies);
    return d;
}

double releaseGap(const ObservedRun& run, const Counted& counts) {
    if (run.channels > 1 || holdsUnitsUntilATick(run.policy)) return 0;
    const CollectiveSpans spans = lastJoinAndLeave(run, counts);
    std::vector<Nanos> roundStarts;
    std::map<int, std::vector<Nanos>> waitStarts;  // rank -> its waits' starts, ascending
    for (const ObservedSpan& s : run.spans) {
        if (s.kind == ObservedSpan::Round) roundStarts.push_back(s.start);
        if (s.kind == ObservedSpan::Wait) waitStarts[s.rank].push_back(s.start);
    }
    std::sort(roundStarts.begin(), roundStarts.end());
    for (auto& [rank, starts] : waitStarts) std::sort(starts.begin(), starts.end());
    // Per released collective: how long the compute it woke ran before its next wait, the longest over ranks.
    constexpr double kRanOn = std::numeric_limits<double>::infinity();
    std::map<CollectiveKey, double> released;
    for (const WaitRelease& r : waitReleases(run, counts)) {
        const std::vector<Nanos>& starts = waitStarts[r.wait->rank];
        const auto next = std::upper_bound(starts.begin(), starts.end(), r.wait->end);
        const double ran = next == starts.end() ? kRanOn : static_cast<double>(*next - r.end);
        double& longest = released[r.collective];
        longest = std::max(longest, ran);
    }
    std::vector<std::pair<Nanos, CollectiveKey>> byJoin;
    for (const auto& [key, span] : spans) byJoin.emplace_back(span.first, key);
    std::sort(byJoin.begin(), byJoin.end());
    const std::map<std::pair<int, int>, Nanos> backwardEnd = latestBackwardEnds(run);
    std::vector<std::pair<double, double>> samples;  // (gap, the woken compute's run)
    for (std::size_t i = 0; i + 1 < byJoin.size(); ++i) {
        const CollectiveKey& u = byJoin[i].second;
        const auto woke = released.find(u);
        if (woke == released.end()) continue;
        const auto& [nextJoin, v] = byJoin[i + 1];
        const Nanos leave = spans.at(u).second;
        const int tensor = std::get<1>(v);
        if (tensor < 0 || tensor >= static_cast<int>(run.tensors.size())) continue;
        const auto ready = backwardEnd.find({std::get<0>(v), readyLayer(run, tensor, std::get<3>(v))});
        if (ready == backwardEnd.end() || ready->second > leave) continue;  // it waited for its gradients
        const auto round = std::lower_bound(roundStarts.begin(), roundStarts.end(), byJoin[i].first);
        if (round != roundStarts.end() && *round < nextJoin) continue;  // a round chose it: the round's own cost
        samples.emplace_back(static_cast<double>(std::max<Nanos>(0, nextJoin - leave)), woke->second);
    }
    return uncappedGap(samples);
}

HorovodTick horovodTick(const ObservedRun& run, const Counted& counts) {
    if (run.cycle_ns <= 0) return {};
    std::map<int, std::map<int, std::vector<Nanos>>> starts;  // iteration -> rank -> its rounds' starts
    for (const ObservedSpan& s : run.spans)
        if (s.kind == ObservedSpan::Round && counts(s.iteration)) starts[s.iteration][s.rank].push_back(s.start);
    std::vector<double> leads, late;
    for (auto& [iteration, ranks] : starts) {
        for (auto& [rank, v] : ranks) std::sort(v.begin(), v.end());
        const auto rank0 = ranks.find(0);
        if (rank0 == ranks.end()) continue;
        const std::vector<Nanos>& own = rank0->second;
        Nanos lastFirst = own[0], lastSecond = own.size() >= 2 ? own[1] : 0;
        for (const auto& [rank, v] : ranks) {
            lastFirst = std::max(lastFirst, v[0]);
            if (v.size() >= 2) lastSecond = std::max(lastSecond, v[1]);
        }
        if (static_cast<int>(ranks.size()) >= run.ranks) leads.push_back(static_cast<double>(lastFirst - own[0]));
        const Nanos tick = own[0] + run.cycle_ns;
        if (own.size() >= 2 && lastSecond >= tick && lastSecond - tick < run.cycle_ns)
            late.push_back(static_cast<double>(lastSecond - tick));
    }
    return {leads.empty() ? 0.0 : mean(leads), late.empty() ? 0.0 : mean(late)};
}

}  // namespace pacer::engine::observed
