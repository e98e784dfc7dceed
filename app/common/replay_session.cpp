#include "app/common/replay_session.h"

#include "app/common/bounded_json.h"
#include "app/common/compute_alone.h"
#include "app/common/experiment.h"
#include "app/common/experiment_tuning.h"
#include "app/common/policy_json.h"
#include "app/common/trace_conversion.h"
#include "app/common/tuned_settings.h"
#include "engine/planning/self_tune.h"
#include "engine/planning/warmup_schedule.h"
#include "engine/replay/observed_plan.h"
#include "engine/replay/observed_run.h"
#include "engine/replay/zoo.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

namespace pacer::app {

namespace {

// Whether the run followed a plan after warm-up: the order a self-tuned pace chose, else its experiment's.
bool ranInPlanOrder(const nlohmann::json& experiment, const std::optional<engine::Schedule>& tuned) {
    if (tuned) return tuned->plan_order;
    return experiment.is_object() && experiment.value("order", nlohmann::json("dynamic")) == "plan";
}

// The warm-up iterations the run's stored experiment says it ran; nothing where it does not say.
std::optional<int> warmupIterations(const nlohmann::json& experiment) {
    if (!experiment.is_object()) return std::nullopt;
    const auto warmup = experiment.find("warmup_iterations");
    if (warmup == experiment.end() || !warmup->is_number_integer()) return std::nullopt;
    return std::max(0, warmup->get<int>());
}

// The first iteration a plan-order run ran on its plan: the worker switches once its warm-up is over.
int firstPlanIteration(const nlohmann::json& experiment) { return warmupIterations(experiment).value_or(0); }

// How the engine that made the run decided, from its experiment: in dynamic order on CPU ranks the runtime hears
// readiness with the unit it is reducing (the flags ride on that collective), one decision late; plan order, GPU
// runs and imported traces decide on fresh readiness. Plan order on CPU ranks keeps the experiment's channels in
// flight after warm-up; everything else runs one. A pace that tuned itself ran the order and channels it chose.
// On busy CPU ranks each collective's CPU came out of compute, as the run's metrics say, and whether the worker
// applied ready updates while it waited.
void describeEngine(const profiler::RunSummary& run, const nlohmann::json& experiment,
                    const std::optional<engine::Schedule>& tuned, engine::ObservedRun& observed) {
    observed.readiness_rides_on_units = false;
    observed.host_memory = run.backend == "cpu";
    observed.channels = 1;
    if (!observed.host_memory) return;
    // What each collective took from compute, where the worker measured it (engine::commTakesFromCompute).
    const auto metric = [&](const char* key) {
        const auto it = run.metrics.find(key);
        return it != run.metrics.end() && it->second >= 0 ? it->second : 0.0;
    };
    observed.comm_cpu = {metric("comm_cpu_alpha_ns"), metric("comm_cpu_ns_per_byte"), metric("comm_cpu_round_ns")};
    observed.startup_collective_bytes = static_cast<std::size_t>(metric("comm_cpu_startup_bytes"));
    observed.updates_fill_waits = metric("updates_fill_waits") > 0;
    if (!experiment.is_object()) return;
    const bool planOrder = ranInPlanOrder(experiment, tuned);
    observed.readiness_rides_on_units = engine::readinessRidesOnUnits(planOrder, true);
    if (!planOrder) return;
    if (tuned) {
        observed.channels = std::clamp(tuned->channels, 1, 16);
        return;
    }
    const auto channels = experiment.find("channels");
    if (channels != experiment.end() && channels->is_number_integer())
        observed.channels = std::clamp(channels->get<int>(), 1, 16);
}

// Replay describes a run by the iterations its `iter_ms` averages (from engine::firstSteadyIteration on). Warm-up
// iterations are not steady: the first ones pay for allocation and cold caches (on the samples at 2-10 Gb/s
// iterations 1-4 took 1.3-3.5x the steady period), and they went into the fit and the band of a prediction that is
// compared with a mean over the later ones. A run that switched after warm-up (plan order, self-tuned pace) also
// ran another schedule before the switch (dynamic order, one channel, the settings as given) and paid the new
// runtime's one-off costs just after it. A run too short to have three steady iterations keeps everything.
// The warm-up's collectives and rounds after its first iteration stay apart (ObservedRun::warmup_spans): the sizes
// they measured and the steady iterations did not.
void keepSteadyState(const nlohmann::json& experiment, bool selfTuned, engine::ObservedRun& observed) {
    const std::optional<int> warmup = warmupIterations(experiment);
    if (!warmup) return;
    const bool planOrder = experiment.value("order", nlohmann::json("dynamic")) == "plan";
    const int first = engine::firstSteadyIteration(*warmup, engine::switchesAfterWarmup(planOrder, selfTuned));
    std::set<int> steady;
    for (const engine::ObservedSpan& s : observed.spans)
        if (s.iteration >= first) steady.insert(s.iteration);
    if (steady.size() < 3) return;
    int earliest = first;
    for (const engine::ObservedSpan& s : observed.spans) earliest = std::min(earliest, s.iteration);
    for (const engine::ObservedSpan& s : observed.spans)  // the sizes only the warm-up ran (ObservedRun::warmup_spans)
        if (s.iteration > earliest && s.iteration < first &&
            (s.kind == engine::ObservedSpan::Comm || s.kind == engine::ObservedSpan::Round))
            observed.warmup_spans.push_back(s);
    std::erase_if(observed.spans, [&](const engine::ObservedSpan& s) { return s.iteration < first; });
    observed.warmup_removed = true;
}

// What the run trained, whatever schedule reduced it: the same key means the figures of two runs compare.
std::string experimentKeyOf(const profiler::RunSummary& run, const nlohmann::json& experiment) {
    if (!experiment.is_object() || !experiment.contains("model")) return "run " + std::to_string(run.run_id);
    nlohmann::json key = {{"model", experiment["model"]},
                          {"ranks", run.ranks},
                          {"backend", run.backend},
                          {"batch_per_rank", experiment.value("batch_per_rank", 0)}};
    return key.dump();
}

// A run's stored experiment (the resolved copy its workers read) and its policy, read as the worker reads them;
// nothing where it does not parse (an imported trace).
struct StoredExperiment {
    Experiment experiment;
    engine::PolicyConfig policy;
};
std::optional<StoredExperiment> readStoredExperiment(const nlohmann::json& stored) {
    if (!stored.is_object()) return std::nullopt;
    std::string ignored;
    std::optional<Experiment> e = parseExperiment(stored, "", &ignored);
    engine::PolicyConfig policy;
    if (!e || !policyConfigFromJson(e->policy, &policy, &ignored)) return std::nullopt;
    return StoredExperiment{std::move(*e), std::move(policy)};
}

// The policy settings the run was given (ReplayInput::givenConfig): its experiment's, under the name and segment
// size the run records; the defaults where it has no experiment.
engine::PolicyConfig givenPolicy(const std::optional<StoredExperiment>& stored, const profiler::RunTrace& trace) {
    engine::PolicyConfig given = stored ? stored->policy : engine::PolicyConfig{};
    given.name = trace.policy.empty() ? "fifo" : trace.policy;
    if (trace.segment_bytes > 0) given.segment_bytes = static_cast<std::size_t>(trace.segment_bytes);
    return given;
}

// What the run's own tuner chose (its recorded settings), as that order runs them.
engine::TunedPace recordedTuning(const ReplayInput& input, const engine::Schedule& recorded) {
    engine::TunedPace t;
    t.policy = recorded.policy;
    t.plan_order = recorded.plan_order;
    t.channels = recorded.channels;
    t.workload = engine::asRun(input.workload, recorded.plan_order, recorded.channels, input.hostMemory);
    t.cost = input.cost;
    return t;
}

// ReplayInput::selfResidual: the run's own schedule (its recorded tuning, else its policy settings) replayed.
double selfReplayResidual(const ReplayInput& in) {
    if (!(in.measuredIterMs > 0)) return 0;
    engine::TunedPace ran;
    if (in.tuned) {
        ran = recordedTuning(in, *in.tuned);
    } else {
        ran.policy = in.observedConfig;
        ran.workload = in.workload;
        ran.cost = in.cost;
    }
    ran.policy.plan = in.plan;
    auto own = engine::replay(ran.workload, ran.cost, ran.policy, {});
    if (!own.ok()) return 0;  // a run whose own schedule cannot be replayed fails where it is replayed, not here
    return std::abs(own.value().sim.figures.iter_ms - in.measuredIterMs) / in.measuredIterMs;
}

}  // namespace

engine::Result<ReplayInput> inputFromRun(std::shared_ptr<const profiler::RunTrace> trace,
                                         const profiler::RunSummary& summary, const std::string& where) {
    std::string ignored;  // an experiment that does not parse says nothing about the engine: the defaults stand
    auto parsed = parseBoundedJson(summary.experiment_json, &ignored);
    const nlohmann::json experiment = parsed ? std::move(*parsed) : nlohmann::json(nlohmann::json::value_t::discarded);
    engine::ObservedRun observed = observedFromTrace(*trace);
    const std::optional<StoredExperiment> stored = readStoredExperiment(experiment);
    engine::PolicyConfig given = givenPolicy(stored, *trace);
    if (given.name == "horovod") observed.cycle_ns = given.cycle_ns;  // its ticks (engine::horovodTick)
    std::optional<engine::Schedule> tuned = tuningFromMetrics(summary.metrics, given);
    describeEngine(summary, experiment, tuned, observed);
    keepSteadyState(experiment, tuned.has_value(), observed);
    const std::string runName = where + " run " + std::to_string(trace->run_id);
    // An imported trace says at import what it lacks for replay, or which DDP buckets it showed (self-replay).
    const ImportedReplay imported = importedReplay(summary.experiment_json);
    if (!imported.missing.empty()) return engine::Status::error(runName + " cannot be replayed: " + imported.missing);
    auto model = engine::modelObservedRun(observed);  // outlier iterations set aside, each kept one on its own
    if (!model.ok()) return engine::Status::error(runName + " cannot be replayed: " + model.message());

    ReplayInput in;
    in.workload = std::move(model.value().workload);
    in.cost = std::move(model.value().cost);
    in.iterations = std::move(model.value().iterations);
    in.forAnother = std::move(model.value().for_another);
    in.setAside = std::move(model.value().set_aside);
    in.runId = trace->run_id;
    given.buckets = imported.buckets;
    in.givenConfig = given;
    in.observedConfig = tuned ? tuned->policy : given;
    if (ranInPlanOrder(experiment, tuned))
        in.plan = engine::observedPlan(observed, in.observedConfig, firstPlanIteration(experiment))
                      .value_or(std::vector<engine::CommUnit>{});
    in.tuned = std::move(tuned);
    in.hostMemory = summary.backend == "cpu";
    if (experiment.is_object()) {
        in.experimentName = experiment.value("name", std::string());
        if (stored) in.experimentFixes = fixedByExperiment(stored->experiment, stored->policy);
    }
    in.experimentKey = experimentKeyOf(summary, experiment);
    in.experimentJson = summary.experiment_json;
    in.description = runName + " (" + in.observedConfig.name + ", " + std::to_string(trace->ranks) + " ranks" +
                     (in.experimentName.empty() ? "" : ", " + in.experimentName) + ")";
    if (auto it = summary.metrics.find("iter_ms"); it != summary.metrics.end()) in.measuredIterMs = it->second;
    else if (auto measured = engine::observedIterationMs(observed); measured.ok()) in.measuredIterMs = measured.value();
    in.forwardAloneMs = aloneFigureMs(summary.metrics, "forward_alone");
    in.stepAloneMs = aloneFigureMs(summary.metrics, "step_alone");
    in.selfResidual = selfReplayResidual(in);
    in.trace = std::move(trace);
    return in;
}

engine::Result<ReplayInput> loadRunInput(const std::string& project, std::int64_t runId) {
    auto record = profiler::readRunRecord(project, runId);
    if (!record.ok()) return engine::Status::error(record.status().message());
    auto trace = std::make_shared<const profiler::RunTrace>(std::move(record.value().trace));
    return inputFromRun(std::move(trace), record.value().summary, project);
}

engine::Result<ReplayInput> loadModelInput(const std::string& nameOrFile, double deviceTflops,
                                           const std::vector<std::string>& zooDirs) {
    auto workload = engine::loadProfile(nameOrFile, deviceTflops, zooDirs);
    if (!workload.ok()) return workload.status();
    ReplayInput in;
    in.workload = std::move(workload).value();
    in.description = "model " + nameOrFile;
    return in;  // the default cost model; the what-if link knobs set it
}

namespace {

// The job as it ran: no knob that would have made a self-tuning run choose from other measurements.
bool asItRan(const engine::WhatIf& w, int ranks) {
    return w.link_gbps == 0 && w.link_latency_us < 0 && (w.ranks == 0 || w.ranks == ranks) && w.compute_speed == 1.0 &&
           w.channels == 0 && (w.algorithm.empty() || w.algorithm == "native") && w.topology.empty();
}

// The run's own schedule follows the plan it ran (ReplayInput::plan); every other schedule decides its order.
engine::PolicyConfig followingRecordedPlan(const ReplayInput& input, engine::PolicyConfig config, bool own) {
    if (own) config.plan = input.plan;
    return config;
}

// What a replay of the run's own schedule (`own`) or of another reads of the run (ReplayInput::forAnother).
const engine::Workload& workloadFor(const ReplayInput& input, bool own) {
    return own || !input.forAnother ? input.workload : input.forAnother->workload;
}
const std::vector<engine::IterationEstimate>& estimatesFor(const ReplayInput& input, bool own) {
    return own || !input.forAnother ? input.iterations : input.forAnother->iterations;
}

engine::Result<SelfTuned> replayTuned(const ReplayInput& input, const engine::TunedPace& tuned, bool chosen,
                                      bool own, const engine::WhatIf& whatIf, const engine::SimOptions& options) {
    // The band: each kept iteration of the run replayed as the tuned pace would run it (its order, channels and
    // the what-if), as every other replay of the run gets one.
    std::vector<engine::IterationEstimate> iterations;
    for (const engine::IterationEstimate& it : estimatesFor(input, own)) {
        engine::IterationEstimate as = it;
        auto w = engine::applyWhatIf(engine::asRun(it.workload, tuned.plan_order, tuned.channels,
                                                   input.hostMemory),
                                     whatIf);
        auto c = engine::applyWhatIf(it.cost, it.workload.ranks, whatIf);
        if (!w.ok() || !c.ok()) continue;
        as.workload = std::move(w).value();
        as.cost = c.value();
        iterations.push_back(std::move(as));
    }
    // The choice is replayed on the cost as fitted, as every other policy is: the per-call charge that
    // calibratePerCallCost adds is part of choosing, and put into pace's prediction alone it made `compare` weigh
    // pace on a dearer link than the policies beside it (from a horovod run of the small MLP at 10 Gb/s: pace 2.88
    // against DDP's 2.04 ms; 2.69 on the same cost). Over three 120-capture grids, predicting each
    // cell's pace run from the other policies' runs: median error 7.5/4.9/4.2% -> 7.1/4.9/4.2%, worst
    // 32/63/59% -> 32/46/59%.
    auto fitted = engine::applyWhatIf(input.cost, input.workload.ranks, whatIf);
    if (!fitted.ok()) return fitted.status();
    // The whole run reads the same model as its iterations above: for another schedule, the ranks evened out. The
    // tuner chose on the run as it ran (tunePace), and with its workload a pace predicted from a fifo run showed
    // the fifo run's uneven compute in its figures and timeline (the transformer at 10 Gb/s: compute alone 6.81 ms,
    // against 6.58 for DDP from the same run) while its time came from the evened-out iterations.
    std::optional<engine::Workload> evened;
    if (!own && input.forAnother) {
        auto w = engine::applyWhatIf(input.forAnother->workload, whatIf);
        if (!w.ok()) return w.status();
        evened = engine::asRun(w.value(), tuned.plan_order, tuned.channels, input.hostMemory);
    }
    const engine::Workload& workload = evened ? *evened : tuned.workload;
    auto r = engine::replay(workload, fitted.value(), followingRecordedPlan(input, tuned.policy, own), {}, options,
                            iterations);
    if (!r.ok()) return r.status();
    if (!own)
        r.value().band = engine::widenedForAnotherSchedule(r.value().band, r.value().sim.figures.iter_ms,
                                                           input.selfResidual, r.value().sim.figures.stall_ms);
    SelfTuned out;
    out.settings.policy = tuned.policy;
    out.settings.plan_order = tuned.plan_order;
    out.settings.channels = tuned.channels;
    out.settings.tuned = chosen;
    out.settings.predicted_ms = r.value().sim.figures.iter_ms;
    out.result = std::move(r).value();
    out.workload = evened ? std::move(*evened) : tuned.workload;
    return out;
}

}  // namespace

engine::Result<SelfTuned> selfTunedPace(const ReplayInput& input, const engine::PolicyConfig& config,
                                        const engine::WhatIf& whatIf, const engine::SimOptions& options) {
    // A run of the self-tuning pace already answers what it runs on this job: replay its recorded settings. Tuning
    // again on the run's steady iterations (other numbers than the warm-up it chose from) replayed another schedule
    // than the one measured: 18 self-tuned runs of the three samples at 1-10 Gb/s all re-tuned to other settings
    // (the small MLP: 2 channels where 4 had run). With a knob that changes the job, it tunes for that job.
    if (input.tuned && asItRan(whatIf, input.workload.ranks)) {
        const engine::TunedPace recorded = recordedTuning(input, *input.tuned);
        return replayTuned(input, recorded, true, true, whatIf, options);
    }
    // What the run's experiment fixed; without one (an imported trace) everything is chosen, but NCCL keeps one
    // channel of ours.
    engine::TuneRequest request;
    if (input.experimentFixes) {
        request = *input.experimentFixes;
    } else {
        request.host_memory = input.hostMemory;
        request.channels_fixed = !input.hostMemory;
    }
    engine::PolicyConfig policy = config;
    if (request.segment_fixed) policy.segment_bytes = request.policy.segment_bytes;
    if (request.fusion_fixed) {
        policy.fusion_groups = request.policy.fusion_groups;
        policy.fuse_below_bytes = request.policy.fuse_below_bytes;
    } else {
        policy.fusion_groups.clear();
    }
    request.policy = policy;
    // Where the experiment left nothing to choose, its settings are replayed as they are, on the cost as fitted:
    // charging the run's unexplained time to each call (calibratePerCallCost) is part of choosing, and a fixed
    // schedule is replayed as every other policy is.
    const bool chooses = engine::wantsSelfTune(request);
    request.observed_policy = input.observedConfig;
    request.observed_ms = chooses ? input.measuredIterMs : 0;
    auto tuned = engine::tunePace(input.workload, input.cost, request, whatIf);
    if (!tuned.ok()) return tuned.status();
    const bool own = isOwnSchedule(input, tuned.value().policy, whatIf);
    return replayTuned(input, tuned.value(), chooses, own, whatIf, options);
}

bool isOwnSchedule(const ReplayInput& input, const engine::PolicyConfig& config, const engine::WhatIf& whatIf) {
    if (!asItRan(whatIf, input.workload.ranks)) return false;
    const engine::PolicyConfig& ran = input.tuned ? input.tuned->policy : input.observedConfig;
    return policyConfigToJson(config) == policyConfigToJson(ran);
}

engine::Result<engine::ReplayResult> replayInput(const ReplayInput& input, const engine::PolicyConfig& config,
                                                 const engine::WhatIf& whatIf, const engine::SimOptions& options) {
    const bool own = isOwnSchedule(input, config, whatIf);
    // Another policy runs as a capture of it from the run's experiment would: in the experiment's order, not in the
    // one the run's self-tuned pace chose (plan order: readiness fresh, no rounds, channels). From such a run, DDP
    // on the small MLP at 10 Gb/s was replayed without the round before each bucket, 14-29% too fast. (A pace
    // chooses its order: selfTunedPace.)
    const std::optional<engine::TuneRequest> experiment =
        own || config.name == "pace" ? std::nullopt : input.experimentFixes;
    const auto asItRuns = [&](const engine::Workload& w) {
        return experiment ? engine::asRun(w, experiment->plan_order, experiment->channels, input.hostMemory) : w;
    };
    std::vector<engine::IterationEstimate> converted;  // copied only where the order changes (each drag replays)
    const std::vector<engine::IterationEstimate>& estimates = estimatesFor(input, own);
    if (experiment) {
        converted = estimates;
        for (engine::IterationEstimate& it : converted) it.workload = asItRuns(it.workload);
    }
    auto r = engine::replay(asItRuns(workloadFor(input, own)), input.cost, followingRecordedPlan(input, config, own),
                            whatIf, options, experiment ? converted : estimates);
    if (r.ok() && !own)
        r.value().band = engine::widenedForAnotherSchedule(r.value().band, r.value().sim.figures.iter_ms,
                                                           input.selfResidual, r.value().sim.figures.stall_ms);
    return r;
}

engine::Result<ReplaySession> ReplaySession::openRun(const std::string& project, std::int64_t runId) {
    auto input = loadRunInput(project, runId);
    if (!input.ok()) return input.status();
    return ReplaySession(std::make_shared<const ReplayInput>(std::move(input).value()));
}

}  // namespace pacer::app
