#include "engine/replay/observed_run.h"

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

// The first iteration seen, left out of the medians when there are later ones (unless the warm-up is gone already).
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

// Whether an iteration counts in an extraction: not the warm-up one, and among `only` when that is given.
struct Counted {
    int warmup;
    const std::vector<int>& only;  // sorted; empty = every iteration
    bool operator()(int iteration) const {
        return iteration != warmup && (only.empty() || std::binary_search(only.begin(), only.end(), iteration));
    }
};

// What each rank's collectives took from its compute (Workload::comm_cpu): a collective's CPU work begins when the
// last rank has joined it (before that its thread sleeps in a barrier) and is spread evenly up to its end on this
// rank; a stand-alone round's over its span (CommCpu::round_ns). Ranks share the cores alike, so a rank's compute
// is charged with its own collectives' CPU.
class CpuTakenFromCompute {
public:
    CpuTakenFromCompute(const ObservedRun& run, const CommCpu& model) {
        if (!model.any()) return;
        std::map<std::tuple<int, int, int, std::int64_t>, Nanos> lastJoin;
        for (const ObservedSpan& s : run.spans)
            if (s.kind == ObservedSpan::Comm) {
                Nanos& join = lastJoin[{s.iteration, s.tensor, s.segment, s.bytes}];
                join = std::max(join, s.start);
            }
        for (const ObservedSpan& s : run.spans) {
            if (s.kind == ObservedSpan::Round && s.end > s.start && model.round_ns > 0) {
                Rank& r = ranks_[s.rank];
                r.uses.push_back({s.start, s.end, model.roundDensity(s.end - s.start)});
                r.longest = std::max(r.longest, s.end - s.start);
            }
            if (s.kind != ObservedSpan::Comm) continue;
            const Nanos from = std::max(s.start, lastJoin[{s.iteration, s.tensor, s.segment, s.bytes}]);
            if (s.end <= from) continue;
            Rank& r = ranks_[s.rank];
            r.uses.push_back({from, s.end, model.density(static_cast<std::size_t>(std::max<std::int64_t>(0, s.bytes)),
                                                         s.end - from)});
            r.longest = std::max(r.longest, s.end - from);
        }
        for (auto& [rank, r] : ranks_)
            std::sort(r.uses.begin(), r.uses.end(), [](const Use& a, const Use& b) { return a.start < b.start; });
    }

    // CPU rank `rank`'s collectives took within [a, b).
    double during(int rank, Nanos a, Nanos b) const {
        auto it = ranks_.find(rank);
        if (it == ranks_.end() || b <= a) return 0;
        const Rank& r = it->second;
        auto i = std::lower_bound(r.uses.begin(), r.uses.end(), a - r.longest,
                                  [](const Use& u, Nanos t) { return u.start < t; });
        double sum = 0;
        for (; i != r.uses.end() && i->start < b; ++i) {
            const Nanos s = std::max(a, i->start), e = std::min(b, i->end);
            if (e > s) sum += i->density * static_cast<double>(e - s);
        }
        return std::min(sum, static_cast<double>(b - a));  // channels in flight together take one core at most
    }

    // A traced compute span's own time: its length less what collectives took meanwhile. Kept at a tenth of its
    // length at least: a fitted line that claims more than that of a span is wrong for this span, not the span.
    double computeIn(int rank, Nanos a, Nanos b) const {
        const double length = static_cast<double>(b - a);
        return std::max(0.1 * length, length - during(rank, a, b));
    }

private:
    struct Use {
        Nanos start, end;
        double density;  // CPU ns per ns of the span, at most 1
    };
    struct Rank {
        std::vector<Use> uses;  // by start
        Nanos longest = 0;
    };
    std::map<int, Rank> ranks_;
};

// The compute stream's time between traced spans: the loss, the next batch, hooks, and above all the moments the
// compute thread is descheduled between two layers (on a loaded CPU machine: milliseconds per iteration). It is
// part of the iteration, so it is charged to a neighbouring span: to the span it precedes, so that a layer's
// gradients are not made later than they were; but a gap before a wait goes to the span before it, since the
// wait began only after it (the next span starts once the wait is over, whatever the gap was). The gap after an
// iteration's last backward (the next batch, the loss) is the iteration's tail: charged to that backward, it
// would make the last gradients late in replay, while they were announced before it.
struct UntracedTime {
    std::vector<double> extra;                  // per span
    std::map<std::pair<int, int>, double> tail;  // (rank, iteration of the backward) -> gap after it
};

