// The all-reduce cost model (fitCostModel) and the CPU a collective takes from compute (fitCommCpu), fitted to an
// observed run's collectives: per-size means, a weighted line through them, the agreement rounds' cost and the comm
// thread's own gap between units (observed_run.h says what each fit reads).
#include "engine/replay/observed_spans.h"

#include "engine/collectives/collective_cpu.h"
#include "engine/median_interval.h"
#include "engine/policy_config.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace pacer::engine {
namespace {

using namespace observed;

// Per message size: (sum of ns, count).
using SizeMeans = std::map<double, std::pair<double, double>>;

template <typename Keep>
SizeMeans meansBySize(const CollectiveSpans& spans, Keep&& keep) {
    SizeMeans means;
    for (const auto& [key, span] : spans) {
        if (!keep(key)) continue;
        auto& [sum, count] = means[static_cast<double>(std::get<3>(key))];
        sum += static_cast<double>(std::max<Nanos>(0, span.second - span.first));
        count += 1;
    }
    return means;
}

// Adds to `counted` (per-size means of the counted iterations) the sizes of `warmup` below `smallestRan`, the
// smallest unit the counted iterations ran (a size they ran but left out of their means, such as one never seen alone
// among several channels, stays as their fit prices it): where they ran only large units, the warm-up's smaller
// ones are the sizes that show a collective's fixed cost. A self-tuned pace run of the transformer sample at 10 Gb/s
// ran three units of about 1 MiB: its line had no fixed cost, and fifo's 54 units (68 us each in fifo's own run,
// 67-73 us in that pace run's warm-up) were predicted from it 33% too fast.
void addSmallerSizes(SizeMeans& counted, const SizeMeans& warmup, double smallestRan) {
    if (counted.empty()) return;
    for (const auto& [bytes, v] : warmup)
        if (bytes < smallestRan) counted.emplace(bytes, v);
}
// The same with the warm-up's spans (ObservedRun::warmup_spans), as `means` reads them off a run of those alone. Only
// a warm-up that traced its rounds (Round spans, runs from 2026-12-03 on) counts: before, a unit's span held the
// round that chose it.
template <typename Means>
void addSmallerWarmupSizes(const ObservedRun& run, SizeMeans& counted, double smallestRan, Means&& means) {
    const auto isRound = [](const ObservedSpan& s) { return s.kind == ObservedSpan::Round; };
    if (counted.empty() || std::none_of(run.warmup_spans.begin(), run.warmup_spans.end(), isRound)) return;
    ObservedRun warmup;
    warmup.spans = run.warmup_spans;
    warmup.warmup_removed = true;  // every one of its iterations counts
    addSmallerSizes(counted, means(warmup), smallestRan);
}

// The collectives whose span meets another's, in one sweep by start: one overlaps an earlier one if the latest end
// before it is past its start, and a later one if the next start is before its end.
std::set<CollectiveKey> overlappingCollectives(const CollectiveSpans& spans) {
    std::vector<std::pair<std::pair<Nanos, Nanos>, CollectiveKey>> byStart;
    for (const auto& [key, span] : spans) byStart.emplace_back(span, key);
    std::sort(byStart.begin(), byStart.end());
    std::set<CollectiveKey> result;
    Nanos latestEnd = std::numeric_limits<Nanos>::min();
    for (std::size_t i = 0; i < byStart.size(); ++i) {
        const auto& [span, key] = byStart[i];
        const bool meetsEarlier = latestEnd > span.first;
        const bool meetsLater = i + 1 < byStart.size() && byStart[i + 1].first.first < span.second;
        if (meetsEarlier || meetsLater) result.insert(key);
        latestEnd = std::max(latestEnd, span.second);
    }
    return result;
}

// The link's busy stretches in a run with several channels: collectives that overlapped one another, merged,
// with the bytes they carried (bytes -> (sum of the stretches' lengths, count)). In the simulator's model of
// channels the fixed part of a collective's cost overlaps with the others' while the bytes queue on the one wire,
// so a stretch lasts about one fixed cost plus its bytes at the wire's rate: a line through them is the wire's.
SizeMeans busyStretches(const CollectiveSpans& spans) {
    std::vector<std::pair<std::pair<Nanos, Nanos>, std::int64_t>> byStart;
    for (const auto& [key, span] : spans) byStart.emplace_back(span, std::get<3>(key));
    std::sort(byStart.begin(), byStart.end());
    SizeMeans stretches;
    for (std::size_t i = 0; i < byStart.size();) {
        const Nanos start = byStart[i].first.first;
        Nanos end = byStart[i].first.second;
        std::int64_t bytes = byStart[i].second;
        std::size_t j = i + 1;
        for (; j < byStart.size() && byStart[j].first.first < end; ++j) {
            end = std::max(end, byStart[j].first.second);
            bytes += byStart[j].second;
        }
        if (j - i >= 2) {
            auto& [sum, count] = stretches[static_cast<double>(bytes)];
            sum += static_cast<double>(end - start);
            count += 1;
        }
        i = j;
    }
    return stretches;
}

// A message size far off the fitted line stays in the cost table only if it was seen at least this often.
constexpr double kTableMinCount = 3;
// A line has a fixed cost (an intercept) only where its sizes spread at least this far (the largest over the smallest);
// the riders' sizes draw a line of their own only then.
constexpr double kLineSpread = 2;
// Two sizes make a line with a fixed cost only this far apart: then the small one's mean is that cost itself, read
// rather than extrapolated (a DDP run's one bucket of 800 KB and its agreement rounds of 48 B).
constexpr double kInterceptSpread = 100;

// The line through the origin that best fits per-size mean times (weight = the size's count): all of it per byte.
CostModel throughOrigin(const std::map<double, std::pair<double, double>>& bySize) {
    double num = 0, den = 0;
    for (const auto& [x, v] : bySize) {
        num += v.second * x * (v.first / v.second);
        den += v.second * x * x;
    }
    CostModel c;
    c.alpha_ns = 0;
    c.ns_per_byte = den > 0 ? num / den : 0;
    return c;
}

// Weighted least squares over per-size mean times (weight = the size's count): each collective counts once. The fixed
// cost is read off three sizes or more that spread kLineSpread, or two that spread kInterceptSpread: two sizes fit any
// line exactly, so unless the smaller one measures the fixed cost directly, the noise of their means all lands in it,
// and it is priced into every call of a schedule with smaller units. A DDP run of the transformer (buckets of 1.0 and
// 2.4 MB, 10 Gb/s) drew 326 us a call from its times and 470 us of CPU a call, where its fifo run measured 96 and 43
// over nine sizes from 40 B: its 54 units per iteration were replayed 120% too slow. Through the origin, the bytes
// carry it all.
CostModel fitWeighted(const std::map<double, std::pair<double, double>>& bySize) {
    double sw = 0, sx = 0, sy = 0;
    for (const auto& [x, v] : bySize) {
        sw += v.second;
        sx += v.second * x;
        sy += v.first;  // = count * mean
    }
    const double mx = sx / sw, my = sy / sw;
    double sxx = 0, sxy = 0;
    for (const auto& [x, v] : bySize) {
        const double y = v.first / v.second;
        sxx += v.second * (x - mx) * (x - mx);
        sxy += v.second * (x - mx) * (y - my);
    }
    CostModel c;
    const double spread = bySize.rbegin()->first / std::max(1.0, bySize.begin()->first);
    const bool sizesShowIt =
        bySize.size() >= 3 ? spread >= kLineSpread : bySize.size() == 2 && spread >= kInterceptSpread;
    if (!sizesShowIt || sxx <= 1e-9 * std::max(1.0, mx * mx)) return throughOrigin(bySize);
    c.ns_per_byte = sxy / sxx;
    c.alpha_ns = my - c.ns_per_byte * mx;
    if (c.alpha_ns < 0) return throughOrigin(bySize);  // a negative fixed cost is noise
    if (c.ns_per_byte < 0) {
        // Larger messages came out cheaper: noise again; the fixed cost alone explains the data best.
        c.ns_per_byte = 0;
        c.alpha_ns = my;
    }
    return c;
}

// Dynamic order on CPU ranks (readiness riding on the units), runs that did not trace their rounds (tracedRounds): the
// collectives that a stand-alone agreement round chose, whose span includes that round. The runtime decides after each
// unit with the readiness its collective carried, sampled when the unit started; a unit whose gradients became ready
// later (on the last rank) could not be chosen then: the link went idle and a round of its own found it. So: each
// iteration's first collective, and every one ready only after the previous one's start. (Units whose readiness is
// unknown count as riders.)
std::set<CollectiveKey> chosenByARound(const ObservedRun& run, const CollectiveSpans& spans) {
    const std::map<std::pair<int, int>, Nanos> backwardEnd = latestBackwardEnds(run);
    std::map<int, std::vector<std::pair<Nanos, CollectiveKey>>> byIteration;
    for (const auto& [key, span] : spans) byIteration[std::get<0>(key)].emplace_back(span.first, key);
    std::set<CollectiveKey> result;
    for (auto& [iteration, units] : byIteration) {
        std::sort(units.begin(), units.end());
        result.insert(units.front().second);
        for (std::size_t i = 1; i < units.size(); ++i) {
            const auto& [start, key] = units[i];
            const int tensor = std::get<1>(key);
            if (tensor < 0 || tensor >= static_cast<int>(run.tensors.size())) continue;
            const int layer = readyLayer(run, tensor, std::get<3>(key));
            auto ready = backwardEnd.find({iteration, layer});
            if (layer >= 0 && ready != backwardEnd.end() && ready->second > units[i - 1].first) result.insert(key);
        }
    }
    return result;
}

// A run's agreement rounds as traced (ObservedSpan::Round; runs before 2026-12-03 have none): which units a round
// chose (on some rank, the comm thread's span before the unit is a round of its iteration) and what a round costs,
// each from the last rank's join to the last rank's leave (the k-th round of an iteration is one collective on
// every rank), the mean over the counted iterations.
struct TracedRounds {
    std::set<CollectiveKey> chose;
    double sum_ns = 0, count = 0;  // over the rounds; count 0: the run traced none
    double bytes = 0;              // the rounds' size (the readiness flags and clock), 0 where not recorded
    bool any() const { return count > 0; }
    double meanNs() const { return count > 0 ? sum_ns / count : 0.0; }
};

TracedRounds tracedRounds(const ObservedRun& run, const Counted& counts) {
    TracedRounds t;
    std::map<std::pair<int, int>, std::pair<Nanos, Nanos>> latest;  // (iteration, k-th round) -> latest join, leave
    for (const auto& [rank, ids] : commThreadOrder(run)) {
        std::map<int, int> roundsSoFar;  // per iteration
        for (std::size_t k = 0; k < ids.size(); ++k) {
            const ObservedSpan& s = run.spans[ids[k]];
            if (!counts(s.iteration)) continue;
            if (s.kind == ObservedSpan::Round) {
                t.bytes = std::max(t.bytes, static_cast<double>(s.bytes));
                const auto key = std::make_pair(s.iteration, roundsSoFar[s.iteration]++);
                auto [it, fresh] = latest.emplace(key, std::make_pair(s.start, s.end));
                if (!fresh) it->second = {std::max(it->second.first, s.start), std::max(it->second.second, s.end)};
            } else if (k > 0 && chosenBy(run.spans[ids[k - 1]], s)) {
                t.chose.insert({s.iteration, s.tensor, s.segment, s.bytes});
            }
        }
    }
    for (const auto& [key, span] : latest)
        t.sum_ns += static_cast<double>(std::max<Nanos>(0, span.second - span.first));
    t.count = static_cast<double>(latest.size());
    return t;
}

// One channel: the comm thread's own gap between a collective and the next one when that one was already waiting
// (its bookkeeping, the wake-up of the rank that finished last). Per iteration, by start, each collective of a
// single tensor (a whole one or a segment) not in `rounds` (chosenByARound: its unit was ready before the one ahead
// began, so the thread went straight on) counts from the latest end of the one ahead to its own latest start, where
// no rank computed meanwhile; the median, 0 when negative. A chain of 51 segments of the small MLP over shared memory
// left 200 us of its 8.3 ms in these gaps (2-4 us each), which replay without them predicted 3-5% too fast. Left out:
// gaps while some rank computed (a comm thread waiting for a core: 0.7-1 ms each in a ByteScheduler run of the CNN
// at 2.5 Gb/s, whose compute, not its chain, sets the iteration; where a reduction had just woken the compute thread,
// releaseGap measures them), and fused units (a policy may hold one back on
// purpose, Horovod's cycle, which the simulator models itself).
double unitGap(const ObservedRun& run, const CollectiveSpans& spans, const std::set<CollectiveKey>& rounds) {
    std::vector<std::pair<Nanos, Nanos>> computing;  // every rank's forward, backward and update spans, merged
    for (const ObservedSpan& s : run.spans)
        if (s.kind == ObservedSpan::Forward || s.kind == ObservedSpan::Backward || s.kind == ObservedSpan::Update)
            computing.emplace_back(s.start, s.end);
    std::sort(computing.begin(), computing.end());
    std::vector<std::pair<Nanos, Nanos>> merged;
    for (const auto& c : computing) {
        if (!merged.empty() && c.first <= merged.back().second)
            merged.back().second = std::max(merged.back().second, c.second);
        else
            merged.push_back(c);
    }
    auto someRankComputed = [&](Nanos from, Nanos to) {  // does a merged span meet (from, to)?
        const auto after =
            std::upper_bound(merged.begin(), merged.end(), std::make_pair(from, std::numeric_limits<Nanos>::max()));
        if (after != merged.begin() && std::prev(after)->second > from) return true;
        return after != merged.end() && after->first < to;
    };
    std::map<int, std::vector<std::pair<std::pair<Nanos, Nanos>, CollectiveKey>>> byIteration;
    for (const auto& [key, span] : spans) byIteration[std::get<0>(key)].emplace_back(span, key);
    std::vector<double> gaps;
    for (auto& [iteration, units] : byIteration) {
        std::sort(units.begin(), units.end());
        for (std::size_t i = 1; i < units.size(); ++i) {
            const CollectiveKey& key = units[i].second;
            const int tensor = std::get<1>(key);
            if (rounds.count(key) || tensor < 0 || tensor >= static_cast<int>(run.tensors.size()) ||
                std::get<3>(key) > static_cast<std::int64_t>(run.tensors[tensor].bytes()))
                continue;
            const Nanos from = units[i - 1].first.second, to = units[i].first.first;
            if (to > from && someRankComputed(from, to)) continue;
            gaps.push_back(static_cast<double>(to - from));
        }
    }
    // A run with no such pair (DDP's buckets each wait for the backward) shows the same bookkeeping between a traced
    // round and the unit it chose, from the round's latest end to the unit's latest start: predicted without any,
    // fifo and ByteScheduler ran 1-6% slower than replay of DDP runs made them, on every sample and link. Runs of the
    // transformer at 10 Gb/s, medians on rank 0: 2.3 (fifo), 2.8 (DDP), 2.3 us (Horovod) between a round and its
    // unit; 2.3 (fifo) and 3.9 us (ByteScheduler) between two units.
    if (gaps.empty()) {
        std::map<CollectiveKey, Nanos> roundEnd;  // a unit chosen by a round -> the round's latest end over ranks
        for (const auto& [rank, ids] : commThreadOrder(run))
            for (std::size_t k = 1; k < ids.size(); ++k) {
                const ObservedSpan& round = run.spans[ids[k - 1]];
                const ObservedSpan& unit = run.spans[ids[k]];
                if (!chosenBy(round, unit)) continue;
                Nanos& end = roundEnd[{unit.iteration, unit.tensor, unit.segment, unit.bytes}];
                end = std::max(end, round.end);
            }
        for (const auto& [key, from] : roundEnd) {
            const auto unit = spans.find(key);
            if (unit == spans.end()) continue;  // not counted
            const Nanos to = unit->second.first;
            if (to > from && someRankComputed(from, to)) continue;
            gaps.push_back(static_cast<double>(to - from));
        }
    }
    return gaps.empty() ? 0.0 : std::max(0.0, median(gaps));
}

}  // namespace

