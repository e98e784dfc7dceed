// The runtime: a communication thread that drives a Policy with the real clock over a Transport.
//
// The compute thread announces gradients (gradientReady) and waits for reductions (waitReduced, waitAll); the
// comm thread decides and issues the collectives, one unit at a time, handing a fused unit to the transport as a list of
// spans (Transport::allreduceSpansOn: packed into a scratch buffer, or gathered straight into shared memory). Layer i may be updated as soon as its own tensors are reduced (cross-iteration overlap), except
// under a policy with updateWaitsForAll() (ddp), where waitReduced waits for the whole iteration.
//
// Every rank issues the same collectives in the same order, in one of two modes (docs/ARCHITECTURE.md):
//   Plan     the caller gives the unit order of one iteration; every rank follows it. With C channels, C
//            threads share the plan: unit k goes on channel k mod C, so each channel's order is the same on every
//            rank, and up to C units are in flight at once (each one's fixed cost hides behind another's bytes).
//   Dynamic  before each decision the ranks agree on readiness: an all-reduce sums their readiness flags and
//            carries rank 0's clock; a tensor is ready when all ranks have it, and every rank feeds the same events
//            at the same agreed time to its own copy of the (deterministic) policy, so all ranks choose alike. On
//            host memory the flags ride on the previous unit's own collective (sampled when it started), so a
//            stream of units costs one collective per unit; a stand-alone round runs only when that agreement
//            leaves nothing to send (and, on GPU, before every decision).
//
// Errors (a dead peer, a timeout, bad input) are kept and returned by the next call that waits; after an error
// the runtime stays failed. Every wait has RuntimeOptions::timeout.
#pragma once

#include "engine/collectives/algorithm_cost.h"
#include "engine/policy.h"
#include "engine/status.h"
#include "engine/trace_sink.h"
#include "engine/transport/transport.h"

#include <array>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <limits>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

namespace pacer::engine {

enum class OrderMode { Plan, Dynamic };

struct RuntimeOptions {
    OrderMode mode = OrderMode::Dynamic;
    std::chrono::milliseconds timeout{60000};
    std::vector<CommUnit> plan;  // Plan mode: the unit order of one iteration, covering every element once
    bool gpu = false;            // gradients are device memory (NCCL transport); segments get NVTX ranges
    int channels = 1;            // Plan mode: units in flight at once (at most the transport's channels)
    // How each unit is reduced: the transport's own all-reduce (native), one of engine/collectives' algorithms on
    // the transport's point-to-point layer, or auto: per unit, the algorithm the α-β-γ model (`link`) says is
    // fastest for its size on `topology`. Every rank must be given the same three.
    Algorithm algorithm = Algorithm::Native;
    Topology topology;
    LinkParams link;
};

class Runtime {
public:
    Runtime(Transport& transport, std::unique_ptr<Policy> policy, std::vector<TensorInfo> tensors,
            std::vector<float*> gradients, RuntimeOptions options, TraceSink* sink);
    ~Runtime();  // stops the thread; aborts the transport only if an iteration is still in flight
    Runtime(const Runtime&) = delete;
    Runtime& operator=(const Runtime&) = delete;

    // Starts the next iteration (numbered by the caller, for the trace). Fails if the runtime has failed.
    Status beginIteration(int iteration);
    // The gradient of `tensor` for the current iteration is complete (on GPU: once cudaEvent has fired).
    void gradientReady(int tensor, void* cudaEvent = nullptr);
    // The gradients of `tensors` (one layer's) are complete, all at once (cudaEvents: one per tensor, or empty):
    // the communication thread hears them in one decision. Announced one by one, the thread woke on the first and
    // decided before the next was marked, which then needed an agreement round of its own (about 100 us on a CPU
    // rank, in some iterations and not others).
    void gradientsReady(std::span<const int> tensors, std::span<void* const> cudaEvents = {});
    // Blocks until the gradient last announced for `tensor` is fully reduced (under ddp: until its whole
    // iteration is), or the timeout, or an error.
    Status waitReduced(int tensor);
    // Whether the gradient last announced for `tensor` is fully reduced (false for a tensor that does not exist).
    bool isReduced(int tensor) const;
    // Blocks until the gradient last announced for `tensor` or for one of `others` is fully reduced, or the timeout,
    // or an error: a compute thread with other work that a reduction makes ready (the worker's updates) takes up
    // whichever comes first. Not under ddp, whose updates wait for the whole iteration.
    Status waitReducedOrAny(int tensor, std::span<const int> others);
    // Blocks until every tensor of the last begun iteration is reduced.
    Status waitAll();
    // The first error, or ok.
    Status status() const;

private:
    Status reserveStaging();
    // Dynamic order: whether the next decision's readiness flags ride on each unit (host memory only).
    bool readinessRides() const;
    void commLoop(int channel);
    Status runPlanIteration(int gen, int channel);
    Status runDynamicIteration(int gen);
    Status waitLocallyReady(const CommUnit& unit, int gen);
    Status notReducedInTime(int tensor) const;  // waitReduced's and waitReducedOrAny's timeout
    // rider (host memory only): floats summed in the same collective, after the unit's data.
    Status execute(const CommUnit& unit, int gen, int channel = 0, std::vector<float>* rider = nullptr);
    // The iteration the comm thread is reducing (the trace's number for it).
    int currentIteration(int gen);
    // Sum all-reduce of one unit's buffer on a channel, by the configured algorithm.
    Status reduce(int channel, float* data, std::size_t count);
    void fail(Status error);
    Nanos clockNs() const;

    // Dynamic order, this rank's steady clock minus rank 0's (comm thread only; runDynamicIteration): upper bounds
    // from the agreement rounds of the last iteration and of this one, used until the exits give the offset;
    // this rank's exit of a control collective minus rank 0's, the latest kExitGaps; this rank's last exit (0:
    // none yet).
    std::array<Nanos, 2> rank0ToLocal_{std::numeric_limits<Nanos>::max(), std::numeric_limits<Nanos>::max()};
    std::deque<Nanos> exitGaps_;
    Nanos lastControlExit_ = 0;
    Transport& transport_;
    std::unique_ptr<Policy> policy_;
    std::vector<TensorInfo> tensors_;
    std::vector<float*> gradients_;
    RuntimeOptions options_;
    TraceSink* sink_;
    std::chrono::steady_clock::time_point epoch_ = std::chrono::steady_clock::now();

    mutable std::mutex mutex_;
    std::condition_variable changed_;    // wakes the comm thread
    std::condition_variable reduced_;    // wakes waiting callers
    bool stop_ = false;
    bool inIteration_ = false;
    Status error_;
    int begun_ = 0;                      // iterations begun by the caller (generation numbers 1..begun_)
    int completed_ = 0;                  // iterations whose every tensor is reduced
    std::deque<int> iterationIds_;       // caller's numbers of the begun, not yet completed iterations
    std::vector<int> readyGen_;          // per tensor: generation of the last announced gradient
    std::vector<int> reducedGen_;        // per tensor: generation of the last completed reduction
    std::vector<void*> events_;          // per tensor: CUDA event of the last announced gradient
    std::vector<std::size_t> reducedElements_;  // progress within the current generation
    int channelsDone_ = 0;               // channels that have finished the current generation
    std::vector<std::thread> threads_;   // one per channel
};

}  // namespace pacer::engine