UntracedTime untracedComputeTime(const ObservedRun& run, const CpuTakenFromCompute& taken) {
    UntracedTime u;
    u.extra.assign(run.spans.size(), 0.0);
    std::map<int, std::vector<std::size_t>> byRank;
    for (std::size_t i = 0; i < run.spans.size(); ++i) {
        const ObservedSpan::Kind k = run.spans[i].kind;
        if (k == ObservedSpan::Forward || k == ObservedSpan::Backward || k == ObservedSpan::Update ||
            k == ObservedSpan::Wait)
            byRank[run.spans[i].rank].push_back(i);
    }
    for (auto& [rank, ids] : byRank) {
        std::sort(ids.begin(), ids.end(), [&](std::size_t a, std::size_t b) {
            return run.spans[a].start < run.spans[b].start;
        });
        std::size_t lastWork = SIZE_MAX;  // the last span that is not a wait
        std::size_t previous = SIZE_MAX;  // the span before this one, wait or not
        Nanos lastEnd = 0;
        for (std::size_t k = 0; k < ids.size(); ++k) {
            const ObservedSpan& s = run.spans[ids[k]];
            // What the collectives took meanwhile was not compute (the compute thread had lost its core to them).
            const double gap = k == 0 ? 0.0
                                      : std::max(0.0, static_cast<double>(s.start - lastEnd) -
                                                          taken.during(rank, lastEnd, s.start));
            const bool afterBackward = previous != SIZE_MAX && run.spans[previous].kind == ObservedSpan::Backward &&
                                       s.kind != ObservedSpan::Backward;
            if (gap > 0) {
                if (afterBackward)
                    u.tail[{rank, run.spans[previous].iteration}] += gap;
                else if (s.kind != ObservedSpan::Wait)
                    u.extra[ids[k]] += gap;
                else if (lastWork != SIZE_MAX)
                    u.extra[lastWork] += gap;
            }
            if (s.kind != ObservedSpan::Wait) lastWork = ids[k];
            previous = ids[k];
            lastEnd = std::max(lastEnd, s.end);
        }
    }
    return u;
}

// One collective of a run: (iteration, tensor, segment, bytes), and its span from the last rank's join to the last
// rank's leave.
using CollectiveKey = std::tuple<int, int, int, std::int64_t>;
using CollectiveSpans = std::map<CollectiveKey, std::pair<Nanos, Nanos>>;
// The run's collectives in the counted iterations: (latest start, latest end) over ranks. A collective starts for real
// when the last rank joins it and is over when the last rank leaves it: that is what the next collective waits for.
// (The shortest span would miss the time the last rank needs to finish after the first.)
CollectiveSpans lastJoinAndLeave(const ObservedRun& run, const Counted& counts) {
    CollectiveSpans spans;
    for (const ObservedSpan& s : run.spans) {
        if (s.kind != ObservedSpan::Comm || !counts(s.iteration)) continue;
        auto [it, fresh] = spans.try_emplace(CollectiveKey{s.iteration, s.tensor, s.segment, s.bytes}, s.start, s.end);
        if (!fresh) it->second = {std::max(it->second.first, s.start), std::max(it->second.second, s.end)};
    }
    return spans;
}

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

// How long after a collective ends the compute stream that waited for it goes on: per wait span that a collective
// of its rank ended (waitReleases), the wait's end minus that end; the mean over the counted iterations (an iteration
// set aside as an outlier, where a thread lost its core for 100 ms, must not set every wake-up of the replay).
double resumeLatency(const ObservedRun& run, const Counted& counts) {
    std::vector<double> samples;
    for (const WaitRelease& r : waitReleases(run, counts)) samples.push_back(static_cast<double>(r.wait->end - r.end));
    return mean(samples);
}

// (iteration, layer) -> the latest end of that layer's backward over ranks: when its gradients were ready everywhere.
std::map<std::pair<int, int>, Nanos> latestBackwardEnds(const ObservedRun& run) {
    std::map<std::pair<int, int>, Nanos> ends;
    for (const ObservedSpan& s : run.spans)
        if (s.kind == ObservedSpan::Backward) {
            Nanos& e = ends[{s.iteration, s.layer}];
            e = std::max(e, s.end);
        }
    return ends;
}

// The layer whose backward makes a unit ready: a span names the unit's first tensor and its bytes; a fused unit is a
// run of adjacent tensors (DDP's buckets and PACE's groups both are), found by adding neighbours, downwards or
// upwards, until the bytes match. Its last gradient comes from the lowest layer (backward runs last layer first).
// -1 when no run of whole tensors matches (a segment of one tensor: that tensor's layer).
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

// Each rank's comm-thread spans (collectives and traced agreement rounds) by start, as indices into run.spans.
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

