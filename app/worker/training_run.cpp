#include "app/worker/training_run.h"

#include "app/common/experiment.h"
#include "app/common/experiment_tuning.h"
#include "app/common/policy_json.h"
#include "app/common/tuned_settings.h"
#include "app/worker/progress.h"
#include "app/worker/trace_bridge.h"
#include "app/worker/trace_writer_thread.h"
#include "engine/planning/schedule_exchange.h"
#include "engine/planning/warmup_schedule.h"
#include "engine/collectives/calibrate.h"
#include "engine/collectives/collective_cpu.h"
#include "engine/policy_config.h"
#include "engine/runtime.h"
#include "engine/start_priority_launcher.h"
#include "engine/transport/transport.h"
#include "kernels/cpu_binding.h"
#include "kernels/dataset.h"
#include "kernels/device.h"
#include "kernels/model.h"
#include "kernels/model_spec.h"
#include "kernels/optimizer.h"
#include "pacer/config.h"
#include "profiler/clock.h"
#include "profiler/cpu_tracer.h"
#include "profiler/cupti_tracer.h"
#include "profiler/rank_file.h"

#if PACER_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <numeric>
#include <thread>

namespace pacer::worker {
namespace {

using profiler::nowNs;

// How often the trace writer thread moves the tracers' buffers to the rank file (when a core is free): bounds
// memory, and what a crash can lose.
constexpr std::chrono::milliseconds kTraceWritePeriod{200};

// What the calling thread has used so far.
struct ThreadUse {
    std::int64_t cpu_ns = 0;       // user + system time
    std::int64_t system_ns = 0;    // of which in the kernel (system calls, interrupts taken, switches)
    std::int64_t preemptions = 0;  // involuntary context switches
};
ThreadUse threadUse() {
    rusage u{};
    if (getrusage(RUSAGE_THREAD, &u) != 0) return {};
    const auto ns = [](const timeval& t) {
        return std::int64_t(t.tv_sec) * 1'000'000'000 + std::int64_t(t.tv_usec) * 1000;
    };
    return {ns(u.ru_utime) + ns(u.ru_stime), ns(u.ru_stime), u.ru_nivcsw};
}

struct Setup {
    app::Experiment experiment;
    kernels::ModelSpec spec;
    kernels::Device device = kernels::Device::Cpu;
    engine::PolicyConfig policy;
    engine::ScheduleRequest schedule;  // what the warm-up switch chooses, and what the user fixed
    bool switchAfterWarmup = false;    // plan order, or a pace that tunes itself
};

// Self-tuning needs a steady warm-up iteration beyond the first (which pays for allocation and cold caches).
constexpr int kWarmupToTune = 2;

engine::ScheduleRequest scheduleRequest(const app::Experiment& e, const engine::PolicyConfig& policy) {
    engine::ScheduleRequest r;
    r.tune = app::fixedByExperiment(e, policy);
    r.self_tune = engine::wantsSelfTune(r.tune) && e.warmupIterations >= kWarmupToTune;
    return r;
}

Setup loadSetup(const WorkerOptions& o) {
    Setup s;
    std::string error;
    auto experiment = app::loadExperiment(o.experimentPath, &error);
    if (!experiment) throw UsageError(error);
    s.experiment = std::move(*experiment);
    if (s.experiment.ranks != o.worldSize)
        throw UsageError("the experiment has " + std::to_string(s.experiment.ranks) + " ranks but the world size is " +
                         std::to_string(o.worldSize));
    try {
        s.spec = kernels::parseModelSpec(s.experiment.model);
    } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("model: ") + e.what());
    }
    if (!app::policyConfigFromJson(s.experiment.policy, &s.policy, &error)) throw UsageError(error);
    s.schedule = scheduleRequest(s.experiment, s.policy);
    s.switchAfterWarmup = engine::switchesAfterWarmup(s.experiment.order == "plan", s.schedule.self_tune);
    if (s.experiment.backend == "gpu") {
        std::string why;
        if (!kernels::cudaDeviceAvailable(&why)) throw UsageError("backend gpu: " + why);
#if PACER_HAVE_CUDA
        // One rank per GPU: more ranks on a node than it has GPUs is an impossible setting, not a slow one.
        int gpus = 0;
        if (cudaGetDeviceCount(&gpus) != cudaSuccess) gpus = 0;
        if (o.localRank >= gpus)
            throw UsageError("rank " + std::to_string(o.rank) + " needs GPU " + std::to_string(o.localRank) +
                             " but this node has " + std::to_string(gpus) + " (more ranks than GPUs)");
        if (cudaSetDevice(o.localRank) != cudaSuccess)
            throw RunError("cannot select GPU " + std::to_string(o.localRank));
#endif
        s.device = kernels::Device::Cuda;
    }
    return s;
}

