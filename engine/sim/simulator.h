// The simulator: the runtime's policy objects driven by a virtual clock and a cost model.
//
// One rank is simulated (data parallelism is symmetric: the workload already holds the slowest rank's layer
// times and the cost model the collective's time across all ranks). Two resources run side by side: the compute
// stream (forward, backward, optimizer updates) and the link, which carries one communication unit at a time in
// the order the policy picks (or, with Workload::channels > 1, several, whose bytes queue on the one wire). Several iterations run back to back so that cross-iteration overlap reaches steady
// state: the forward of layer i in iteration k+1 waits only for the reduction (and update) of layer i's
// gradients from iteration k, unless the policy keeps DDP's barrier (updateWaitsForAll), where it waits for all.
//
// The result is a trace shaped like a captured one (compute events on "rank 0 compute", communication events on
// "rank 0 comm") plus the figures of the steady iterations and a lower bound no schedule can beat.
#pragma once

#include <algorithm>
#include <vector>

#include "engine/policy.h"
#include "engine/sim/workload.h"
#include "engine/status.h"
#include "engine/tensor.h"

namespace pacer::engine {

struct SimOptions {
    int iterations = 4;  // simulated back to back; the figures come from the steady ones at the end
    int warmup = -1;     // iterations left out of the figures; -1 = iterations / 2 (at least 1 when iterations > 1)
    // Consecutive segments of one tensor that go back to back on one channel, with nothing heard in between, are
    // simulated as one step and come out as one event (SimEvent::units > 1), so that the cost of a replay does not
    // grow with the number of segments (the schedule editor's slider at 4 KiB). Figures, reduction times and
    // the units they stand for are the same as without it; only the events and SimResult::order are coarser (a run
    // is one entry there too: plan mode, which follows the order unit by unit, never asks for runs).
    bool segment_runs = false;

    // The first of the iterations the figures come from (counted after any lead-in): `warmup`, or its default.
    int steadyFrom() const {
        return warmup >= 0 ? std::min(warmup, iterations - 1) : (iterations > 1 ? std::max(1, iterations / 2) : 0);
    }
};

struct SimEvent {
    // Wait: the compute stream idles until a reduction it needs has finished (exposed communication). Round: a
    // stand-alone agreement round on the comm thread (CostModel::first_unit_extra_ns), before the unit it chose or
    // finding nothing, drawn apart from the unit as the runtime traces it.
    enum Kind { Forward, Backward, Update, Comm, Wait, Round } kind = Forward;
    int iteration = 0;  // an Update belongs to the iteration whose gradients it applies
    int layer = -1;     // -1 for Comm
    CommUnit unit;      // Comm only
    int channel = 0;    // Comm only: the channel that carried it (Workload::channels)
    // Comm only: the units this event stands for (SimOptions::segment_runs): consecutive segments of one tensor,
    // sent back to back; `unit`'s one piece spans them, each but the last of unit_elements elements.
    int units = 1;
    std::size_t unit_elements = 0;
    Nanos start = 0;
    Nanos end = 0;
};

struct SimFigures {
    double iter_ms = 0;          // mean steady iteration period (start of one iteration's compute to the next)
    double compute_ms = 0;       // compute stream busy time per iteration
    double comm_ms = 0;          // link busy time per iteration
    double overlap = 0;          // 0..1: the share of comm_ms hidden behind compute
    double exposed_comm_ms = 0;  // comm_ms not hidden behind compute
    double idle_ms = 0;          // neither computing nor communicating: iter = compute + exposed + idle
    double lower_bound_ms = 0;   // no policy can do better on this workload and cost model (see simulator.cpp)
    double stall_ms = 0;         // of iter_ms and idle_ms: the source run's stalls (Workload::stall_ns)
    // Forward, backward, updates and tail alone (computeAloneMs): compute_ms less what collectives took from the
    // compute stream (Workload::comm_cpu). Of a run replayed as itself, the machine's compute speed in that run.
    double compute_alone_ms = 0;
};

struct SimResult {
    SimFigures figures;
    std::vector<SimEvent> events;         // compute events and comm events, each resource in time order
    std::vector<CommUnit> order;          // the unit order of the last iteration: what plan mode follows
    std::vector<Nanos> iteration_starts;  // when the compute stream began each iteration, plus where the next
                                          // one would begin (size iterations + 1)
};

// Runs `options.iterations` iterations of `workload` under `policy` (which must be fresh, as makePolicy returns
// it). Fails on a malformed workload or a policy that stalls (holds work back with no wake time) or never
// finishes an iteration.
Result<SimResult> simulate(const Workload& workload, Policy& policy, const CostModel& cost, const SimOptions& options);

// The lower bound alone, in ms per iteration: the largest of compute + the unavoidable wait for the input-side
// layer's reduction, one collective carrying every byte, and every byte plus the link's unavoidable idle on the
// output side (the forward and backward of the last layers, while only their own few bytes can travel). Cheap;
// simulate() fills it into its figures too.
double lowerBoundMs(const Workload& workload, const CostModel& cost);

// The compute of one iteration with nothing taken from it: every layer's forward and backward, every update and the
// tail, in ms.
double computeAloneMs(const Workload& workload);

// Checks the workload's shape: tensor ids 0..n-1 in order, layers in range, non-negative times.
Status validateWorkload(const Workload& workload);

}  // namespace pacer::engine
