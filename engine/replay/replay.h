// Replay: a workload and a cost model run under a policy configuration, with what-if knobs, sweeps over one
// setting and the PACE fusion search.
//
// Everything here builds the policy with makePolicy(), exactly as the runtime does, and drives it with the
// simulator. Replay is the interactive path (the schedule editor replays on every edit), so replay() allocates
// only what the policy and the result need; sweeps and the fusion search call it many times.
//
// What-if knobs and the cost model. A ring all-reduce over n ranks moves 2(n-1)/n x bytes through each rank's
// link and takes 2(n-1) steps, each paying the link latency once. So:
//   ns_per_byte = 2(n-1)/n x 8 / link_gbps          (link_gbps set; 8 ns per byte is 1 Gb/s)
//   alpha_ns    = 2(n-1) x link_latency_us x 1000   (link_latency_us set)
// A knob left "as observed" keeps the fitted value, rescaled when the rank count changes: ns_per_byte by
// [2(n-1)/n] / [2(n0-1)/n0] and alpha by (n-1)/(n0-1), where n0 is the workload's rank count. The fitted alpha is
// thus treated as latency steps alone (fixed per-call software overhead is folded into them). With one rank
// there is nothing to reduce: the cost is 0. compute_speed divides every compute duration (forward, backward,
// updates and the tail between iterations).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/policy_config.h"
#include "engine/replay/observed_run.h"
#include "engine/sim/simulator.h"
#include "engine/sim/workload.h"
#include "engine/status.h"