// Whether `unit` is the collective that the traced round right before it on its comm thread chose.
bool chosenBy(const ObservedSpan& round, const ObservedSpan& unit) {
    return round.kind == ObservedSpan::Round && unit.kind == ObservedSpan::Comm && round.iteration == unit.iteration;
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

// How long after a unit is ready on every rank its collective starts, when the link was idle: the latest rank's start
// of the collective (of the round that chose it, busyStarts) minus the latest end of the backward that made it ready,
// for collectives that found the link idle (the previous collective had ended before the unit was ready); the mean.
// Single-tensor collectives are preferred; fused ones are sampled only when there are none (a DDP run: every bucket is
// fused), and never from a Horovod run, which holds each of them until its cycle's tick (the simulator models the hold
// by itself): there the time from a gradient to its unit was 240-390 us against 10-30 us of wake-up in fifo runs. (0
// where there are none.) Beside it the mean per layer that made the unit ready, for the layers with
// kDispatchSamplesOfALayer samples or more (Workload::dispatch_by_layer_ns says why).
constexpr std::size_t kDispatchSamplesOfALayer = 4;
struct Dispatch {
    double overall = 0;
    std::map<int, double> byLayer;  // the layers that gave enough samples
};
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

// How long the comm thread's next collective waits after one that ended a compute wait (Workload::release_gap_ns):
// the woken compute thread takes the core until it blocks again or the scheduler hands the core back. Of each
// collective that ended a wait (waitReleases), the next one by the last rank's join counts where its unit was ready
// on every rank by the released one's last leave and no agreement round came between: its last join minus that last
// leave, with how long the woken compute then ran before its next wait (the longest over the ranks that waited;
// unbounded when it never waited again). The gap is read uncapped (uncappedGap) over the counted
// iterations; 0 with channels (their units overlap), in a Horovod run (its units wait for their tick) or where no
// such pair occurs.
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

// Horovod's tick, as the runtime keeps it: the policy counts its cycle from rank 0's entry into the iteration's
// first round (the first gradient's news; rank 0's clock rides in it) and holds what that round heard until the tick
// a cycle later, whose round is every rank's next. Two figures, per counted iteration and then their means; 0
// without a cycle:
// - anchor_lead (Workload::tick_anchor_lead_ns): how far before the last rank rank 0 entered the first round.
//   The simulator's first round is the last rank's, and began the cycle there.
// - late (Workload::timer_wake_ns): how long after the tick the tick's round began, at the last rank's join (where
//   under a cycle; otherwise the round was not the tick's).
// Taken from rank 0's rounds alone, with the cycle begun at the last rank's first round (until 2026-12-05): the small
// MLP at 10 Gb/s began its tick's round 39-43 us late, and the runs replayed as themselves came within 1.1%; the last
// rank's join (rank 1 turns the tick into its clock by an estimated offset and joined 80-90 us later still) made them
// 2.5-5.1% too slow, for want of the anchor's lead: rank 0's backward runs ahead of the last rank's (0-1.0 ms),
// and its cycle with it. Both together, 96 Horovod runs of five grids replayed as themselves (2026-12-05): worst
// error 3.81 -> 2.14%, median 0.35 -> 0.33%, inside their band 70 -> 75.
struct HorovodTick {
    double anchor_lead_ns = 0;
    double late_ns = 0;
};

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

// Each rank's usual step times against the ranks' mean (ObservedModel::for_another): rank -> per step, in the order of
// RankSteps.
using RankOffsets = std::map<int, std::vector<double>>;

// What extractWorkloadWith reads off a run: the workload for its own schedule, and where the collectives take CPU
// from compute, the one for another schedule (ObservedModel::for_another) with the offsets that evened it out.
struct Extraction {
    Workload own;
    std::optional<Workload> another;
    RankOffsets usual;
};

// extractWorkload with the collectives' CPU line given (a part of a run takes the whole run's), on a run already
// validated (validateRun). `usual`: the ranks' offsets to even out with (a part of a run takes the whole run's); null:
// this run's own.
Result<Extraction> extractWorkloadWith(const ObservedRun& run, const std::vector<int>& only, const CommCpu& commCpu,
                                       const RankOffsets* usual = nullptr);

}  // namespace

Result<Workload> extractWorkload(const ObservedRun& run, const std::vector<int>& only) {
    if (Status s = validateRun(run); !s.ok()) return s;
    auto extracted = extractWorkloadWith(run, only, fitCommCpu(run));
    if (!extracted.ok()) return extracted.status();
    return std::move(extracted.value().own);
}

