// A captured or imported trace as plain engine-side data, and what replay learns from it.
//
// The profiler's RunTrace is converted into an ObservedRun by the caller (the engine knows nothing of the
// profiler). From it come the two inputs of the simulator: the iteration's graph (extractWorkload: per-layer
// forward and backward durations, the gradient tensors, the optimizer's cost) and the all-reduce cost model
// (fitCostModel: t(bytes) = alpha + bytes * ns_per_byte by least squares over the observed collectives, for the
// run's transport and rank count). The extraction is observed_run.cpp, the fits observed_costs.cpp, the threads'
// latencies the workload carries observed_wakeups.cpp; observed_spans.h holds what they read alike.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/sim/simulator.h"
#include "engine/sim/workload.h"
#include "engine/status.h"
#include "engine/tensor.h"

namespace pacer::engine {

struct ObservedSpan {
    // Wait: compute blocked on a reduction. Iteration: one whole iteration on that rank (for the observed time).
    // Round: a stand-alone agreement round of dynamic order (engine::RoundEvent), traced apart from the unit it chose
    // by runs from 2026-12-03 on; in older runs a unit's Comm span includes the round that chose it.
    enum Kind { Forward, Backward, Update, Comm, Wait, Iteration, Round } kind = Forward;
    int rank = 0;
    int iteration = 0;
    int layer = -1;          // Forward, Backward, Update (-1: an update of the whole model)
    int tensor = -1;         // Comm: the first tensor of the unit; Update: the tensor, or -1 for the layer
    int segment = -1;        // Comm
    std::int64_t bytes = 0;  // Comm: the unit's bytes (a fused unit: all of them)
    Nanos start = 0;
    Nanos end = 0;
    // Comm: the CPU time the collective's thread spent on it and on the decisions since its previous one
    // (engine/runtime.cpp), where it comes out of compute (Workload::comm_cpu); Round: the round's and the wait's
    // before it (CommCpu::round_ns); -1 when not measured.
    Nanos cpu = -1;
    int lane = 0;  // Comm: which of its rank's comm lanes carried it (plan order: unit k on channel k mod channels)
};

struct ObservedRun {
    std::vector<TensorInfo> tensors;      // forward order, ids 0..n-1
    std::vector<std::string> layerNames;  // forward order
    int ranks = 1;
    std::string policy;  // the policy the run used, e.g. "fifo"
    std::vector<ObservedSpan> spans;
    // The engine that ran (and that replay predicts) took its dynamic-mode decisions with readiness riding on each
    // unit's collective (host memory; see Workload::readiness_rides_on_units). True for the default capture path,
    // CPU ranks in dynamic order; a caller that knows the run used plan mode or GPU memory sets it false.
    bool readiness_rides_on_units = true;
    // CPU ranks (host memory): another policy replayed from a plan-order run runs in dynamic order, readiness riding,
    // with stand-alone rounds the run never measured (fitCostModel prices them). False for GPU runs.
    bool host_memory = true;
    int channels = 1;  // units the runtime kept in flight at once (plan mode's channels)
    // The worker fills a forward's wait with ready updates where the policy asks (Workload::updates_fill_waits): CPU
    // runs stored from 2026-12-06 on (the metric updates_fill_waits), and the worker's own warm-up on CPU ranks.
    bool updates_fill_waits = false;
    // What a collective took from compute, for a run whose spans do not carry `cpu` (a stored run keeps the fit in
    // its metrics). Spans that carry it win.
    CommCpu comm_cpu;
    // The size of the all-reduces the worker timed before training and fitted `comm_cpu` with (engine/collectives/
    // collective_cpu.h; the metric comm_cpu_startup_bytes); 0 for runs stored before 2026-12-04.
    std::size_t startup_collective_bytes = 0;
    // The caller already cut the run to the iterations its measured time averages (app's keepSteadyState, from
    // engine::firstSteadyIteration on): the first iteration left is one of them, not a warm-up to leave out.
    bool warmup_removed = false;
    // The Comm and Round spans of the warm-up iterations that were cut (all but the first, which pays for
    // allocation), kept for the sizes they measured: a run that switched schedules after its warm-up (plan order, a
    // self-tuned pace) may run nothing but a few large fused units in its steady iterations, whose line says nothing
    // of a collective's fixed cost, while its warm-up (dynamic order, the settings as given) ran small ones. Used by
    // fitCostModel and fitCommCpu for the sizes below the smallest the counted iterations ran.
    std::vector<ObservedSpan> warmup_spans;
    // Horovod's cycle, from the run's policy settings (0: the policy held nothing until a time): its ticks are read
    // off the rounds (Workload::timer_wake_ns).
    Nanos cycle_ns = 0;
};

// The CPU a collective takes from compute, fitted (least squares in its bytes) over the counted iterations' Comm
// spans that carry `cpu`, and a round's, the mean over their Round spans that do; the run's own `comm_cpu` when
// none do.
CommCpu fitCommCpu(const ObservedRun& run);
// The same fit from per-size sums: bytes -> (sum of CPU ns, collectives), as a worker accumulates them, and the
// rounds' (sum of CPU ns, rounds); `warmupBySize`: the same sums from a warm-up that ran another schedule, whose
// sizes below the smallest of `cpuBySize` join the fit (ObservedRun::warmup_spans says why).
CommCpu fitCommCpu(const std::map<double, std::pair<double, double>>& cpuBySize,
                   std::pair<double, double> rounds = {0, 0},
                   const std::map<double, std::pair<double, double>>& warmupBySize = {});

// Per-layer times, net of what the run's collectives took from compute (fitCommCpu): per iteration the slowest rank's
// time (a collective waits for the slowest rank), then the mean over the steady iterations (the first is left out when
// there are several, unless ObservedRun::warmup_removed: it pays for allocation and warm caches). Means, not medians:
// the measured iteration time is a mean, and on a loaded machine the occasional descheduled layer is part of it. The
// optimizer's cost per element is the mean of the update spans.
// `only` (sorted iteration numbers) restricts the means to those iterations; empty: every steady one.
Result<Workload> extractWorkload(const ObservedRun& run, const std::vector<int>& only = {});

// The all-reduce cost from the observed collectives. Each collective appears on every rank; it really starts when
// the last rank joins (the others wait for it) and is over when the last rank leaves, so each (iteration, tensor,
// segment) counts from the latest start to the latest end over ranks. A collective that overlapped another (a run
// with several channels) also waited for the other's bytes; where a size has collectives that ran alone, only
// those count, since the simulator adds the queueing itself. Those times are averaged per message size:
// the line alpha + bytes * ns_per_byte is fitted to the per-size means, weighted by their counts (means, as for
// the layers: the measured iteration time is a mean), and the per-size means go into CostModel::measured. With a
// single message size the intercept cannot be told from the slope: alpha is then 0.
// `only` as for extractWorkload. Fails if those iterations hold no collective.
Result<CostModel> fitCostModel(const ObservedRun& run, const std::vector<int>& only = {});

// One steady iteration of a run on its own: its observed time (the slowest rank's; 0 when the run has no Iteration
// spans, e.g. an imported trace) and the workload and cost model that iteration alone shows.
struct IterationEstimate {
    int iteration = 0;
    double observed_ms = 0;
    Workload workload;
    CostModel cost;
};

// What replay learns from a run, robust to a noisy one. On a shared machine an iteration now and then loses a core
// for tens of milliseconds; one such iteration in thirty moves a mean by several percent, and whether the source
// run had one is luck. So the steady iterations whose observed time lies far from the others (more than
// kOutlierSpread robust standard deviations, 1.4826 x the median absolute deviation, and more than 5% from the
// median; judged only with 5 steady iterations or more; at most one in ten, the farthest: more than that is how
// the machine is, and the predicted run will have them too) are set
// aside, the workload and cost model are the means over the rest, and each kept iteration also becomes an
// estimate of its own (`iterations`), from whose spread replay draws the band of a prediction.
//
// A replay of another schedule than the run's own reads `for_another` where it is set. On CPU ranks whose collectives
// take CPU from their compute, which rank's compute a communication thread took its core from is the scheduler's
// choice each time, while the extraction charges each rank with its own collectives' CPU; and a schedule of many
// small units interrupts the ranks' compute unevenly, iteration by iteration. The latest rank of each iteration then
// carries that unevenness, which is the source schedule's and not another's: `for_another` has each rank's step
// times, in each iteration, evened out to the ranks' mean there plus the rank's usual offset from it (over the kept
// iterations), so a rank that is always the slower one stays so. A fifo run of the transformer sample at 10 Gb/s
// (54 units an iteration, on a shared 2-core machine): its ranks' compute per iteration differed with a standard
// deviation of 0.81 ms (0.15-0.31 ms under the other four policies), and the latest rank's came to 5.94 ms against
// 5.59 and 5.60 for either rank alone, which replay carried into DDP and pace: over three grids of two rounds
// each, predicted 4.6-14.7% (DDP) and 4.9-12.7% (pace) too slow, from the evened-out model 2.4-14.5% and 3.8-9.2%.
// Unset where collectives take no CPU from compute (GPU ranks, one rank): there the ranks' unevenness is their own.
struct ObservedModel {
    Workload workload;
    CostModel cost;
    std::vector<IterationEstimate> iterations;  // the kept steady iterations, ascending
    std::vector<int> set_aside;                 // the outlier iterations, ascending
    struct ForAnother {
        Workload workload;
        std::vector<IterationEstimate> iterations;  // as `iterations`
    };
    std::optional<ForAnother> for_another;
};
inline constexpr double kOutlierSpread = 4.0;
Result<ObservedModel> modelObservedRun(const ObservedRun& run);

// The observed steady iteration time in ms: the median of the Iteration spans after the first iteration,
// maximum over ranks. Fails if the run has no Iteration spans.
Result<double> observedIterationMs(const ObservedRun& run);

// Each iteration's period as its collectives show it: from the end of the previous iteration's last collective to
// the end of its own last one (the latest end over ranks), for every iteration whose predecessor had collectives.
std::map<int, double> collectivePeriodsMs(const ObservedRun& run);

// The steady iteration period a short run shows, read off its collectives: the median of collectivePeriodsMs but
// the first (which holds the first iteration's start-up). A collective ends on every rank at about the same moment,
// so these periods are free of the ranks' phase, which the Iteration spans are not: in the first iterations a rank
// that finished early waits for its peer's slow first-touch iteration and books the wait on its own next iteration
// (a 5-iteration warm-up of the small MLP: spans of 38, 29 and 5 ms on one rank and 100, 8 and 15 on the other,
// where the collectives ended 15, 9 and 9 ms apart and the run then settled at 8.5). Over 96 captured runs, the
// first five iterations of each: this at 0.99x the steady period in the median (0.93-1.12x, p10-p90),
// observedIterationMs at 1.11x (0.97-2.7x). Fails with fewer than three consecutive iterations that hold collectives.
Result<double> collectivePeriodMs(const ObservedRun& run);
// The same from periods already taken (collectivePeriodsMs), for a caller that also needs them one by one.
Result<double> collectivePeriodMs(const std::map<int, double>& periods);

// The inverse direction, for tests and for "replay a replay": a simulated trace as an ObservedRun of `ranks`
// identical ranks (the simulator models one).
ObservedRun toObservedRun(const Workload& workload, const SimResult& sim, const std::string& policy);

}  // namespace pacer::engine