CommCpu fitCommCpu(const ObservedRun& run) {
    const std::vector<int> every;
    const Counted counts{warmupIteration(run, ObservedSpan::Comm, ObservedSpan::Comm), every};
    // Per size: the spans' CPU figures where they carry them; else a stored run's line (the worker's comm_cpu_*
    // metrics), which is known only at the run's own sizes: read there and fitted again, it gets what the fit now
    // makes of them (projects written before two sizes stopped drawing a fixed cost keep their line otherwise).
    const bool measured = std::any_of(run.spans.begin(), run.spans.end(), [&](const ObservedSpan& s) {
        return s.kind == ObservedSpan::Comm && s.cpu >= 0 && s.bytes > 0 && counts(s.iteration);
    });
    if (!measured && !run.comm_cpu.any()) return run.comm_cpu;
    SizeMeans bySize;  // bytes -> (sum of CPU ns, count)
    std::pair<double, double> rounds{0, 0};  // (sum of CPU ns, count)
    for (const ObservedSpan& s : run.spans) {
        if (!counts(s.iteration)) continue;
        if (s.kind == ObservedSpan::Comm && s.bytes > 0 && (!measured || s.cpu >= 0)) {
            auto& [sum, count] = bySize[static_cast<double>(s.bytes)];
            sum += measured ? static_cast<double>(s.cpu) : run.comm_cpu.at(static_cast<std::size_t>(s.bytes));
            count += 1;
        } else if (s.kind == ObservedSpan::Round && measured && s.cpu >= 0) {
            rounds.first += static_cast<double>(s.cpu);
            rounds.second += 1;
        }
    }
    if (bySize.empty()) return run.comm_cpu;
    const double smallestSteady = bySize.begin()->first;
    // A stored line prices the warm-up's sizes too: the worker fitted it with them (TraceBridge::commCpu), and read
    // at the steady sizes alone it would lose its fixed cost again where those lie close together.
    addSmallerWarmupSizes(run, bySize, bySize.begin()->first, [&](const ObservedRun& warmup) {
        SizeMeans cpu;
        for (const ObservedSpan& s : warmup.spans)
            if (s.kind == ObservedSpan::Comm && s.bytes > 0 && (!measured || s.cpu >= 0)) {
                auto& [sum, count] = cpu[static_cast<double>(s.bytes)];
                sum += measured ? static_cast<double>(s.cpu) : run.comm_cpu.at(static_cast<std::size_t>(s.bytes));
                count += 1;
            }
        return cpu;
    });
    // And the start-up all-reduces, where the worker fitted the line with them (a DDP run's few buckets of one size
    // keep the fixed cost those showed), as the worker weighed them.
    if (!measured && run.startup_collective_bytes > 0) {
        const double calls = kStartupCollectiveCalls;
        addSmallerSizes(bySize,
                        {{static_cast<double>(run.startup_collective_bytes),
                          {run.comm_cpu.at(run.startup_collective_bytes) * calls, calls}}},
                        smallestSteady);
    }
    if (!measured) rounds = {run.comm_cpu.round_ns, 1};
    CommCpu fit = fitCommCpu(bySize, rounds);
    if (fit.round_ns <= 0 && !run.readiness_rides_on_units && run.host_memory)  // as in fitCostModel
        fit.round_ns = fit.at(controlBlockBytes(run.tensors.size()));
    return fit;
}