namespace {

// Each rank's step times in each counted iteration, in the order the iteration runs them (forward 0..L-1, backward
// L-1..0, then the tail: the untraced time after the last backward); -1 where the rank traced none:
// iteration -> rank -> step times.
using RankSteps = std::map<int, std::map<int, std::vector<double>>>;

// Sets the workload's layer times and tail from the ranks' step times. A collective waits for the slowest rank, so
// what counts is when the last rank has got through each step of the iteration: per iteration, the latest over
// ranks of each rank's running sum of step times, and a step's time is how much that latest point moved. (The
// slowest time per step, summed, would charge every rank's hiccups to one imaginary rank that has them all.) Then the
// mean over iterations, not the median: the measured iteration time is a mean, and on a loaded machine the slow
// iterations (a rank descheduled for milliseconds) are part of it.
// The tail is the iteration's last step: a rank slow in its backward and quick in its tail is no later at the end
// than its peer (taken apart, the slowest backward and the slowest tail added up to 80-110 us an iteration more than
// either rank spent: the small MLP at 10 Gb/s, whose ranks take turns, replayed 7% too slow).
void setStepTimes(Workload& w, const RankSteps& steps, int numLayers) {
    const int numSteps = 2 * numLayers + 1;
    const int tailStep = numSteps - 1;
    std::map<std::pair<int, int>, std::vector<double>> series;  // (kind, layer) -> the latest point's moves
    std::vector<double> tails;  // per iteration, the move of the latest point over the tail
    for (const auto& [iteration, ranks] : steps) {
        std::vector<double> sums(ranks.size(), 0.0);
        double latest = 0;
        for (int step = 0; step < numSteps; ++step) {
            std::size_t r = 0;
            bool traced = false;
            double next = 0;
            for (const auto& [rank, v] : ranks) {
                if (v[step] >= 0) {
                    traced = true;
                    sums[r] += v[step];
                }
                next = std::max(next, sums[r++]);
            }
            const double move = std::max(0.0, next - latest);
            latest = std::max(latest, next);
            if (!traced) continue;  // the run's last iteration has no tail: it is left out of the mean
            if (step == tailStep) {
                tails.push_back(move);
                continue;
            }
            const int layer = step < numLayers ? step : tailStep - 1 - step;
            const int kind = step < numLayers ? ObservedSpan::Forward : ObservedSpan::Backward;
            series[{kind, layer}].push_back(move);
        }
    }
    for (LayerTimes& lt : w.layers) lt.forward = lt.backward = 0;
    for (const auto& [key, values] : series) {
        const auto [kind, layer] = key;
        (kind == ObservedSpan::Forward ? w.layers[layer].forward : w.layers[layer].backward) =
            static_cast<Nanos>(std::llround(mean(values)));
    }
    w.tail_ns = static_cast<Nanos>(std::llround(mean(tails)));
}

// The ranks' mean time for a step in one iteration; nullopt unless every rank traced it and, with `usual`, has an
// offset for it.
std::optional<double> ranksMean(const std::map<int, std::vector<double>>& ranks, std::size_t step,
                                const RankOffsets* usual = nullptr) {
    if (ranks.size() < 2) return std::nullopt;
    double total = 0;
    for (const auto& [rank, v] : ranks) {
        if (v[step] < 0) return std::nullopt;
        if (usual) {
            const auto it = usual->find(rank);
            if (it == usual->end() || step >= it->second.size()) return std::nullopt;
        }
        total += v[step];
    }
    return total / static_cast<double>(ranks.size());
}

// Each rank's mean step time less the ranks' mean, over the iterations where every rank traced the step.
RankOffsets usualRankOffsets(const RankSteps& steps) {
    RankOffsets sum, count;
    for (const auto& [iteration, ranks] : steps)
        for (std::size_t step = 0; !ranks.empty() && step < ranks.begin()->second.size(); ++step) {
            const std::optional<double> mean = ranksMean(ranks, step);
            if (!mean) continue;
            for (const auto& [rank, v] : ranks) {
                auto& s = sum[rank];
                auto& c = count[rank];
                if (s.empty()) s.assign(v.size(), 0.0), c.assign(v.size(), 0.0);
                s[step] += v[step] - *mean;
                c[step] += 1;
            }
        }
    for (auto& [rank, s] : sum)
        for (std::size_t step = 0; step < s.size(); ++step)
            if (count[rank][step] > 0) s[step] /= count[rank][step];
    return sum;
}

// The ranks' step times evened out: in each iteration, each rank's time for a step every rank traced is the ranks'
// mean plus the rank's usual offset (ObservedModel::for_another).
RankSteps evenedOut(RankSteps steps, const RankOffsets& usual) {
    for (auto& [iteration, ranks] : steps)
        for (std::size_t step = 0; !ranks.empty() && step < ranks.begin()->second.size(); ++step)
            if (const std::optional<double> mean = ranksMean(ranks, step, &usual))
                for (auto& [rank, v] : ranks) v[step] = std::max(0.0, *mean + usual.at(rank)[step]);
    return steps;
}

Result<Extraction> extractWorkloadWith(const ObservedRun& run, const std::vector<int>& only, const CommCpu& commCpu,
                                       const RankOffsets* usual) {
    int numLayers = static_cast<int>(run.layerNames.size());
    for (const TensorInfo& t : run.tensors) numLayers = std::max(numLayers, t.layer + 1);
    for (const ObservedSpan& s : run.spans)
        if (s.kind == ObservedSpan::Forward || s.kind == ObservedSpan::Backward)
            numLayers = std::max(numLayers, s.layer + 1);

    const CpuTakenFromCompute taken(run, commCpu);
    const UntracedTime untraced = untracedComputeTime(run, taken);
    const std::vector<double>& extra = untraced.extra;
    const Counted counts{warmupIteration(run, ObservedSpan::Forward, ObservedSpan::Backward), only};
    // (kind, iteration, layer, rank) -> summed duration: a layer may be traced as several spans (kernels).
    std::map<std::tuple<int, int, int, int>, double> perRankIteration;
    bool any = false;
    for (const ObservedSpan& s : run.spans) {
        if (s.kind != ObservedSpan::Forward && s.kind != ObservedSpan::Backward) continue;
        if (s.layer < 0)
            return Status::error("observed run: a " +
                                 std::string(s.kind == ObservedSpan::Forward ? "forward" : "backward") +
                                 " span without a layer (rank " + std::to_string(s.rank) + ", iteration " +
                                 std::to_string(s.iteration) + ")");
        any = true;
        if (!counts(s.iteration)) continue;
        perRankIteration[{s.kind, s.iteration, s.layer, s.rank}] +=
            taken.computeIn(s.rank, s.start, s.end) + extra[&s - run.spans.data()];
    }
    if (!any) return Status::error("observed run has no forward or backward spans to extract layer times from");

    RankSteps steps;  // the counted iterations' step times, rank by rank
    const int numSteps = 2 * numLayers + 1;
    {
        const int tailStep = numSteps - 1;
        auto stepOf = [&](int kind, int layer) { return kind == ObservedSpan::Forward ? layer : tailStep - 1 - layer; };
        for (const auto& [key, ns] : perRankIteration) {
            const auto [kind, iteration, layer, rank] = key;
            auto& v = steps[iteration][rank];
            if (v.empty()) v.assign(numSteps, -1.0);
            v[stepOf(kind, layer)] = ns;
        }
        for (const auto& [key, ns] : untraced.tail) {
            const auto [rank, iteration] = key;
            auto it = steps.find(iteration);
            if (it == steps.end()) continue;  // not counted
            auto r = it->second.find(rank);
            if (r != it->second.end()) r->second[tailStep] = ns;
        }
    }

    Workload w;
    w.name = run.policy.empty() ? "observed run" : "observed " + run.policy + " run";
    w.ranks = run.ranks;
    w.tensors = run.tensors;
    w.layers.resize(numLayers);
    for (int l = 0; l < numLayers; ++l)
        w.layers[l].name =
            l < static_cast<int>(run.layerNames.size()) ? run.layerNames[l] : "layer " + std::to_string(l);
    setStepTimes(w, steps, numLayers);
    // Optimizer: total update time / elements updated, per (rank, iteration); median over those.
    std::vector<std::size_t> layerElements(numLayers, 0);
    std::size_t allElements = 0;
    for (const TensorInfo& t : run.tensors) {
        if (t.layer < 0 || t.layer >= numLayers)
            return Status::error("observed run: tensor '" + t.name + "' has no valid layer");
        layerElements[t.layer] += t.elements;
        allElements += t.elements;
    }
    std::map<std::pair<int, int>, std::pair<double, double>> updates;  // (rank, iteration) -> (ns, elements)
    const Counted updateCounts{warmupIteration(run, ObservedSpan::Update, ObservedSpan::Update), only};
    for (const ObservedSpan& s : run.spans) {
        if (s.kind != ObservedSpan::Update || !updateCounts(s.iteration)) continue;
        double elements = static_cast<double>(allElements);
        if (s.tensor >= 0 && s.tensor < static_cast<int>(run.tensors.size()))
            elements = static_cast<double>(run.tensors[s.tensor].elements);
        else if (s.layer >= 0 && s.layer < numLayers)
            elements = static_cast<double>(layerElements[s.layer]);
        auto& [ns, el] = updates[{s.rank, s.iteration}];
        ns += taken.computeIn(s.rank, s.start, s.end) + extra[&s - run.spans.data()];
        el += elements;
    }
    std::vector<double> rates;
    for (const auto& [key, v] : updates)
        if (v.second > 0) rates.push_back(v.first / v.second);
    w.update_ns_per_element = mean(rates);

    w.resume_ns = static_cast<Nanos>(std::llround(resumeLatency(run, counts)));
    const Dispatch dispatch = dispatchLatency(run, counts);
    w.dispatch_ns = static_cast<Nanos>(std::llround(dispatch.overall));
    if (!dispatch.byLayer.empty()) {
        w.dispatch_by_layer_ns.assign(w.layers.size(), -1);
        for (const auto& [layer, latency] : dispatch.byLayer)
            if (layer < static_cast<int>(w.layers.size()))
                w.dispatch_by_layer_ns[layer] = static_cast<Nanos>(std::llround(latency));
    }
    const HorovodTick tick = horovodTick(run, counts);
    w.timer_wake_ns = static_cast<Nanos>(std::llround(tick.late_ns));
    w.tick_anchor_lead_ns = static_cast<Nanos>(std::llround(tick.anchor_lead_ns));
    w.release_gap_ns = static_cast<Nanos>(std::llround(releaseGap(run, counts)));
    w.readiness_rides_on_units = run.readiness_rides_on_units;
    w.channels = run.channels;
    w.comm_cpu = commCpu;

    if (Status s = validateWorkload(w); !s.ok()) return Status::error("extracted workload: " + s.message());
    Extraction out;
    if (commCpu.any() && run.ranks > 1) {
        out.usual = usual ? *usual : usualRankOffsets(steps);
        out.another = w;
        setStepTimes(*out.another, evenedOut(steps, out.usual), numLayers);
    }
    out.own = std::move(w);
    return out;
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
        return meansBySize(lastJoinAndLeave(warmup, Counted{INT32_MIN, every}), [](const CollectiveKey&) { return true; });
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

Result<double> observedIterationMs(const ObservedRun& run) {
    if (Status s = validateRun(run); !s.ok()) return s;
    const int skip = warmupIteration(run, ObservedSpan::Iteration, ObservedSpan::Iteration);
    std::map<int, std::vector<double>> perRank;
    for (const ObservedSpan& s : run.spans)
        if (s.kind == ObservedSpan::Iteration && s.iteration != skip)
            perRank[s.rank].push_back(static_cast<double>(s.end - s.start));
    if (perRank.empty()) return Status::error("observed run has no iteration spans");
    double worst = 0;
    for (const auto& [rank, v] : perRank) worst = std::max(worst, median(v));
    return worst / 1e6;
}

std::map<int, double> collectivePeriodsMs(const ObservedRun& run) {
    std::map<int, Nanos> lastEnd;  // iteration -> the end of its last collective, over ranks
    for (const ObservedSpan& s : run.spans)
        if (s.kind == ObservedSpan::Comm) {
            auto [it, fresh] = lastEnd.try_emplace(s.iteration, s.end);
            if (!fresh) it->second = std::max(it->second, s.end);
        }
    std::map<int, double> periods;
    for (auto it = lastEnd.begin(); it != lastEnd.end() && std::next(it) != lastEnd.end(); ++it)
        if (const auto next = std::next(it); next->first == it->first + 1)
            periods[next->first] = static_cast<double>(next->second - it->second) / 1e6;
    return periods;
}

Result<double> collectivePeriodMs(const ObservedRun& run) {
    if (Status s = validateRun(run); !s.ok()) return s;
    return collectivePeriodMs(collectivePeriodsMs(run));
}

Result<double> collectivePeriodMs(const std::map<int, double>& periods) {
    std::vector<double> settled;
    for (auto it = std::next(periods.begin(), periods.empty() ? 0 : 1); it != periods.end(); ++it)
        settled.push_back(it->second);
    if (settled.empty())
        return Status::error("observed run has fewer than three consecutive iterations with collectives");
    return median(settled);
}

namespace {

// What the set-aside iterations added to the mean iteration time, per iteration (Workload::stall_ns). A run's
// iter_ms is made of each rank's mean period (their mean), so the excess is taken per rank too: each rank's mean
// over the steady iterations less its mean over the kept ones, the slowest rank's of each. Not from each iteration's
// slowest rank: ranks stall out of phase (a rank that loses its core late in iteration 5 makes its peer wait early
// in iteration 6), and the slowest of each iteration then counts one stall twice (the small MLP at 10 Gb/s: five
// such iterations made 1.6 ms per iteration of what each rank's mean shows as 0.85: self-replay 21% too slow, 1% now).
// The last iteration drains the link, and a run's iter_ms leaves its period out, so it is left out here too. Never
// negative: an unusually fast iteration is no stall.
Nanos stallNanos(const std::map<int, std::map<int, double>>& perRankMs, const std::vector<int>& setAside,
                 int lastIteration) {
    double slowestMean = 0, slowestKeptMean = 0;
    bool anyAside = false;
    for (const auto& [rank, observedMs] : perRankMs) {
        std::vector<double> all, kept;
        for (const auto& [iteration, ms] : observedMs) {
            if (iteration == lastIteration) continue;
            all.push_back(ms);
            if (std::binary_search(setAside.begin(), setAside.end(), iteration)) anyAside = true;
            else kept.push_back(ms);
        }
        if (kept.empty()) continue;
        slowestMean = std::max(slowestMean, mean(all));
        slowestKeptMean = std::max(slowestKeptMean, mean(kept));
    }
    if (!anyAside) return 0;
    return static_cast<Nanos>(std::llround(std::max(0.0, slowestMean - slowestKeptMean) * 1e6));
}

}  // namespace

Result<ObservedModel> modelObservedRun(const ObservedRun& run) {
    if (Status s = validateRun(run); !s.ok()) return s;
    // The steady iterations and their observed times: the slowest rank's Iteration span, or, in a trace without
    // them, the iterations that have compute (time unknown: nothing is set aside).
    std::map<int, double> observed;  // iteration -> ms
    std::map<int, std::map<int, double>> perRank;  // rank -> iteration -> ms
    const int warmupIter = warmupIteration(run, ObservedSpan::Iteration, ObservedSpan::Iteration);
    for (const ObservedSpan& s : run.spans)
        if (s.kind == ObservedSpan::Iteration && s.iteration != warmupIter) {
            const double ms = static_cast<double>(s.end - s.start) / 1e6;
            perRank[s.rank][s.iteration] = ms;
            observed[s.iteration] = std::max(observed[s.iteration], ms);
        }
    if (observed.empty()) {
        const int warmup = warmupIteration(run, ObservedSpan::Forward, ObservedSpan::Backward);
        for (const ObservedSpan& s : run.spans)
            if ((s.kind == ObservedSpan::Forward || s.kind == ObservedSpan::Backward) && s.iteration != warmup)
                observed.emplace(s.iteration, 0.0);
    }
    std::vector<double> times;
    for (const auto& [iteration, ms] : observed) times.push_back(ms);
    const double mid = median(times);
    std::vector<double> deviations;
    for (double t : times) deviations.push_back(std::abs(t - mid));
    // Never closer than 5% of the median: an iteration that close is not unusual, however steady the others were.
    const double spread = std::max(kOutlierSpread * 1.4826 * median(deviations), 0.05 * mid);

    // An outlier is rare by definition: at most one iteration in ten, the farthest. Where more lie that far out, the
    // machine stalls that often, the run to be predicted will too, and they belong in the means. Fewer than 5
    // iterations say too little about what is usual to call one of them unusual.
    std::vector<std::pair<double, int>> far;  // (distance, iteration)
    for (const auto& [iteration, ms] : observed)
        if (observed.size() >= 5 && std::abs(ms - mid) > spread) far.emplace_back(std::abs(ms - mid), iteration);
    std::sort(far.rbegin(), far.rend());
    far.resize(std::min(far.size(), observed.size() / 10));
    ObservedModel model;
    for (const auto& [distance, iteration] : far) model.set_aside.push_back(iteration);
    std::sort(model.set_aside.begin(), model.set_aside.end());
    std::vector<int> kept;
    for (const auto& [iteration, ms] : observed)
        if (!std::binary_search(model.set_aside.begin(), model.set_aside.end(), iteration)) kept.push_back(iteration);
    auto whole = extractWorkloadWith(run, kept, fitCommCpu(run));
    if (!whole.ok()) return whole.status();
    auto cost = fitCostModel(run, kept);
    if (!cost.ok()) return cost.status();
    model.workload = std::move(whole.value().own);
    model.cost = std::move(cost).value();
    if (whole.value().another) model.for_another = ObservedModel::ForAnother{std::move(*whole.value().another), {}};
    // The run's last iteration is not a whole one on its own: its optimizer step and the next batch were never
    // traced, so it stays out of the estimates (its layers still count in the means above).
    int lastIteration = INT32_MIN;
    for (const ObservedSpan& s : run.spans)
        if (s.kind == ObservedSpan::Forward || s.kind == ObservedSpan::Backward)
            lastIteration = std::max(lastIteration, s.iteration);
    model.workload.stall_ns = stallNanos(perRank, model.set_aside, lastIteration);
    // The machine's, not the schedule's: a replay of another schedule pays them too (Workload::stall_ns).
    if (model.for_another) model.for_another->workload.stall_ns = model.workload.stall_ns;
    // Each estimate reads its iteration with the one before (the gaps at its start, the units still in flight) and
    // the two after (its updates and tail run into the next one), not the whole run: read whole for each of a
    // thousand iterations, the small MLP's run took 26 s to open.
    std::map<int, std::vector<std::size_t>> spansOf;  // iteration -> indices into run.spans, ascending
    for (std::size_t k = 0; k < run.spans.size(); ++k) spansOf[run.spans[k].iteration].push_back(k);
    ObservedRun part = run;
    part.spans.clear();
    part.warmup_removed = true;  // the iteration asked for is never the run's warm-up (not among `kept`)
    for (int iteration : kept) {
        if (iteration == lastIteration && kept.size() > 1) continue;
        std::vector<std::size_t> ids;
        for (int j = iteration - 1; j <= iteration + 2; ++j)
            if (auto it = spansOf.find(j); it != spansOf.end())
                ids.insert(ids.end(), it->second.begin(), it->second.end());
        std::sort(ids.begin(), ids.end());
        part.spans.clear();
        for (std::size_t k : ids) part.spans.push_back(run.spans[k]);
        auto w = extractWorkloadWith(part, {iteration}, model.workload.comm_cpu, &whole.value().usual);
        auto c = fitCostModel(part, {iteration});
        if (!w.ok() || !c.ok()) continue;  // an iteration without collectives (cut short) estimates nothing
        // The threads' wake-up latencies come from the kept iterations together: one iteration holds a sample or
        // two of each, often none (which would read as no latency at all).
        const auto fromWhole = [&](Workload& one) {
            one.resume_ns = model.workload.resume_ns;
            one.dispatch_ns = model.workload.dispatch_ns;
            one.dispatch_by_layer_ns = model.workload.dispatch_by_layer_ns;
            one.timer_wake_ns = model.workload.timer_wake_ns;
            one.tick_anchor_lead_ns = model.workload.tick_anchor_lead_ns;
            one.release_gap_ns = model.workload.release_gap_ns;
        };
        Extraction& e = w.value();
        fromWhole(e.own);
        if (model.for_another) {
            Workload another = e.another ? std::move(*e.another) : e.own;
            fromWhole(another);
            model.for_another->iterations.push_back({iteration, observed[iteration], std::move(another), c.value()});
        }
        model.iterations.push_back({iteration, observed[iteration], std::move(e.own), std::move(c).value()});
    }
    return model;
}

ObservedRun toObservedRun(const Workload& workload, const SimResult& sim, const std::string& policy) {
    ObservedRun run;
    run.tensors = workload.tensors;
    run.ranks = workload.ranks;
    run.policy = policy;
    run.readiness_rides_on_units = workload.readiness_rides_on_units;
    run.channels = workload.channels;
    run.comm_cpu = workload.comm_cpu;  // the simulated compute includes what the collectives took
    for (const LayerTimes& l : workload.layers) run.layerNames.push_back(l.name);
    for (int rank = 0; rank < workload.ranks; ++rank) {
        for (const SimEvent& e : sim.events) {
            ObservedSpan s;
            s.rank = rank;
            s.iteration = e.iteration;
            s.layer = e.layer;
            s.start = e.start;
            s.end = e.end;
            switch (e.kind) {
                case SimEvent::Forward:
                    s.kind = ObservedSpan::Forward;
                    break;
                case SimEvent::Backward:
                    s.kind = ObservedSpan::Backward;
                    break;
                case SimEvent::Update:
                    s.kind = ObservedSpan::Update;
                    break;
                case SimEvent::Wait:
                    s.kind = ObservedSpan::Wait;
                    break;
                case SimEvent::Round:
                    s.kind = ObservedSpan::Round;
                    break;
                case SimEvent::Comm:
                    s.kind = ObservedSpan::Comm;
                    s.lane = e.channel;
                    s.tensor = e.unit.pieces.front().tensor;
                    s.segment = e.unit.pieces.front().segment;
                    s.bytes = static_cast<std::int64_t>(e.unit.bytes());
                    break;
            }
            run.spans.push_back(s);
        }
        for (std::size_t k = 0; k + 1 < sim.iteration_starts.size(); ++k) {
            ObservedSpan s;
            s.kind = ObservedSpan::Iteration;
            s.rank = rank;
            s.iteration = static_cast<int>(k);
            s.start = sim.iteration_starts[k];
            s.end = sim.iteration_starts[k + 1];
            run.spans.push_back(s);
        }
    }
    return run;
}

}  // namespace pacer::engine
