#include "engine/replay/replay.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "engine/collectives/algorithm_cost.h"
#include "engine/median_interval.h"
#include "engine/policies/segmenting.h"

namespace pacer::engine {
namespace {

// Bytes through each rank's link per byte reduced, for a ring over n ranks.
double ringVolume(int n) { return n <= 1 ? 0.0 : 2.0 * (n - 1) / n; }
// Latency steps of a ring over n ranks.
double ringSteps(int n) { return n <= 1 ? 0.0 : 2.0 * (n - 1); }

Nanos scaled(Nanos ns, double speed) { return static_cast<Nanos>(std::llround(static_cast<double>(ns) / speed)); }

// Simulation figures compared for "better": iteration time first, then less time on the wire.
bool better(const SimFigures& a, const SimFigures& b) {
    constexpr double kEps = 1e-9;
    if (a.iter_ms < b.iter_ms - kEps) return true;
    if (a.iter_ms > b.iter_ms + kEps) return false;
    return a.comm_ms < b.comm_ms - kEps;
}

// The simulator's figures come from the last half of the iterations it runs (SimOptions::warmup). A dynamic schedule
// can take longer than that to settle where its order hinges on a race (a fused group heard just before or just
// after the first layer's gradients): the transformer's self-tuned pace replayed from a DDP run at 2.5 Gb/s came out
// at 12.1 ms, its window beginning in one layout and ending in the other, for a schedule whose every later iteration
// takes 15.9; the tuner chose it over plan order (13.2), and the pace run that chose plan order ran 13.5. So where
// the window's mean period is more than kUnsettled from the two periods before it, the same runs again with twice
// the iterations (at most kMostIterations), the window again the last half; a schedule that alternates between two
// layouts is then averaged over whole cycles. Not where the two before include a cold first iteration (no lead-in:
// collectives that take no CPU from compute), nor where the caller chose the window (SimOptions::warmup).
constexpr double kUnsettled = 0.01;
constexpr int kMostIterations = 32;

bool settled(const SimResult& sim, const SimOptions& options, int firstComparable) {
    const std::vector<Nanos>& starts = sim.iteration_starts;  // the lead-in already left out
    const int n = static_cast<int>(starts.size()) - 1;
    const int from = options.steadyFrom();
    if (from - 2 < firstComparable || n <= from) return true;
    const double window = static_cast<double>(starts[n] - starts[from]) / (n - from);
    const double before = static_cast<double>(starts[from] - starts[from - 2]) / 2;
    return std::abs(window - before) <= kUnsettled * window;
}

Result<SimResult> simulateSettled(const Workload& w, const CostModel& cost, const PolicyConfig& config,
                                  SimOptions options) {
    // After a lead-in (Workload::comm_cpu) the first iteration kept is a steady one.
    const int firstComparable = w.comm_cpu.any() ? 0 : 1;
    for (;;) {
        Result<std::unique_ptr<Policy>> policy = makePolicy(config, w.tensors);
        if (!policy.ok()) return policy.status();
        Result<SimResult> sim = simulate(w, *policy.value(), cost, options);
        if (!sim.ok() || options.warmup >= 0 || options.iterations * 2 > kMostIterations ||
            settled(sim.value(), options, firstComparable))
            return sim;
        options.iterations *= 2;
    }
}

// The figures alone (sweeps, the fusion search, bands): runs of segments as one step each, which changes only the
// events (SimOptions::segment_runs), so that small segment sizes cost a sweep no more than large ones.
Result<SimFigures> figuresOf(const Workload& w, const CostModel& cost, const PolicyConfig& config,
                             SimOptions options) {
    options.segment_runs = true;
    Result<SimResult> sim = simulateSettled(w, cost, config, options);
    if (!sim.ok()) return sim.status();
    return sim.value().figures;
}

// Student's t, two-sided 90% (the 95th percentile), by degrees of freedom 1..9.
constexpr double kStudentT90[] = {6.314, 2.920, 2.353, 2.132, 2.015, 1.943, 1.895, 1.860, 1.833};

double meanOf(const std::vector<double>& values) {
    double sum = 0;
    for (double v : values) sum += v;
    return values.empty() ? 0.0 : sum / static_cast<double>(values.size());
}

// The sum of squared deviations from the values' mean (0 for none).
double squaresAboutMean(const std::vector<double>& values) {
    const double mean = meanOf(values);
    double squares = 0;
    for (double v : values) squares += (v - mean) * (v - mean);
    return squares;
}

// Half-width of a 90% interval for the mean of a series whose neighbours are alike: contiguous batches, the
// standard error of their means (PredictionBand).
double batchMeansHalfWidth(const std::vector<double>& series) {
    const std::size_t n = series.size();
    const std::size_t batches = n >= 2 * kBandBatches ? kBandBatches : n;
    if (batches < 2) return 0;
    std::vector<double> means;
    for (std::size_t b = 0; b < batches; ++b) {
        // Batch b holds [b*n/batches, (b+1)*n/batches): every iteration in exactly one batch.
        const std::size_t from = b * n / batches, to = (b + 1) * n / batches;
        double sum = 0;
        for (std::size_t i = from; i < to; ++i) sum += series[i];
        means.push_back(sum / static_cast<double>(to - from));
    }
    const double standardError =
        std::sqrt(squaresAboutMean(means) / static_cast<double>(batches - 1) / static_cast<double>(batches));
    static_assert(kBandBatches - 1 <= static_cast<int>(std::size(kStudentT90)));
    const std::size_t dof = std::min(batches - 1, std::size(kStudentT90));
    return kStudentT90[dof - 1] * standardError;
}

// Each source iteration replayed on its own under the configuration and knobs.
Result<std::vector<double>> iterationPeriods(const std::vector<IterationEstimate>& iterations,
                                             const PolicyConfig& config, const WhatIf& whatIf,
                                             const SimOptions& options) {
    std::vector<double> periods;
    for (const IterationEstimate& e : iterations) {
        Result<Workload> w = applyWhatIf(e.workload, whatIf);
        if (!w.ok()) return w.status();
        Result<CostModel> c = applyWhatIf(e.cost, e.workload.ranks, whatIf);
        if (!c.ok()) return c.status();
        Result<SimFigures> f = figuresOf(w.value(), c.value(), config, options);
        if (!f.ok()) return Status::error("iteration " + std::to_string(e.iteration) + ": " + f.status().message());
        periods.push_back(f.value().iter_ms);
    }
    return periods;
}

// One iteration's cost fit rests on one collective per size and can be wild (a collective that waited for a core:
// 70 ms where its neighbours predict 8). Clipped to the median +- kOutlierSpread robust standard deviations, such an
// estimate moves the band and the mean as much as an unusual iteration may, not by itself. But an estimate may lie as
// far from the others as its iteration's measured time lay from theirs (relative to the medians): the source's slow
// iterations that were kept (modelObservedRun sets aside at most one in ten) are part of its mean, and clipped with
// the rest, a right-skewed run's prediction came out low: 14 of the 17 self-replays outside their band on a grid of
// 90 runs lay below it (-0.2 to -1.7%), and a CNN fifo run whose iterations took 9-17 ms replayed 10.6% low.
std::vector<double> clippedPeriods(const std::vector<double>& periods,
                                   const std::vector<IterationEstimate>& iterations) {
    const double mid = median(periods);
    std::vector<double> deviations;
    for (double x : periods) deviations.push_back(std::abs(x - mid));
    double reach = kOutlierSpread * 1.4826 * median(deviations);
    std::vector<double> observed;
    for (const IterationEstimate& e : iterations) observed.push_back(e.observed_ms);
    const double observedMid = median(observed);
    if (observedMid > 0)
        for (double o : observed) reach = std::max(reach, std::abs(o / observedMid - 1) * mid);
    std::vector<double> clipped;
    for (double x : periods) clipped.push_back(std::clamp(x, mid - reach, mid + reach));
    return clipped;
}

// The band around `predictedMs` from the per-iteration periods and the same clipped (clippedPeriods).
PredictionBand bandAround(double predictedMs, std::vector<double> periods, const std::vector<double>& clipped) {
    PredictionBand band;
    band.iteration_ms = std::move(periods);
    if (band.iteration_ms.empty()) return band;
    const double mid = median(band.iteration_ms);
    band.mean_ms = meanOf(clipped);
    const double half = std::sqrt(2.0) * batchMeansHalfWidth(clipped);
    band.low_ms = std::max(0.0, std::min(predictedMs, mid) - half);
    band.high_ms = std::max(predictedMs, mid) + half;
    return band;
}

}  // namespace

PredictionBand widenedForAnotherSchedule(PredictionBand band, double predictedMs, double selfResidual, double stallMs) {
    if (band.iteration_ms.empty()) return band;
    const double reach = selfResidual > 0 ? selfResidual * predictedMs : 0.0;
    band.low_ms = std::max(0.0, band.low_ms - reach);
    band.high_ms += reach + std::max(0.0, stallMs);
    // Another run, whenever it runs, lands where the machine is then.
    const double deviation =
        std::sqrt(squaresAboutMean(band.iteration_ms) / static_cast<double>(band.iteration_ms.size()));
    const double drift = kRunDriftSpreads * deviation;
    band.low_ms = std::max(0.0, std::min(band.low_ms, predictedMs - drift));
    band.high_ms = std::max(band.high_ms, predictedMs + drift);
    return band;
}

Result<Workload> applyWhatIf(const Workload& workload, const WhatIf& whatIf) {
    if (!(whatIf.compute_speed > 0)) return Status::error("compute speed factor must be above 0");
    if (whatIf.ranks < 0) return Status::error("rank count must be at least 1 (0 = as observed)");
    if (whatIf.channels < 0 || whatIf.channels > 16) return Status::error("channels must be 1..16 (0 = as observed)");
    Workload w = workload;
    if (whatIf.ranks > 0) w.ranks = whatIf.ranks;
    if (whatIf.channels > 0) w.channels = whatIf.channels;
    if (whatIf.compute_speed != 1.0) {
        for (LayerTimes& l : w.layers) {
            l.forward = scaled(l.forward, whatIf.compute_speed);
            l.backward = scaled(l.backward, whatIf.compute_speed);
        }
        w.update_ns_per_element /= whatIf.compute_speed;
        w.tail_ns = scaled(w.tail_ns, whatIf.compute_speed);  // the next batch and the loss are compute too
    }
    return w;
}

Result<CostModel> applyWhatIf(const CostModel& cost, int observedRanks, const WhatIf& whatIf) {
    if (whatIf.link_gbps < 0) return Status::error("link bandwidth must be above 0 Gb/s (0 = as observed)");
    if (whatIf.ranks < 0) return Status::error("rank count must be at least 1 (0 = as observed)");
    if (observedRanks < 1) return Status::error("the observed rank count must be at least 1");
    const int n0 = observedRanks;
    const int n = whatIf.ranks > 0 ? whatIf.ranks : n0;
    CostModel c = cost;
    const bool keepsBandwidth = whatIf.link_gbps == 0;
    const bool keepsLatency = whatIf.link_latency_us < 0;
    if (n != n0 && n0 == 1 && n > 1 && (keepsBandwidth || keepsLatency))
        return Status::error("a one-rank observation has no link to scale to " + std::to_string(n) +
                             " ranks: give the link bandwidth and latency");
    if (keepsBandwidth) {
        if (n != n0) c.ns_per_byte = n0 == 1 ? 0.0 : cost.ns_per_byte * ringVolume(n) / ringVolume(n0);
    } else {
        c.ns_per_byte = ringVolume(n) * 8.0 / whatIf.link_gbps;
    }
    if (keepsLatency) {
        if (n != n0) c.alpha_ns = n0 == 1 ? 0.0 : cost.alpha_ns * ringSteps(n) / ringSteps(n0);
    } else {
        c.alpha_ns = ringSteps(n) * whatIf.link_latency_us * 1000.0;
    }
    // The measured per-size times belong to the observed link and rank count only.
    if (!keepsBandwidth || !keepsLatency || n != n0) c.measured.clear();
    if (n == 1) {
        c = CostModel{};
        c.alpha_ns = c.ns_per_byte = 0;
    }
    if (whatIf.algorithm.empty() && whatIf.topology.empty()) return c;
    // A modelled algorithm: the ring-scaled cost above read as one link's α and β.
    const std::string name = whatIf.algorithm.empty() ? "auto" : whatIf.algorithm;
    Result<Algorithm> algorithm = parseAlgorithm(name);
    if (!algorithm.ok()) return algorithm.status();
    if (algorithm.value() == Algorithm::Native) return c;
    Result<Topology> topology = parseTopology(whatIf.topology.empty() ? "flat" : whatIf.topology, n);
    if (!topology.ok()) return topology.status();
    if (algorithm.value() == Algorithm::Torus && topology.value().kind != Topology::Kind::Torus)
        return Status::error("the torus algorithm needs a torus topology, not " + topology.value().describe());
    if (n > 1) {
        const LinkParams link{c.alpha_ns / ringSteps(n), c.ns_per_byte / ringVolume(n), 0.0};
        c.measured.clear();
        c.collective = CostModel::Collective{algorithm.value(), topology.value(), n, link};
    }
    return c;
}

Result<ReplayResult> replay(const Workload& workload, const CostModel& cost, const PolicyConfig& config,
                            const WhatIf& whatIf, const SimOptions& options,
                            const std::vector<IterationEstimate>& iterations) {
    Result<Workload> w = applyWhatIf(workload, whatIf);
    if (!w.ok()) return w.status();
    Result<CostModel> c = applyWhatIf(cost, workload.ranks, whatIf);
    if (!c.ok()) return c.status();
    Result<SimResult> sim = simulateSettled(w.value(), c.value(), config, options);
    if (!sim.ok()) return sim.status();
    ReplayResult r;
    r.sim = std::move(sim).value();
    r.config = config;
    r.cost = c.value();
    if (!iterations.empty()) {
        // The prediction is the mean of the source's iterations each replayed, not the period of their mean: over
        // Gloo, where the small MLP's collectives vary by 2x from one iteration to the next, the mean iteration's
        // replay was 2-11% below its fifo runs in 16 of 16, the mean of the iterations within 0.8% in the median
        // (docs/ARCHITECTURE.md, "A noisy source"). The events and the other figures stay the mean iteration's; the
        // time its variation adds shows as idle. Never below the bound.
        Result<std::vector<double>> periods = iterationPeriods(iterations, config, whatIf, options);
        if (!periods.ok()) return periods.status();
        const std::vector<double> clipped = clippedPeriods(periods.value(), iterations);
        SimFigures& f = r.sim.figures;
        f.iter_ms = std::max(meanOf(clipped) + f.stall_ms, f.lower_bound_ms);
        f.idle_ms = std::max(0.0, f.iter_ms - f.compute_ms - f.exposed_comm_ms);
        r.band = bandAround(f.iter_ms, std::move(periods).value(), clipped);
    }
    return r;
}

Result<std::vector<SweepPoint>> sweep(const Workload& workload, const CostModel& cost, const PolicyConfig& base,
                                      const std::string& knob, std::int64_t min, std::int64_t max, const WhatIf& whatIf,
                                      const SimOptions& options) {
    if (knob != "segment_bytes" && knob != "bucket_bytes" && knob != "credit" && knob != "ranks")
        return Status::error("unknown sweep knob '" + knob + "' (segment_bytes, bucket_bytes, credit or ranks)");
    if (knob == "ranks" && max > (1 << 20)) return Status::error("rank counts above 2^20 are not a setting");
    if (min < 1 || max < min)
        return Status::error("sweep range " + std::to_string(min) + ":" + std::to_string(max) +
                             " must satisfy 1 <= min <= max");
    if (knob == "credit" && max > (std::int64_t{1} << 30)) return Status::error("credit above 2^30 is not a setting");
    Result<Workload> w = applyWhatIf(workload, whatIf);
    if (!w.ok()) return w.status();
    Result<CostModel> c = applyWhatIf(cost, workload.ranks, whatIf);
    if (!c.ok()) return c.status();

    std::vector<SweepPoint> points;
    std::int64_t v = 1;
    while (v < min) v *= 2;
    for (; v <= max; v *= 2) {
        PolicyConfig config = base;
        if (knob == "segment_bytes")
            config.segment_bytes = static_cast<std::size_t>(v);
        else if (knob == "bucket_bytes")
            config.bucket_bytes = static_cast<std::size_t>(v);
        else if (knob == "credit")
            config.credit = static_cast<int>(v);
        const int ranks = knob == "ranks" ? static_cast<int>(v) : w.value().ranks;
        auto figures = [&]() -> Result<SimFigures> {
            if (knob != "ranks") return figuresOf(w.value(), c.value(), config, options);
            WhatIf at = whatIf;  // workload and cost rescaled to this rank count (and topology shape)
            at.ranks = ranks;
            Result<Workload> wr = applyWhatIf(workload, at);
            if (!wr.ok()) return wr.status();
            Result<CostModel> cr = applyWhatIf(cost, workload.ranks, at);
            if (!cr.ok()) return cr.status();
            return figuresOf(wr.value(), cr.value(), config, options);
        };
        Result<SimFigures> f = figures();
        if (!f.ok()) return Status::error(knob + " = " + std::to_string(v) + ": " + f.status().message());
        points.push_back(SweepPoint{std::move(config), f.value(), ranks});
        if (v > max / 2) break;  // the next doubling would pass max (and could overflow)
    }
    if (points.empty())
        return Status::error("no power of two lies in the sweep range " + std::to_string(min) + ":" +
                             std::to_string(max));
    return points;
}

std::size_t bestSweepPoint(const std::vector<SweepPoint>& points) {
    std::size_t best = 0;
    for (std::size_t i = 1; i < points.size(); ++i)
        if (points[i].figures.iter_ms < points[best].figures.iter_ms) best = i;
    return best;
}

// Dynamic programming over adjacent tensors, with the simulator as the oracle (PACE, section IV). Gradients are
// produced from the last tensor to the first, so the search decides the grouping of a growing suffix [i, n) of
// ids (the part of backward already produced): best[i] = the best grouping of [i, n), chosen among
// "group [i, j) + best[j]" for every admissible j, each candidate simulated with the undecided tensors [0, i)
// left alone. Candidates for one i differ only in the decided part, so the comparison is fair; the result is
// the grouping of best[0]. Groups are capped in tensors and bytes (a fused unit is never cut into segments, so
// a group above the segment size would undo segmentation's preemption points).
Result<FusionResult> searchFusion(const Workload& workload, const CostModel& cost, const PolicyConfig& pace,
                                  const WhatIf& whatIf, const FusionSearchOptions& search, const SimOptions& options) {
    if (pace.name != "pace") return Status::error("the fusion search tunes the 'pace' policy, not '" + pace.name + "'");
    if (search.max_group < 1) return Status::error("fusion search: max_group must be at least 1");
    Result<Workload> wr = applyWhatIf(workload, whatIf);
    if (!wr.ok()) return wr.status();
    Result<CostModel> cr = applyWhatIf(cost, workload.ranks, whatIf);
    if (!cr.ok()) return cr.status();
    const Workload& w = wr.value();
    const CostModel& c = cr.value();
    const int n = static_cast<int>(w.tensors.size());
    const std::size_t capBytes = search.max_group_bytes > 0 ? search.max_group_bytes : pace.segment_bytes;

    FusionResult result;
    Result<SimFigures> given = figuresOf(w, c, pace, options);
    if (!given.ok()) return given.status();
    ++result.evaluations;
    result.before_ms = given.value().iter_ms;

    PolicyConfig trial = pace;
    trial.fuse_below_bytes = 0;  // only the explicit groups fuse
    // best[i]: first group's end j (the group is [i, j)) and the figures of the grouping of [i, n).
    std::vector<int> nextOf(n + 1, n);
    std::vector<SimFigures> bestFigures(n + 1);
    std::vector<std::vector<int>> groups;
    auto groupsFrom = [&](int i, int j) {
        // The grouping "[i, j) then best[j]" as fusion_groups (only groups of two or more are listed).
        groups.clear();
        if (j - i > 1) {
            groups.emplace_back();
            for (int t = i; t < j; ++t) groups.back().push_back(t);
        }
        for (int a = j; a < n; a = nextOf[a]) {
            if (nextOf[a] - a > 1) {
                groups.emplace_back();
                for (int t = a; t < nextOf[a]; ++t) groups.back().push_back(t);
            }
        }
        return groups;
    };
    for (int i = n - 1; i >= 0; --i) {
        std::size_t bytes = 0;
        bool haveBest = false;
        for (int j = i + 1; j <= n && j - i <= search.max_group; ++j) {
            bytes += w.tensors[j - 1].bytes();
            if (j - i > 1 && bytes > capBytes) break;
            trial.fusion_groups = groupsFrom(i, j);
            Result<SimFigures> f = figuresOf(w, c, trial, options);
            if (!f.ok()) return f.status();
            ++result.evaluations;
            if (!haveBest || better(f.value(), bestFigures[i])) {
                bestFigures[i] = f.value();
                nextOf[i] = j;
                haveBest = true;
            }
        }
    }
    if (better(bestFigures[0], given.value())) {
        for (int a = 0; a < n; a = nextOf[a])
            if (nextOf[a] - a > 1) {
                result.groups.emplace_back();
                for (int t = a; t < nextOf[a]; ++t) result.groups.back().push_back(t);
            }
        result.after_ms = bestFigures[0].iter_ms;
    } else {
        // Nothing better than the grouping given: report that grouping (the explicit one, or the greedy default).
        result.after_ms = result.before_ms;
        const std::vector<std::vector<int>> givenGroups =
            !pace.fusion_groups.empty() ? pace.fusion_groups
                                        : greedyFusionGroups(w.tensors, pace.fuse_below_bytes, pace.segment_bytes);
        for (const auto& g : givenGroups)
            if (g.size() > 1) result.groups.push_back(g);
    }
    return result;
}

}  // namespace pacer::engine
