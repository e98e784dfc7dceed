// What the simulator needs to know about one training iteration, wherever it came from: a captured trace,
// an imported one, or a model-zoo profile.
#pragma once

#include "engine/collectives/algorithm_cost.h"
#include "engine/tensor.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace pacer::engine {

struct LayerTimes {
    std::string name;
    Nanos forward = 0;
    Nanos backward = 0;  // backward runs layers in reverse order; a layer's gradients are ready when it ends
};

// CPU ranks whose cores the compute threads keep busy: the CPU time a collective's thread spends (copies, adds,
// barrier spins, wake-ups) comes out of the compute stream, since the communication threads run at a higher
// priority (app/worker/training_run.cpp lowers compute). Measured per collective with the thread's CPU clock
// (engine/runtime.cpp) and fitted as a line in the collective's bytes. Zero where compute loses nothing to
// communication: GPUs, profiles, hosts with cores to spare.
//
// Dynamic order's stand-alone agreement rounds (RoundEvent) are measured apart, with the wait for news before
// them: a round costs the CPU of a small collective and more (small MLP over shared memory, 10 Gb/s: 45-90 us
// against 30-50 us for a 16 KiB unit that followed another), and a schedule of few units after rounds (fifo) has
// far more rounds per unit than one of many segments back to back (pace). Folded into the units' line, fifo's
// rounds priced every segment of pace at twice its CPU. Runs traced before 2026-12-04 have no round figure
// (round_ns 0): their rounds are in the units' line, as they were measured.
struct CommCpu {
    double alpha_ns = 0;      // per collective
    double ns_per_byte = 0;
    double round_ns = 0;      // per stand-alone agreement round, with the wait for news before it
    bool any() const { return alpha_ns > 0 || ns_per_byte > 0 || round_ns > 0; }
    double at(std::size_t bytes) const { return alpha_ns + ns_per_byte * static_cast<double>(bytes); }
    // A collective's CPU spread evenly over `span` ns of it (extraction and simulation alike): CPU ns per ns, at
    // most one core.
    double density(std::size_t bytes, Nanos span) const { return spread(at(bytes), span); }
    double roundDensity(Nanos span) const { return spread(round_ns, span); }

private:
    static double spread(double cpu, Nanos span) {
        return span > 0 ? std::min(1.0, cpu / static_cast<double>(span)) : 0.0;
    }
};

// Whether a CPU rank's collectives take their CPU from compute: when the compute threads of the ranks on one host,
// with one busy communication thread per rank, outnumber its cores.
inline bool commTakesFromCompute(bool cpuRanks, int ranksOnHost, int computeThreadsPerRank, unsigned cores) {
    return cpuRanks && cores > 0 &&
           static_cast<long long>(ranksOnHost) * (computeThreadsPerRank + 1) > static_cast<long long>(cores);
}