namespace pacer::engine {

struct WhatIf {
    double link_gbps = 0;         // 0 = as observed
    double link_latency_us = -1;  // -1 = as observed
    int ranks = 0;                // 0 = as observed
    double compute_speed = 1.0;   // 2.0 = compute twice as fast
    int channels = 0;             // units in flight at once (plan mode); 0 = as observed
    // The collective algorithm to model (engine/collectives names): empty or "native" = the ring scaling above;
    // otherwise its α-β-γ cost, with α = the per-step latency and β = the per-byte time of one link, both read off
    // the (scaled) cost above (γ folded into β, as the capture measured them together). With a topology and no
    // algorithm, auto. topology: flat, ring, torus (the most nearly cubic 3-D shape for the rank count) or
    // torus:XxYxZ; empty = flat.
    std::string algorithm;
    std::string topology;
};

// The workload and cost model the knobs describe. Fails on a negative or zero speed, negative bandwidth, a rank
// count below 0, or a rank change from a one-rank observation (no latency/bandwidth split to scale).
Result<Workload> applyWhatIf(const Workload& workload, const WhatIf& whatIf);
Result<CostModel> applyWhatIf(const CostModel& cost, int observedRanks, const WhatIf& whatIf);

// How far a prediction may be off because its source run was noisy. Each steady iteration of the source, replayed
// on its own (IterationEstimate), predicts a time; the measured time of a run is a mean over its iterations, so the
// spread that matters is that of a mean, for the source run's and the predicted run's alike (hence sqrt(2)).
// Iterations are not independent: a loaded machine drifts for seconds at a time, so neighbours are alike and the
// spread of single iterations understates that of a mean (bands built so held the measured time in 40-57% of
// cases). Hence the method of batch means: the iterations in order, cut into kBandBatches contiguous batches,
// whose means' standard error, times Student's t for 90% at (batches - 1) degrees of freedom, is the half-width;
// widened to include the median of the per-iteration predictions where it differs from the prediction of the means.
struct PredictionBand {
    double low_ms = 0;
    double high_ms = 0;
    std::vector<double> iteration_ms;  // the per-iteration predictions, in source iteration order; empty: no band
    // The mean of the per-iteration predictions, each clipped as the band clips them. A period is a longest path
    // over durations, so the mean of the iterations' periods lies above the period of their mean durations, the more
    // the durations vary: replay() predicts this mean (plus the source's stalls) where it has the estimates.
    double mean_ms = 0;
};
inline constexpr int kBandBatches = 5;  // fewer iterations than 2 per batch: one batch per iteration

struct ReplayResult {
    SimResult sim;
    PolicyConfig config;
    CostModel cost;       // the cost model after the what-if knobs
    PredictionBand band;  // filled when replay() is given the source's per-iteration estimates
};

// The band of a prediction for another schedule than the source ran. The source's iterations show how noisy it was,
// not how wrong the model is for a schedule it did not run; the one measure of that a single run gives is how far
// replay missed the run's own schedule, `selfResidual` (|replayed - measured| / measured). Both ends move out by that
// fraction of the prediction. Not for the run's own schedule: there the residual would put the measured time inside
// the band by construction. On three grids of captures (predictions from fifo runs and self-predictions), the band
// held the measured time in 4-6 points more of them, its median width 0.6-2 points wider (docs/ARCHITECTURE.md).
// The high end also reaches up by the source's stalls (`stallMs`, SimFigures::stall_ms, already in the prediction):
// they are one run's draw of a machine's rare losses, and the predicted run draws its own, as likely above the
// source's as below (the low end already reaches a run without any: the iterations' median).
// Last, it reaches kRunDriftSpreads standard deviations of the source's iterations (as predicted for this schedule)
// each side of the prediction, where it did not already. Another schedule is another run, and a loaded machine moves
// between runs by about as much as between iterations: on two grids of 120 captures (4 samples x 1/2.5/10 Gb/s x 5
// policies x 2 rounds, 2026-12-02 and 2026-12-03), the fifo run's prediction of each other policy's run missed its
// measured time by 0.9-1.0 of the iterations' deviation in the median and 3.3 at the 90th percentile, where the
// bands above held it in 56-57% of cases (median width 7-10%). The factor that holds 90% was 3.26 on one grid and
// 3.36 on the other; 3.3 held 91% and 90% of the two grids' cases, at median widths of 31% and 21%: as far apart as
// that machine's runs were. Not for the run's own schedule: there the prediction replays the run's own iterations,
// and its band holds 92-93% as it is.
inline constexpr double kRunDriftSpreads = 3.3;
PredictionBand widenedForAnotherSchedule(PredictionBand band, double predictedMs, double selfResidual, double stallMs);

// With `iterations` (ObservedModel::iterations of the run that `workload` and `cost` came from), the result also
// carries the prediction's band, and its period (SimFigures::iter_ms) is the mean of those iterations replayed
// (PredictionBand::mean_ms) plus the stalls, at least the bound; the time that adds to the mean iteration's replay
// is idle. Without, it is the mean iteration's period.
Result<ReplayResult> replay(const Workload& workload, const CostModel& cost, const PolicyConfig& config,
                            const WhatIf& whatIf, const SimOptions& options = {},
                            const std::vector<IterationEstimate>& iterations = {});

// One point of a sweep: the configuration tried and its figures.
struct SweepPoint {
    PolicyConfig config;
    SimFigures figures;
    int ranks = 0;  // the rank count simulated
};

// Tries every power of two between min and max (inclusive; both rounded to the powers of two inside the range)
// for knob "segment_bytes", "bucket_bytes", "credit" or "ranks" (the what-if rank count: topology and cost are
// rescaled for each), other settings as in `base`. Fails on an unknown knob,
// min < 1 or min > max. The best point is bestSweepPoint().
Result<std::vector<SweepPoint>> sweep(const Workload& workload, const CostModel& cost, const PolicyConfig& base,
                                      const std::string& knob, std::int64_t min, std::int64_t max, const WhatIf& whatIf,
                                      const SimOptions& options = {});
// Index of the lowest iteration time (the first such point on a tie); points must not be empty.
std::size_t bestSweepPoint(const std::vector<SweepPoint>& points);

// PACE's fusion search. groups: the chosen groups of two or more adjacent tensor ids (what to put in
// PolicyConfig::fusion_groups; tensors not listed travel alone). before_ms: iteration time of `pace` as given;
// after_ms: with the chosen groups (never worse: if the search finds nothing better it returns the given
// grouping). evaluations: how many simulations the search ran.
struct FusionResult {
    std::vector<std::vector<int>> groups;
    double before_ms = 0;
    double after_ms = 0;
    int evaluations = 0;
};

struct FusionSearchOptions {
    int max_group = 16;               // at most this many tensors in one group
    std::size_t max_group_bytes = 0;  // 0 = the configuration's segment_bytes
};

Result<FusionResult> searchFusion(const Workload& workload, const CostModel& cost, const PolicyConfig& pace,
                                  const WhatIf& whatIf, const FusionSearchOptions& search = {},
                                  const SimOptions& options = {});

}  // namespace pacer::engine