std::uint64_t fnv1a(const void* data, std::size_t bytes, std::uint64_t h) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < bytes; ++i) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

// The final parameters, copied to the host, in forward order.
std::vector<std::vector<float>> hostParameters(const std::vector<kernels::ParamView>& params, kernels::Device device) {
    std::vector<std::vector<float>> out;
    for (const kernels::ParamView& p : params) {
        std::vector<float> values(p.count);
        if (device == kernels::Device::Cuda) {
#if PACER_HAVE_CUDA
            if (cudaMemcpy(values.data(), p.value, p.count * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess)
                throw RunError("cannot copy parameters from the GPU");
#endif
        } else {
            std::copy(p.value, p.value + p.count, values.begin());
        }
        out.push_back(std::move(values));
    }
    return out;
}

class TrainingRun {
public:
    TrainingRun(const WorkerOptions& options, Setup setup)
        : o_(options), s_(std::move(setup)), tracer_(options.rank), progress_(options.rank) {}

    void run() {
        build();
        try {
            loop();
        } catch (...) {
            // Keep the trace captured so far: the launcher merges what the ranks wrote.
            runtime_.reset();
            traceWriter_.reset();  // stops it; the error that ended the run is the one to report
            if (writer_) {
                (void)flushTraces(true);
                (void)writer_->close();
            }
            throw;
        }
        finish();
    }

private:
    void build() {
        const app::Experiment& e = s_.experiment;
        kernels::setCpuThreads(e.threadsPerRank);
        if (s_.device == kernels::Device::Cuda && e.trace) {
            // Before any CUDA work, so that CUPTI sees the model's allocations and first kernels too.
            auto cupti = profiler::CuptiTracer::start(o_.rank);
            if (cupti.ok()) cupti_ = std::move(cupti).value();
            else progress_.note("no GPU trace: " + cupti.status().message());
        }
        try {
            model_ = kernels::Model::create(s_.spec, e.seed, s_.device);
            data_ = std::make_unique<kernels::SyntheticDataset>(s_.spec, e.seed + 1);
            params_ = model_->parameters();
            optimizer_ = kernels::Optimizer::create(kernels::parseOptimizerConfig(e.optimizer), params_, s_.device);
        } catch (const std::invalid_argument& ex) {
            throw UsageError(ex.what());
        }
        for (int l = 0; l < model_->layerCount(); ++l) layerNames_.push_back(model_->layerName(l));
        tensorsOfLayer_.assign(layerNames_.size(), {});
        for (std::size_t i = 0; i < params_.size(); ++i) {
            engine::TensorInfo t;
            t.id = static_cast<int>(i);
            t.name = params_[i].name;
            t.layer = params_[i].layer;
            t.elements = params_[i].count;
            tensors_.push_back(t);
            tensorsOfLayer_[t.layer].push_back(t.id);
            gradients_.push_back(params_[i].grad);
        }
        if (auto st = engine::validate(s_.policy, tensors_); !st.ok()) throw UsageError("policy: " + st.message());

        engine::TransportOptions t;
        t.rank = o_.rank;
        t.size = o_.worldSize;
        t.rendezvous_dir = o_.rendezvous;
        t.host = o_.host;
        t.iface = o_.iface;
        t.timeout = timeout();
        t.link_gbps = e.linkGbps;
        t.link_latency_us = e.linkLatencyUs;
        t.channels = channelsAtMost();
        t.shm_slot_stores = o_.shmStores;
        auto kind = engine::parseCpuTransport(e.transport);
        if (!kind.ok()) throw UsageError(kind.message());
        t.cpu_transport = kind.value();
        auto transport = s_.device == kernels::Device::Cuda ? makeGpuTransport(t) : engine::makeCpuTransport(t);
        if (!transport.ok()) throw RunError(transport.status().message());
        transport_ = std::move(transport).value();

        profiler::RunInfo info;
        info.label = e.name;
        info.policy = s_.policy.name;
        nlohmann::json recorded = e.toJson();
        if (s_.device != kernels::Device::Cuda) recorded["transport"] = transport_->name();  // what "auto" chose
        info.experiment_json = recorded.dump();
        info.segment_bytes = static_cast<std::int64_t>(s_.policy.segment_bytes);
        info.ranks = o_.worldSize;
        info.iterations = e.iterations;
        info.backend = e.backend;
        info.run_key = o_.runKey;
        info.started_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
            std::chrono::system_clock::now().time_since_epoch()).count();
        auto writer = profiler::RankFileWriter::create(o_.runDir + "/rank-" + std::to_string(o_.rank) + ".pacer", info,
                                                       o_.rank);
        if (!writer.ok()) throw RunError(writer.status().message());
        writer_ = std::move(writer).value();
        std::vector<profiler::TensorRecord> records;
        for (const engine::TensorInfo& t : tensors_)
            records.push_back({t.id, t.name, t.layer, static_cast<std::int64_t>(t.elements)});
        check(writer_->writeTensors(records));

        bridge_ = std::make_unique<TraceBridge>(tracer_, tensors_, layerNames_, o_.rank, e.trace);
        bridge_->keepSpans(s_.switchAfterWarmup);
        // Every rank of a run the launcher starts shares this host (a cluster launch with one rank per node and
        // cores to spare would be judged busier than it is, and its compute charged for collectives' CPU).
        bridge_->measureCommCpu(engine::commTakesFromCompute(s_.device == kernels::Device::Cpu, o_.worldSize,
                                                             e.threadsPerRank, std::thread::hardware_concurrency()));
        chooseCollectives(e);
        if (bridge_->measuresCommCpu()) {  // a point at the small end of the run's CPU line (collective_cpu.h)
            auto startup = engine::measureCollectiveCpu(*transport_, engine::kStartupCollectiveBytes,
                                                        engine::kStartupCollectiveCalls);
            if (!startup.ok()) throw RunError(startup.status().message());
            bridge_->addStartupCollectives(startup.value());
        }
        engine::Schedule warmup;  // dynamic order, one channel, the settings as given
        warmup.policy = s_.policy;
        startRuntime(std::move(warmup));
    }

    // The transport needs a channel for every unit the run may keep in flight: the experiment's, or as many as
    // self-tuning may choose. (The trace gets a lane per channel only when a runtime runs that many.)
    int channelsAtMost() const {
        const engine::TuneRequest& t = s_.schedule.tune;
        return s_.schedule.self_tune && !t.channels_fixed ? 4 : s_.experiment.channels;
    }

    // The experiment's algorithm and topology; auto chooses per unit by α, β, γ: the emulated link's when there is
    // one (per port), otherwise fitted on these ranks now (engine/collectives/calibrate.h), the same on every rank.
    void chooseCollectives(const app::Experiment& e) {
        auto algorithm = engine::parseAlgorithm(e.algorithm);
        auto topology = engine::parseTopology(e.topology, o_.worldSize);
        if (!algorithm.ok()) throw UsageError(algorithm.status().message());
        if (!topology.ok()) throw UsageError(topology.status().message());
        algorithm_ = algorithm.value();
        topology_ = topology.value();
        if (algorithm_ != engine::Algorithm::Auto) return;
        if (e.linkGbps > 0) {
            link_ = engine::emulatedLink(e.linkGbps, e.linkLatencyUs);
            return;
        }
        auto fitted = engine::calibrateLinkParams(*transport_, topology_);
        if (!fitted.ok()) throw RunError(fitted.status().message());
        link_ = fitted.value();
    }

    engine::Result<std::unique_ptr<engine::Transport>> makeGpuTransport(const engine::TransportOptions& t) {
#if PACER_HAVE_NCCL
        return engine::makeNcclTransport(t, o_.localRank, model_->computeStream());
#else
        (void)t;
        throw UsageError("backend gpu: this build has no NCCL");
#endif
    }

    std::chrono::milliseconds timeout() const {
        return std::chrono::milliseconds(static_cast<std::int64_t>(s_.experiment.timeoutSeconds * 1000));
    }

    void check(const engine::Status& st) {
        if (!st.ok()) throw RunError(st.message());
    }
    void check(const profiler::Status& st) {
        if (!st.ok()) throw RunError(st.message());
    }

    // The CPU tracer's records, and on GPUs what CUPTI has handed over, go to the rank file in one batch each.
    profiler::Status flushTraces(bool last) {
        if (auto st = writer_->flush(tracer_); !st.ok()) return st;
        if (!cupti_) return profiler::Status();
        if (last) (void)cupti_->stop();
        else if (auto st = cupti_->flush(); !st.ok()) return st;
        // CUPTI's dropped count is cumulative: add it once, with the last batch.
        return writer_->writeEvents(cupti_->tracks(), cupti_->takeEvents(), last ? cupti_->dropped() : 0);
    }

    void startRuntime(engine::Schedule schedule) {
        runtime_.reset();
        auto policy = engine::makePolicy(schedule.policy, tensors_);
        if (!policy.ok()) throw UsageError("policy: " + policy.status().message());
        updateWaitsForAll_ = policy.value()->updateWaitsForAll();
        updatesFillWaits_ = policy.value()->updatesFillWaits() && !updateWaitsForAll_;
        engine::RuntimeOptions ro;
        ro.mode = schedule.plan_order ? engine::OrderMode::Plan : engine::OrderMode::Dynamic;
        ro.channels = schedule.plan_order ? schedule.channels : 1;  // dynamic order agrees one unit at a time
        bridge_->useChannels(ro.channels);
        ro.plan = std::move(schedule.plan);
        ro.timeout = timeout();
        ro.gpu = s_.device == kernels::Device::Cuda;
        ro.algorithm = algorithm_;
        ro.topology = topology_;
        ro.link = link_;
        // From the launcher, so that the runtime's comm threads keep the start priority after this thread has
        // lowered its own (yieldToCommunication): the warm-up switch starts a runtime from the training loop.
        launcher_.run([&] {
            runtime_ = std::make_unique<engine::Runtime>(*transport_, std::move(policy).value(), tensors_, gradients_,
                                                         std::move(ro), bridge_.get());
        });
    }

    // Before layer `layer` runs forward in iteration `it`, its parameters must hold the update of iteration it-1.
    // Only that layer's reductions are waited for (cross-iteration overlap); DDP waits for all of them. Under pace on
    // CPU ranks the wait is first filled with other layers' ready updates (updateWhileWaiting).
    void ensureUpdated(int layer, int it) {
        if (it == 0) return;
        if (updateWaitsForAll_ && !allReduced_) {
            const std::int64_t t0 = nowNs();
            check(runtime_->waitAll());
            bridge_->wait(0, it - 1, t0, nowNs());
            allReduced_ = true;
            for (const engine::TensorInfo& t : tensors_) applyUpdate(t.id, it - 1);
            return;
        }
        for (int t : tensorsOfLayer_[layer]) {
            if (updated_[t]) continue;
            if (fillWaits()) updateWhileWaiting(layer, t, it);
            const std::int64_t t0 = nowNs();
            check(runtime_->waitReduced(t));
            const std::int64_t t1 = nowNs();
            if (t1 - t0 > 2000) bridge_->wait(t, it - 1, t0, t1);
            applyUpdate(t, it - 1);
        }
    }

    // Under pace on CPU ranks (fillWaits). The compute thread would idle while `layer`'s forward waits for tensor
    // t's reduction: the first layer's gradients are the last a backward makes, so every iteration starts with that
    // wait, while the later layers' reductions, done by then, leave their updates for their own forwards. It applies
    // those updates meanwhile, nearest layer first, and blocks only when none is ready, until t's reduction or one of
    // theirs is done. The same updates in another order (each touches its own tensor): the parameters are as
    // before. On the 42M-parameter MLP the wait was 37 ms an iteration beside 45 ms of such updates. On GPU ranks the
    // host thread only enqueues, so its wait is no idle device. engine::Workload::updates_fill_waits models it.
    void updateWhileWaiting(int layer, int t, int it) {
        std::vector<int>& pending = pendingTensors_;
        while (!runtime_->isReduced(t)) {
            int ready = -1;
            pending.clear();
            for (int m = layer + 1; m < static_cast<int>(tensorsOfLayer_.size()) && ready < 0; ++m) {
                bool waiting = false, all = true;
                for (int u : tensorsOfLayer_[m]) {
                    if (updated_[u]) continue;
                    waiting = true;
                    if (!runtime_->isReduced(u)) {
                        all = false;
                        pending.push_back(u);
                    }
                }
                if (waiting && all) ready = m;
            }
            if (ready >= 0) {
                for (int u : tensorsOfLayer_[ready]) applyUpdate(u, it - 1);
                continue;
            }
            if (pending.empty()) return;  // nothing else to do: wait for t alone
            const std::int64_t t0 = nowNs();
            check(runtime_->waitReducedOrAny(t, pending));
            const std::int64_t t1 = nowNs();
            if (t1 - t0 > 2000) bridge_->wait(t, it - 1, t0, t1);
        }
    }

    bool fillWaits() const { return s_.device == kernels::Device::Cpu && updatesFillWaits_; }

    void applyUpdate(int t, int it) {
        if (updated_[t]) return;
        const std::int64_t t0 = nowNs();
        optimizer_->update(t, 1.0f / static_cast<float>(o_.worldSize));
        bridge_->update(t, it, t0, nowNs());
        updated_[t] = true;
    }

    // On CPU ranks the communication threads (the engine's and Gloo's) stand in for a NIC, which in a real cluster
    // moves data whatever the cores are doing. With more busy threads than cores, a collective otherwise waits for
    // a timeslice behind the peer's compute; so compute yields to them: only this thread is lowered, after the
    // transport and runtime threads were created at normal priority. Threads inherit their creator's priority, so
    // a runtime started later (the warm-up switch) is created by launcher_, which kept the normal one.
    void yieldToCommunication() {
        if (s_.device != kernels::Device::Cpu) return;
        (void)setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10);
    }

    // Each CPU rank of this node computes on cores of its own (kernels/cpu_binding.h), when every rank has some.
    // The communication threads, started already, keep the whole mask where the node has a core to spare for them,
    // and join the compute on the rank's cores where it has none (PACER_BIND=compute: never). The run records the
    // first core, and whether the communication threads were bound.
    void bindCompute() {
        if (s_.device != kernels::Device::Cpu || o_.binding == app::CoreBinding::None) return;
        const std::vector<int> allowed = kernels::allowedCpus();
        const std::vector<int> share =
            kernels::coreShare(allowed, o_.localRank, o_.localWorldSize, s_.experiment.threadsPerRank);
        if (share.empty()) return;
        std::string error;
        if (!kernels::bindComputeThreads(share, &error)) {
            progress_.note(error + "; computing wherever the scheduler puts this rank");  // slower, not wrong
            return;
        }
        boundCpu_ = share.front();
        const bool noCoreToSpare = engine::commTakesFromCompute(true, o_.localWorldSize, s_.experiment.threadsPerRank,
                                                                static_cast<unsigned>(allowed.size()));
        if (o_.binding != app::CoreBinding::Cores || !noCoreToSpare) return;
        if (!kernels::bindProcessThreads(share, &error)) {
            progress_.note(error + "; the communication threads run wherever the scheduler puts them");
            return;
        }
        commBound_ = true;
    }

    void loop() {
        const app::Experiment& e = s_.experiment;
        // Before this thread lowers its priority and binds its cores: the writer keeps the normal priority (and the
        // whole mask, unless bindCompute binds every thread).
        traceWriter_ = std::make_unique<TraceWriterThread>([this] { check(flushTraces(false)); }, kTraceWritePeriod);
        yieldToCommunication();
        bindCompute();
        aloneBefore_ = computeAloneMs();
        const int iterations = e.iterations;
        updated_.assign(tensors_.size(), true);
        iterationStart_.assign(iterations + 1, 0);
        iterationThread_.assign(iterations + 1, ThreadUse{});
        int it = 0;
        std::int64_t forwardStart = 0, backwardStart = 0;
        bool begun = false;

        kernels::LayerHooks hooks;
        hooks.beforeForward = [&](int layer) {
            ensureUpdated(layer, it);
            forwardStart = nowNs();
        };
        hooks.afterForward = [&](int layer) {
            const std::int64_t end = nowNs();
            bridge_->forward(layer, it, forwardStart, end);
        };
        hooks.beforeBackward = [&](int layer) {
            if (!begun) {
                // Every layer has run forward, so every reduction of the previous iteration has been waited for.
                for (const engine::TensorInfo& t : tensors_) ensureUpdated(t.layer, it);
                check(runtime_->beginIteration(it));
                std::fill(updated_.begin(), updated_.end(), false);
                allReduced_ = false;
                begun = true;
            }
            backwardStart = nowNs();
        };
        hooks.afterBackward = [&](int layer) {
            const std::int64_t end = nowNs();
            bridge_->backward(layer, it, backwardStart, end);
            // The layer's gradients together: the comm thread decides once on all of them (Runtime::gradientsReady).
            const std::vector<int>& ready = tensorsOfLayer_[layer];
            readyEvents_.clear();
            for (int t : ready) readyEvents_.push_back(model_->gradientReadyEvent(t));
            runtime_->gradientsReady(ready, readyEvents_);
            // On a CPU rank the comm thread just woken may be queued behind this (lowered) thread rather than run:
            // the small MLP's first collective of an iteration started 270-700 us after its gradients on one rank in
            // 20% of iterations, the peer waiting inside it. Handing over the core here makes that 3% (p90 366 ->
            // 42 us); it costs one system call per layer and nothing where no other thread is runnable.
            if (s_.device == kernels::Device::Cpu && !ready.empty()) sched_yield();
        };

        for (it = 0; it < iterations; ++it) {
            if (it == e.warmupIterations && s_.switchAfterWarmup) switchAfterWarmup(it);
            iterationStart_[it] = nowNs();
            iterationThread_[it] = threadUse();
            begun = false;
            const kernels::Batch batch = data_->batch(it, o_.rank, o_.worldSize, e.batchPerRank);
            lastLoss_ = model_->trainStep(batch, hooks);
            if (it > 0) bridge_->iteration(it - 1, iterationStart_[it - 1], iterationStart_[it]);
            progress_.iteration(it, iterations, lastLoss_);
        }
        // The last iteration ends when its updates are applied.
        for (const engine::TensorInfo& t : tensors_) ensureUpdated(t.layer, iterations);
        iterationStart_[iterations] = nowNs();
        iterationThread_[iterations] = threadUse();
        check(runtime_->waitAll());  // the comm thread's closing round, so that no peer sees an abort
        bridge_->iteration(iterations - 1, iterationStart_[iterations - 1], iterationStart_[iterations]);
        aloneAfter_ = computeAloneMs();
        traceWriter_->stop();  // the rest is written by finish(), after the measured window
    }

    // How fast this machine computed while the run had it, with nothing to reduce: the model's forward pass on the
    // first batch, and a whole training step (forward, loss, backward; no update), each the median of as many passes
    // as fit in kProbeNs (at least 3, the first warming the caches; at most 100), before the first iteration and after
    // the last. A run's own times cannot tell the machine from its schedule; these can. On a CPU rank a pass is timed
    // on the thread's CPU clock: a co-tenant slowed the compute thread's CPU per iteration and this figure alike (a
    // CNN capture 12.6 ms of CPU and 3.74 ms against 7.7 and 2.25 for its round's others), while a pass timed on the
    // wall clock met every local burst of load (the small MLP's forward during a build: 0.17 to 7.0 ms). A GPU
    // rank's passes are timed on the wall clock, synchronised. The step less the forward is the backward alone, what
    // a run's own backward is to be held against: the transformer's at 10 Gb/s took 2.9-3.2 ms of spans per
    // iteration under ddp and a fused pace, 4.5-4.7 under fifo's 54 units, forward passes alike.
    struct ComputeAlone {
        double forward_ms = 0, step_ms = 0;
    };
    ComputeAlone computeAloneMs() {
        const kernels::Batch batch = data_->batch(0, o_.rank, o_.worldSize, s_.experiment.batchPerRank);
        const kernels::LayerHooks none;
        ComputeAlone alone;
        alone.forward_ms = medianOfTimedPasses([&] { (void)model_->evaluateLoss(batch); });  // returns the loss: synced
        alone.step_ms = medianOfTimedPasses([&] {
            (void)model_->trainStep(batch, none);  // overwrites the gradients only, as every iteration does
#if PACER_HAVE_CUDA
            if (s_.device == kernels::Device::Cuda)  // the backward's kernels run on after trainStep returns
                (void)cudaStreamSynchronize(static_cast<cudaStream_t>(model_->computeStream()));
#endif
        });
        return alone;
    }
    template <typename Pass>
    double medianOfTimedPasses(Pass pass) const {
        constexpr std::int64_t kProbeNs = 20'000'000;
        const auto clock = s_.device == kernels::Device::Cpu ? profiler::threadCpuNs : nowNs;
        std::vector<double> ms;
        const std::int64_t begin = nowNs();
        while (ms.size() < 3 || (ms.size() < 100 && nowNs() - begin < kProbeNs)) {
            const std::int64_t start = clock();
            pass();
            ms.push_back(static_cast<double>(clock() - start) / 1e6);
        }
        std::nth_element(ms.begin(), ms.begin() + static_cast<std::ptrdiff_t>(ms.size() / 2), ms.end());
        return ms[ms.size() / 2];
    }

    // Warm-up ran in dynamic order with the settings as given, keeping what it measured. Every rank's spans go to
    // every rank; rank 0 replays them as `pacer-cli replay` would (same extraction, same fit), lets pace choose its
    // settings where the user left them open, simulates, and broadcasts the result; every rank restarts its
    // runtime on it. Same settings and order on every rank by construction.
    void switchAfterWarmup(int it) {
        for (const engine::TensorInfo& t : tensors_) ensureUpdated(t.layer, it);
        // Every tensor is reduced, but the comm thread may still be in its closing agreement round: let it end,
        // or destroying the runtime would abort the transport under the peers' feet.
        check(runtime_->waitAll());
        runtime_.reset();
        bridge_->keepSpans(false);
        const bool onDevice = s_.device == kernels::Device::Cuda;
        auto spans = engine::gatherSpans(*transport_, bridge_->takeSpans());
        if (!spans.ok()) throw RunError("warm-up: " + spans.status().message());
        engine::Schedule chosen;
        if (o_.rank == 0) {
            engine::ObservedRun warmup;
            warmup.tensors = tensors_;
            warmup.layerNames = layerNames_;
            warmup.ranks = o_.worldSize;
            warmup.policy = s_.policy.name;
            warmup.spans = std::move(spans).value();
            warmup.readiness_rides_on_units = engine::readinessRidesOnUnits(false, !onDevice);  // warm-up: dynamic
            warmup.host_memory = !onDevice;
            warmup.updates_fill_waits = !onDevice;  // under a policy that lets them (updateWhileWaiting)
            warmup.channels = 1;
            auto computed = engine::scheduleFromWarmup(warmup, s_.schedule);
            if (!computed.ok()) throw RunError("plan: " + computed.status().message());
            chosen = std::move(computed).value();
        }
        auto shared = engine::shareSchedule(*transport_, chosen, s_.policy);
        if (!shared.ok()) throw RunError("plan: " + shared.status().message());
        const engine::Schedule& s = shared.value();
        if (s.tuned) recordTuning(s);
        progress_.note(describe(s));
        bridge_->countCommCpuFrom(engine::firstSteadyIteration(it, true));
        startRuntime(std::move(shared).value());
    }

    static std::string describe(const engine::Schedule& s) {
        if (!s.tuned) return "plan mode: following a unit order of " + std::to_string(s.plan.size()) + " units";
        return "pace tuned itself: " + app::describeSettings(s) + ", " + app::describeWarmupPrediction(s);
    }

    // The chosen settings go into the run (every rank writes the same), where `runs`, `compare` and replay read them.
    void recordTuning(const engine::Schedule& s) {
        std::lock_guard writing(traceWriter_->writerMutex());
        for (const auto& [key, value] : app::tuningMetrics(s)) check(writer_->setMetric(key, value));
    }

    void finish() {
        const app::Experiment& e = s_.experiment;
        const int iterations = e.iterations;
        // Steady state: the mean period between iteration starts, from the first measured iteration to the start of
        // the last. The last iteration has no next forward to hide its reductions behind (it drains the link): in
        // a long job that is noise, but over 25 iterations it would add a few percent that training never sees.
        // After the warm-up switch the window starts once the new runtime's own first iteration is behind it
        // (engine::firstSteadyIteration): over 15 iterations that one iteration added 15-20% to the mean.
        const int first = std::min(engine::firstSteadyIteration(e.warmupIterations, s_.switchAfterWarmup), iterations - 1);
        const int last = iterations - 1 > first ? iterations - 1 : iterations;
        const double iterMs =
            static_cast<double>(iterationStart_[last] - iterationStart_[first]) / (last - first) / 1e6;
        runtime_.reset();

        const auto values = hostParameters(params_, s_.device);
        std::uint64_t hash = 1469598103934665603ull;
        for (const auto& v : values) hash = fnv1a(v.data(), v.size() * sizeof(float), hash);
        if (!o_.dumpParams.empty()) {
            std::ofstream out(o_.dumpParams, std::ios::binary);
            for (const auto& v : values) out.write(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
            if (!out) throw RunError("cannot write " + o_.dumpParams);
        }
        char hashText[17];
        std::snprintf(hashText, sizeof hashText, "%016llx", static_cast<unsigned long long>(hash));

        check(writer_->setMetric("iter_ms", iterMs));
        check(writer_->setMetric("final_loss", lastLoss_));
        check(writer_->setMetric("param_hash_hi", static_cast<double>(hash >> 32)));
        check(writer_->setMetric("param_hash_lo", static_cast<double>(hash & 0xffffffffu)));
        check(writer_->setMetric("dropped_events", static_cast<double>(tracer_.dropped())));
        // Replay's cue that this worker fills a wait with ready updates, where the policy lets it (old runs lack it).
        if (s_.device == kernels::Device::Cpu) check(writer_->setMetric("updates_fill_waits", 1));
        check(writer_->setMetric("forward_alone_before_ms", aloneBefore_.forward_ms));
        check(writer_->setMetric("forward_alone_after_ms", aloneAfter_.forward_ms));
        check(writer_->setMetric("step_alone_before_ms", aloneBefore_.step_ms));
        check(writer_->setMetric("step_alone_after_ms", aloneAfter_.step_ms));
        if (boundCpu_ >= 0) check(writer_->setMetric("compute_cpu", boundCpu_));
        if (boundCpu_ >= 0) check(writer_->setMetric("comm_threads_bound", commBound_ ? 1 : 0));
        // What the compute thread itself used over the same window as iter_ms: its CPU time, and how often the
        // scheduler took its core away (for the comm threads, on CPU ranks). Wall time less CPU time is what it
        // waited or was preempted; CPU time above a run's alone is what sharing the caches and cores cost it.
        {
            const ThreadUse& a = iterationThread_[first];
            const ThreadUse& b = iterationThread_[last];
            const auto perIteration = [&](std::int64_t from, std::int64_t to) {
                return static_cast<double>(to - from) / (last - first);
            };
            check(writer_->setMetric("compute_thread_cpu_ms", perIteration(a.cpu_ns, b.cpu_ns) / 1e6));
            check(writer_->setMetric("compute_thread_system_ms", perIteration(a.system_ns, b.system_ns) / 1e6));
            check(writer_->setMetric("compute_thread_preemptions", perIteration(a.preemptions, b.preemptions)));
        }
        if (const engine::CommCpu cpu = bridge_->commCpu(); cpu.any()) {  // replay reads it (replay_session.cpp)
            check(writer_->setMetric("comm_cpu_alpha_ns", cpu.alpha_ns));
            check(writer_->setMetric("comm_cpu_ns_per_byte", cpu.ns_per_byte));
            check(writer_->setMetric("comm_cpu_round_ns", cpu.round_ns));
            // The line holds the start-up point: a refit of the stored line reads it there too (fitCommCpu).
            check(writer_->setMetric("comm_cpu_startup_bytes", static_cast<double>(engine::kStartupCollectiveBytes)));
        }
        // How the host treated the collectives (shared memory: the share of chunks its cores moved with streaming
        // stores, high where the host had them apart; docs/shm-slot-stores.md).
        for (const auto& [name, value] : transport_->hostFigures()) check(writer_->setMetric(name, value));
        check(flushTraces(true));
        check(writer_->close());
        progress_.done(iterMs, lastLoss_, hashText);
    }

    const WorkerOptions& o_;
    Setup s_;
    profiler::CpuTracer tracer_;
    Progress progress_;
    int boundCpu_ = -1;  // the first core of this rank's share (bindCompute); -1: not bound
    bool commBound_ = false;  // the communication threads on that share too (bindCompute)
    ComputeAlone aloneBefore_, aloneAfter_;  // computeAloneMs(), before and after the iterations
    std::unique_ptr<profiler::CuptiTracer> cupti_;  // GPU ranks only
    std::unique_ptr<kernels::Model> model_;
    std::unique_ptr<kernels::SyntheticDataset> data_;
    std::vector<kernels::ParamView> params_;
    std::unique_ptr<kernels::Optimizer> optimizer_;
    std::vector<std::string> layerNames_;
    std::vector<engine::TensorInfo> tensors_;
    std::vector<std::vector<int>> tensorsOfLayer_;
    std::vector<void*> readyEvents_;  // scratch: the announced layer's GPU events (null on CPU)
    std::vector<float*> gradients_;
    std::unique_ptr<engine::Transport> transport_;
    engine::Algorithm algorithm_ = engine::Algorithm::Native;
    engine::Topology topology_;
    engine::LinkParams link_;
    std::unique_ptr<profiler::RankFileWriter> writer_;
    std::unique_ptr<TraceWriterThread> traceWriter_;  // during loop(): writes writer_'s trace
    std::unique_ptr<TraceBridge> bridge_;
    engine::StartPriorityLauncher launcher_;  // before anything lowers this thread's priority
    std::unique_ptr<engine::Runtime> runtime_;
    bool updateWaitsForAll_ = false;
    bool updatesFillWaits_ = false;  // the policy's (engine::Policy::updatesFillWaits)
    bool allReduced_ = false;
    std::vector<bool> updated_;
    std::vector<int> pendingTensors_;  // updateWhileWaiting's, kept to not allocate per wait
    std::vector<std::int64_t> iterationStart_;
    std::vector<ThreadUse> iterationThread_;  // at each iteration's start, on the compute thread
    float lastLoss_ = 0;
};

}  // namespace

void runTraining(const WorkerOptions& options) {
    TrainingRun run(options, loadSetup(options));
    run.run();
}

}  // namespace pacer::worker