struct Workload {
    std::vector<TensorInfo> tensors;  // forward order; tensors[i].id == i
    std::vector<LayerTimes> layers;   // forward order; tensors[].layer indexes this
    // Optimizer step cost, applied per tensor when its reduction is done. A double because real steps cost a
    // fraction of a nanosecond per element on a GPU (memory bound: ~20 B moved per element).
    double update_ns_per_element = 0;
    int ranks = 2;
    // How a real runtime reacts, measured on a captured run (0 for a profile): the compute stream resumes
    // resume_ns after a reduction it waited for has finished (a thread wake-up), and a unit goes on the idle link
    // dispatch_ns after its gradient became ready (the communication thread's wake-up).
    Nanos resume_ns = 0;
    Nanos dispatch_ns = 0;
    // The same wake-up by the layer whose backward made the gradient ready, where the run showed that layer's
    // (empty, or < 0 for a layer: dispatch_ns): what the core runs right after a backward decides how long the
    // woken thread waits for it. A fifo run of the transformer at 2.5 Gb/s woke 7 us after one layer every time and
    // 0.35-0.7 ms after another in 12-22% of iterations; their one mean (28-70 us, by the run) charged to every
    // wake-up of a plan-order pace made self-tuning choose dynamic order, predicted 15.0 ms where plan ran 13.3.
    std::vector<Nanos> dispatch_by_layer_ns;
    Nanos dispatchAfter(int layer) const {
        const bool known = layer >= 0 && layer < static_cast<int>(dispatch_by_layer_ns.size()) &&
                           dispatch_by_layer_ns[layer] >= 0;
        return known ? dispatch_by_layer_ns[layer] : dispatch_ns;
    }
    // A policy that holds work until a time it names (Horovod's tick) has its round start timer_wake_ns after that
    // time: the comm threads' timed wake-up, to the last rank's join (engine::horovodTick). 0: dispatch_ns stands for
    // it (a run without ticks).
    Nanos timer_wake_ns = 0;
    // How much earlier than the simulator's first round (the latest rank's) the policy's cycle begins: the runtime
    // counts it from rank 0's entry into the iteration's first round, and rank 0 enters before the last rank by
    // however far its backward ran ahead (engine::horovodTick). 0 for a run without ticks, and for a profile.
    Nanos tick_anchor_lead_ns = 0;
    // On a CPU host with every core busy, the compute thread that a reduction wakes takes the core the communication
    // thread needs for its next collective: a unit that follows straight on from one that ended a compute wait starts
    // release_gap_ns after it (instead of the comm thread's usual gap), or as soon as that compute blocks again if it
    // does sooner. Measured on a captured run; 0 for a profile and with channels (the simulator applies it on one
    // channel only).
    Nanos release_gap_ns = 0;
    // Untraced compute after an iteration's last backward and before the next one (the next batch, the loss):
    // it delays the next forward, not the gradients, which are announced as each backward ends.
    Nanos tail_ns = 0;
    // The machine's stalls in the run, per iteration on average: what its iterations set aside as outliers (a
    // thread that lost its core for tens of ms) added to its mean period. Layer times and costs are fitted without
    // those iterations; the run's measured mean includes them, and so will the mean of a run predicted from it. The
    // simulator adds it to the period as idle time that no policy removes. 0 for a profile.
    Nanos stall_ns = 0;
    // The runtime's dynamic mode on host memory carries the readiness flags of the next decision on each unit's
    // own collective, sampled when the unit starts: a gradient that becomes ready during a unit is heard one
    // decision later than with a round before every decision (engine/runtime.h).
    bool readiness_rides_on_units = false;  // set through readinessRidesOnUnits()
    // The worker that made the run, on CPU ranks, fills a forward's wait with ready updates under a policy that asks
    // for it (Policy::updatesFillWaits: pace): the compute thread that must wait for a layer's reduction applies
    // meanwhile the updates of the later layers whose reductions are done, nearest first, and waits only when none
    // is (app/worker/training_run.cpp). Off, or under any other policy: each layer's update runs just before its
    // forward, after its wait (GPU runs, profiles, runs stored before 2026-12-06).
    bool updates_fill_waits = false;
    // Units in flight at once (the runtime's channels in plan mode): unit k of an iteration goes on channel
    // k mod channels; the channels share one link, so a unit's bytes follow those issued before it, while the
    // fixed part of its cost (CostModel::at minus its bytes' share) overlaps with the others.
    int channels = 1;
    // What each collective takes from the compute stream (CPU ranks with every core busy; see CommCpu). The
    // simulator lengthens a compute step by the CPU of the collectives that run during it; extraction removes
    // what the source run's collectives took, so the layer times are the compute alone.
    CommCpu comm_cpu;
    std::string name;  // the model's name (zoo profile) or the run it was extracted from; informational

    // The optimizer step for `elements` elements, on the compute stream.
    Nanos updateNanos(std::size_t elements) const {
        return static_cast<Nanos>(std::llround(update_ns_per_element * static_cast<double>(elements)));
    }
};

// The one rule for where readiness travels: the runtime's dynamic order on host memory appends the flags of the
// next decision to each unit's own collective (engine/runtime.cpp); plan order needs no agreement, and NCCL
// reduces device memory while the flags live on the host, so a GPU run agrees in a round of its own.
inline bool readinessRidesOnUnits(bool planOrder, bool hostMemory) { return !planOrder && hostMemory; }

// Dynamic order's control block, what a stand-alone agreement round all-reduces and what rides on each unit: one
// readiness flag per tensor, then two of rank 0's clock readings in four 16-bit chunks each (engine/runtime.cpp).
inline constexpr std::size_t kControlClockFloats = 8;
inline std::size_t controlBlockBytes(std::size_t tensors) { return (tensors + kControlClockFloats) * sizeof(float); }

