#include "app/common/replay_session.h"

#include "app/common/bounded_json.h"
#include "app/common/trace_conversion.h"
#include "engine/replay/observed_run.h"
#include "engine/replay/zoo.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace pacer::app {

namespace {

// How the engine that made the run decided, from its experiment: in dynamic order on CPU ranks the runtime hears
// readiness with the unit it is reducing (the flags ride on that collective), one decision late; plan order, GPU
// runs and imported traces decide on fresh readiness. Plan order on CPU ranks keeps the experiment's channels in
// flight after warm-up; everything else runs one.
void describeEngine(const profiler::RunSummary& run, const nlohmann::json& experiment, engine::ObservedRun& observed) {
    observed.readiness_rides_on_units = false;
    observed.channels = 1;
    if (run.backend != "cpu" || !experiment.is_object()) return;
    const std::string order = experiment.value("order", std::string("dynamic"));
    observed.readiness_rides_on_units = order == "dynamic";
    const auto channels = experiment.find("channels");
    if (order == "plan" && channels != experiment.end() && channels->is_number_integer())
        observed.channels = std::clamp(channels->get<int>(), 1, 16);
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

}  // namespace

engine::Result<ReplayInput> inputFromRun(std::shared_ptr<const profiler::RunTrace> trace,
                                         const profiler::RunSummary& summary, const std::string& where) {
    std::string ignored;  // an experiment that does not parse says nothing about the engine: the defaults stand
    auto parsed = parseBoundedJson(summary.experiment_json, &ignored);
    const nlohmann::json experiment = parsed ? std::move(*parsed) : nlohmann::json(nlohmann::json::value_t::discarded);
    engine::ObservedRun observed = observedFromTrace(*trace);
    describeEngine(summary, experiment, observed);
    const std::string runName = where + " run " + std::to_string(trace->run_id);
    auto workload = engine::extractWorkload(observed);
    if (!workload.ok()) return engine::Status::error(runName + " cannot be replayed: " + workload.message());
    auto cost = engine::fitCostModel(observed);
    if (!cost.ok()) return engine::Status::error(runName + ": no link cost can be fitted: " + cost.message());

    ReplayInput in;
    in.workload = std::move(workload).value();
    in.cost = cost.value();
    in.runId = trace->run_id;
    in.observedConfig.name = trace->policy.empty() ? "fifo" : trace->policy;
    if (trace->segment_bytes > 0) in.observedConfig.segment_bytes = static_cast<std::size_t>(trace->segment_bytes);
    if (experiment.is_object()) in.experimentName = experiment.value("name", std::string());
    in.experimentKey = experimentKeyOf(summary, experiment);
    in.experimentJson = summary.experiment_json;
    in.description = runName + " (" + in.observedConfig.name + ", " + std::to_string(trace->ranks) + " ranks" +
                     (in.experimentName.empty() ? "" : ", " + in.experimentName) + ")";
    if (auto it = summary.metrics.find("iter_ms"); it != summary.metrics.end()) in.measuredIterMs = it->second;
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

engine::Result<ReplaySession> ReplaySession::openRun(const std::string& project, std::int64_t runId) {
    auto input = loadRunInput(project, runId);
    if (!input.ok()) return input.status();
    return ReplaySession(std::make_shared<const ReplayInput>(std::move(input).value()));
}

}  // namespace pacer::app