CommCpu fitCommCpu(const std::map<double, std::pair<double, double>>& cpuBySize, std::pair<double, double> rounds,
                   const std::map<double, std::pair<double, double>>& warmupBySize) {
    if (cpuBySize.empty()) return {};
    SizeMeans bySize = cpuBySize;
    addSmallerSizes(bySize, warmupBySize, cpuBySize.begin()->first);
    const CostModel line = fitWeighted(bySize);  // the same line as the collectives' times
    return CommCpu{std::max(0.0, line.alpha_ns), std::max(0.0, line.ns_per_byte),
                   rounds.second > 0 ? std::max(0.0, rounds.first / rounds.second) : 0.0};
}

Result<CostModel> fitCostModel(const ObservedRun& run, const std::vector<int>& only) {
    if (Status s = validateRun(run); !s.ok()) return s;
    const Counted counts{warmupIteration(run, ObservedSpan::Comm, ObservedSpan::Comm), only};
    bool any = false;
    for (const ObservedSpan& s : run.spans) {
        if (s.kind != ObservedSpan::Comm) continue;
        if (s.bytes <= 0) return Status::error("observed run: a collective of " + std::to_string(s.bytes) + " bytes");
        any = true;
    }
    const CollectiveSpans latest = lastJoinAndLeave(run, counts);
    if (!any) return Status::error("observed run has no communication spans to fit the all-reduce cost from");
    if (latest.empty()) return Status::error("observed run has no collectives in the iterations asked for");

    // Per message size: the mean time and how many collectives had it. The mean, not the median: on a loaded
    // machine a collective now and then waits milliseconds for a core, and the iteration pays those waits too.
    SizeMeans bySize = meansBySize(latest, [](const CollectiveKey&) { return true; });
    // Collectives that overlapped another one (several channels) include the wait for its bytes: where a size has
    // collectives that ran alone, only those count (the simulator adds the queueing itself).
    // The wire's line comes from the busy stretches, and sizes never seen alone leave the table (their means hold
    // the queueing). A 4-channel run of the small MLP on an emulated 1 Gb/s link: only its 256 KiB segments ran
    // alone, its 1 KiB units took 2-3 ms behind them, and the line through all sizes came out flat, all fixed cost,
    // which the simulator overlaps across channels: replayed 10-30% too fast. Lone collectives of two sizes or more
    // do not make a better line: the lone ones are mostly small (channels are busy while the big ones go), and a
    // transformer run with two lone sizes fitted 0.53 Gb/s on a 1 Gb/s link (replayed 46% too slow; 1.6% from the
    // stretches).
    std::optional<CostModel> wireLine;
    if (run.channels > 1) {
        const std::set<CollectiveKey> overlapping = overlappingCollectives(latest);
        const SizeMeans alone = meansBySize(latest, [&](const CollectiveKey& k) { return !overlapping.count(k); });
        for (const auto& [bytes, v] : alone) bySize[bytes] = v;
        if (const SizeMeans stretches = busyStretches(latest); !stretches.empty()) {
            wireLine = fitWeighted(stretches);
            // Channels busy all iteration long merge into one stretch per iteration, all of about the same bytes:
            // no slope to read off them (a CNN run on 4 channels at 1 Gb/s came out flat, 15.6 ms a call and 0 ns/B,
            // and was replayed 28% too fast). Then each stretch is the wire carrying its bytes: through the origin.
            if (wireLine->ns_per_byte <= 0) wireLine = throughOrigin(stretches);
            std::erase_if(bySize, [&](const auto& entry) { return !alone.count(entry.first); });
        }
    }
    // Dynamic order on CPU ranks: the cost of a stand-alone agreement round, CostModel::first_unit_extra_ns, which
    // the simulator charges to every round, and which units a round chose. A run that traced its rounds
    // (tracedRounds) gives both directly, and each unit's span is its collective alone. In a run traced before
    // (2026-12-03) a unit chosen by a round includes that round, and both are inferred: where units that rode on the
    // one before them were seen, the table and line come from those, and what the others cost beyond them (at their
    // sizes, by those riders' table) is the round's cost. (A run without riders, e.g. DDP's buckets, each chosen by
    // a round, keeps every unit in its table and no separate round cost.)
    // One channel: which units came by a round of their own (or, in plan order, were ready only after the one
    // before them began); the rest followed the one before them directly. Read once, for the round's cost and for
    // the comm thread's gap below.
    const TracedRounds traced = tracedRounds(run, counts);
    const std::set<CollectiveKey> rounds = run.channels != 1 ? std::set<CollectiveKey>{}
                                           : traced.any()    ? traced.chose
                                                             : chosenByARound(run, latest);
    double roundCost = traced.meanNs();
    if (!traced.any() && run.readiness_rides_on_units && run.channels == 1) {
        SizeMeans riders = meansBySize(latest, [&](const CollectiveKey& k) { return rounds.count(k) == 0; });
        // A size that rode once or twice in a run says little: a BytesScheduler run of the small MLP whose 514 KiB
        // partition rode twice, both times descheduled (8 ms against its usual 2), drew the riders' line at 1 Gb/s
        // on a 2.5 Gb/s link (replayed 121% too slow). As in the table (kTableMinCount), such sizes keep their own
        // means. (An estimate from one or two iterations, for the band, keeps what it saw.)
        std::set<int> iterations;
        for (const auto& [key, span] : latest) iterations.insert(std::get<0>(key));
        const double fewest = std::min(kTableMinCount, static_cast<double>(iterations.size()));
        std::erase_if(riders, [&](const auto& entry) { return entry.second.second < fewest; });
        if (!riders.empty()) {
            CostModel byRiders = fitWeighted(riders);
            for (const auto& [x, v] : riders) byRiders.measured.emplace_back(x, v.first / v.second);
            // A line needs two sizes: through riders of one size it goes through the origin and prices every other
            // size by that one (a self-tuned CNN run whose riders were all 148 KiB priced its 1 MiB segments at
            // 12.6 ms, three times their time, and was replayed 53% too slow). Then the round is measured at the
            // riders' size only, and sizes no unit rode at keep their own means less the round.
            // Nor do sizes that lie close together make a line: two sizes 4% apart (a 257 KiB and a 267 KiB
            // partition) gave a slope of 0 and all of the cost fixed (replayed 11% too fast).
            const bool line = riders.size() >= 2 && riders.rbegin()->first >= kLineSpread * riders.begin()->first;
            double sum = 0, count = 0;
            for (const CollectiveKey& k : rounds) {
                const double bytes = static_cast<double>(std::get<3>(k));
                if (!line && !riders.count(bytes)) continue;
                const auto& span = latest.at(k);
                sum += static_cast<double>(span.second - span.first) -
                       static_cast<double>(byRiders.at(static_cast<std::size_t>(bytes)));
                count += 1;
            }
            if (count > 0) roundCost = std::max(0.0, sum / count);
            if (line) {
                bySize = riders;
            } else {
                for (auto& [bytes, v] : bySize)
                    v = riders.count(bytes) ? riders.at(bytes)
                                            : std::make_pair(std::max(0.0, v.first - roundCost * v.second), v.second);
            }
        }
    }
    double smallestRan = std::numeric_limits<double>::max();
    for (const auto& [key, span] : latest) smallestRan = std::min(smallestRan, static_cast<double>(std::get<3>(key)));
    addSmallerWarmupSizes(run, bySize, smallestRan, [](const ObservedRun& warmup) {
        const std::vector<int> every;
        const auto all = [](const CollectiveKey&) { return true; };
        return meansBySize(lastJoinAndLeave(warmup, Counted{INT32_MIN, every}), all);
    });
    // A traced round is a collective of its own size over the same transport: one more size for the table and line.
    // It matters where the units show too few sizes for a fixed cost (fitWeighted): a DDP run's two or three bucket
    // sizes drew a line through the origin, and replay priced the many small units of fifo 7-24% too fast from it.
    if (traced.any() && traced.bytes > 0) {
        auto& [sum, count] = bySize[traced.bytes];
        sum += traced.sum_ns;
        count += traced.count;
    }
    CostModel c = bySize.empty() && wireLine ? *wireLine : fitWeighted(bySize);
    // The line (used between and beyond the measured sizes, and for the lower bound): one pass drops sizes whose
    // mean is far off it in absolute terms (4 median absolute deviations) and relative ones (50% of the
    // prediction: scheduling noise alone moves the means of small sizes a lot), then refits: a lone page fault at
    // an odd size must not bend the line.
    SizeMeans table = bySize;
    if (bySize.size() >= 4) {
        std::vector<double> residuals;
        for (const auto& [x, v] : bySize)
            residuals.push_back(std::abs(v.first / v.second - static_cast<double>(c.at(static_cast<std::size_t>(x)))));
        const double mad = median(residuals);
        SizeMeans kept;
        std::size_t i = 0;
        for (const auto& [x, v] : bySize) {
            const double predicted = static_cast<double>(c.at(static_cast<std::size_t>(x)));
            if (residuals[i++] <= std::max(4 * mad, 0.5 * predicted)) kept.emplace(x, v);
            // The table keeps a size far off the line if it was seen a few times: a small collective during
            // backward that waits for a core (1-3 ms here, against the line's 1) costs what it cost.
            else if (v.second < kTableMinCount) table.erase(x);
        }
        if (kept.size() >= 2 && kept.size() < bySize.size()) c = fitWeighted(kept);
    }
    if (wireLine) {
        c.alpha_ns = std::max(0.0, wireLine->alpha_ns);
        c.ns_per_byte = std::max(0.0, wireLine->ns_per_byte);
    }
    for (const auto& [x, v] : table) c.measured.emplace_back(x, v.first / v.second);
    // A run on CPU ranks that decided without rounds (plan order) never measured one, yet another policy replayed
    // from it runs in dynamic order, a round before each of DDP's buckets: priced at zero, a DDP run of the small MLP
    // at 10 Gb/s was predicted 14-29% too fast from a self-tuned pace run. A round is one collective of the control
    // block (controlBlockBytes), priced as the fit prices that size: 68 us there, where DDP's own run of the same job
    // measured 68. Its CPU likewise (fitCommCpu). Predicting fifo, ddp, horovod and bytescheduler from pace runs of
    // the three small samples at 1, 2.5 and 10 Gb/s (36 cases): 29 too fast, mean -3.2%, worst 19% -> 13 too fast,
    // mean +1.1%, worst 12.9%.
    if (!traced.any() && !run.readiness_rides_on_units && run.host_memory)
        roundCost = c.at(controlBlockBytes(run.tensors.size()));
    c.first_unit_extra_ns = roundCost;  // after the line's refit, which builds a new model
    if (run.channels == 1) c.unit_gap_ns = unitGap(run, latest, rounds);
    return c;
}

}  // namespace pacer::engine