// All-reduce cost t(bytes) = alpha + bytes / bandwidth, fitted from observed segments (or set by what-if knobs).
//
// A fitted model may also carry the measured mean time of each observed message size (`measured`, ascending by
// bytes). Then at() follows those measurements, linear between neighbouring sizes and above the largest with the
// slope of the two largest where bytes count there (beyondSlope): on a real machine the fixed cost of a collective
// is not the same for a 4 KiB and a 4 MiB message (thread wake-ups, copies), and a single line through both
// mispredicts the large messages, where most of the time goes. Below the smallest size the line's slope continues
// from it.
// What-if knobs on the link drop the table.
struct CostModel {
    double alpha_ns = 20'000;        // per collective call
    double ns_per_byte = 0.8;        // 1 / bandwidth (0.8 ns/B is 10 Gb/s)
    std::vector<std::pair<double, double>> measured;  // (bytes, mean ns), ascending bytes; empty: the line alone
    // Dynamic order on CPU ranks (Workload::readiness_rides_on_units): what a stand-alone agreement round costs. The
    // runtime decides after each unit with the readiness that rode on it; when that finds nothing to send (as at
    // every iteration's start, where the name comes from, and before each of DDP's buckets) the comm thread runs a
    // round of its own on the next gradient's news, and again on each news while the policy still holds back.
    // Runs trace each round as a span of its own (RoundEvent, ObservedSpan::Round) and the simulator draws it so
    // (SimEvent::Round); in runs traced before 2026-12-03 a unit's span begins with the round that chose it.
    double first_unit_extra_ns = 0;
    // One channel: how long the comm thread takes between the end of one collective and the start of the next that
    // was already waiting (its bookkeeping, the wake-up of the rank that finished last, the ranks' skew). A few us
    // per unit on CPU ranks here, it adds up where a policy cuts gradients into many segments.
    double unit_gap_ns = 0;
    // Set when replay models a collective algorithm (WhatIf::algorithm; native = not set): at() is then that
    // algorithm's α-β-γ cost on its topology and rank count (auto: the cheapest candidate for each size), and the
    // line and table above only give a unit's share of the wire when channels overlap.
    struct Collective {
        Algorithm algorithm = Algorithm::Native;
        Topology topology;
        int ranks = 1;
        LinkParams link;
    };
    Collective collective{};

    Nanos at(std::size_t bytes) const {
        const double b = static_cast<double>(bytes);
        if (collective.algorithm != Algorithm::Native) {
            const Collective& c = collective;
            const Algorithm a = c.algorithm == Algorithm::Auto ? chooseAlgorithm(c.ranks, c.topology, bytes, c.link)
                                                               : c.algorithm;
            return static_cast<Nanos>(std::llround(allreduceCostNs(a, c.ranks, c.topology, b, c.link)));
        }
        if (measured.empty()) return static_cast<Nanos>(std::llround(alpha_ns + ns_per_byte * b));
        if (b <= measured.front().first) {
            // Below the smallest measured size only the bytes are saved: the line's slope through that point.
            const auto& [x0, y0] = measured.front();
            return static_cast<Nanos>(std::llround(std::max(0.0, y0 - ns_per_byte * (x0 - b))));
        }
        for (std::size_t i = 1; i < measured.size(); ++i) {
            const auto& [x0, y0] = measured[i - 1];
            const auto& [x1, y1] = measured[i];
            if (b <= x1) return static_cast<Nanos>(std::llround(y0 + (y1 - y0) * (b - x0) / (x1 - x0)));
        }
        return static_cast<Nanos>(std::llround(measured.back().second + beyondSlope() * (b - measured.back().first)));
    }
    // Cost per byte above the largest measured size: the slope of the two largest sizes, or the line's. The two
    // largest say what a byte costs only where bytes are a fair part of their time (the line's byte term at the
    // largest at least half its fixed cost); below that their slope is the noise of fixed costs: a 2-channel
    // transformer run at 1 Gb/s kept only units of 40 B-5 KiB in its table (the rest queued behind one another),
    // whose slope, 0.23 Gb/s, priced its 256 KiB units at 9 ms instead of 2.2 and replayed the run at 2.4x its time.
    double beyondSlope() const {
        if (measured.size() < 2 || 2 * ns_per_byte * measured.back().first < alpha_ns) return ns_per_byte;
        const auto& [x0, y0] = measured[measured.size() - 2];
        const auto& [x1, y1] = measured.back();
        if (x1 < 1.5 * x0) return ns_per_byte;  // too close in size for a slope to mean anything
        const double s = (y1 - y0) / (x1 - x0);
        return s > 0 ? s : ns_per_byte;
    }
};

}  // namespace pacer::engine
