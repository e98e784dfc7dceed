#include "engine/replay/observed_run.h"

#include "engine/median_interval.h"
#include "engine/replay/observed_spans.h"
#include "engine/replay/observed_wakeups.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace pacer::engine {
namespace {

using namespace observed;

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
    w.updates_fill_waits = run.updates_fill_waits;
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
    run.updates_fill_waits = workload.updates_fill_waits;
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
