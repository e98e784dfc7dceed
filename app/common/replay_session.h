// Where a replay's input comes from, read once and kept while the user edits: a captured or imported run of a
// project (its trace, the engine it ran on, the fitted link cost), or a model-zoo profile. The CLI's replay,
// sweep and compare and the GUI's schedule editor all go through here, so they predict from the same input.
//
// A ReplayInput is immutable once built; ReplaySession shares it (the GUI replays on a worker thread while the
// editor keeps a copy), and each replay only simulates: nothing is re-read or re-fitted per edit.
#pragma once

#include "engine/planning/schedule.h"
#include "engine/planning/self_tune.h"
#include "engine/policy_config.h"
#include "engine/replay/replay.h"
#include "engine/sim/workload.h"
#include "engine/status.h"
#include "profiler/project.h"
#include "profiler/trace_model.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pacer::app {

struct ReplayInput {
    engine::Workload workload;
    engine::CostModel cost;           // fitted from the run; the default model for a profile
    // A run's kept steady iterations, each on its own (the band of a prediction); empty for a profile.
    std::vector<engine::IterationEstimate> iterations;
    // The same for replaying another schedule than the run's own (engine::ObservedModel::for_another): the ranks'
    // compute evened out. Unset where the run's collectives take no CPU from compute, and for a profile.
    std::optional<engine::ObservedModel::ForAnother> forAnother;
    std::vector<int> setAside;        // the run's outlier iterations, left out of workload and cost
    std::string description;          // "runs.pacer run 3 (fifo, 2 ranks, mlp-2rank)" or "model resnet50"
    engine::PolicyConfig observedConfig;  // the policy settings the run ran (a self-tuned pace: its choice)
    // The policy settings the run was given: its experiment's, before a self-tuning pace chose its own. What a
    // capture of another policy (or of pace with settings given) from the same experiment would start from, so a
    // schedule named without settings replays from these: a baseline on a self-tuned run is not run at pace's
    // choice. Equal to observedConfig for every run that did not tune itself; fifo's defaults for a profile.
    engine::PolicyConfig givenConfig;
    double measuredIterMs = 0;        // the run's own iter_ms, 0 when unknown
    // The machine's speed while the run had it: the forward pass alone, nothing to reduce, before the first
    // iteration and after the last (the worker's computeAloneMs; the mean of the two and of the ranks; CPU time on a
    // CPU rank). Two runs of one experiment whose figures differ found the machine at different speeds. 0 where the
    // run has none (imported traces, runs captured before 2026-12-05).
    double forwardAloneMs = 0;
    // The same for a whole training step (forward, loss, backward): against the run's own compute it shows what the
    // run's schedule cost the compute. 0 where the run has none (also runs captured with the first figures alone).
    double stepAloneMs = 0;
    // How far replay of the run's own schedule missed measuredIterMs, |replayed - measured| / measured: the model's
    // error on this run, which widens the band of every prediction for another schedule (widenedForAnotherSchedule).
    // 0 for a profile or where the run's time is unknown.
    double selfResidual = 0;
    std::int64_t runId = 0;           // 0 for a profile
    std::string experimentName;       // the run's experiment, "" when it has none (imported, profile)
    // Runs with the same key trained the same thing (model, ranks, batch, backend) and may be compared;
    // "" for a profile; "run N" for a run without an experiment (an imported trace), which matches only itself.
    std::string experimentKey;
    std::shared_ptr<const profiler::RunTrace> trace;  // the measured run; null for a profile
    std::string experimentJson;       // the run's stored experiment (what "run this schedule" starts from)
    std::optional<engine::Schedule> tuned;  // the settings a self-tuning pace chose for the run
    // The plan a plan-order run followed, read from its steady iterations (engine::observedPlan): a replay of the
    // run's own schedule follows it rather than deciding the order again. Empty in dynamic order or where unread.
    std::vector<engine::CommUnit> plan;
    bool hostMemory = false;          // CPU ranks: dynamic order hears readiness one unit late, channels possible
    // What the run's experiment fixes of a self-tuning pace, read as the worker reads it (fixedByExperiment): a
    // pace captured from it keeps those settings, so replay's plain `pace` does too. None without an experiment.
    std::optional<engine::TuneRequest> experimentFixes;
};

// A stored run: one check, one open, one read of the project (runId 0 = the latest).
engine::Result<ReplayInput> loadRunInput(const std::string& project, std::int64_t runId);
// A run already in memory (an imported trace before it is stored, or a run the caller read itself).
engine::Result<ReplayInput> inputFromRun(std::shared_ptr<const profiler::RunTrace> trace,
                                         const profiler::RunSummary& summary, const std::string& where);
// A model-zoo profile or a profile file; deviceTflops 0 keeps the profile's own times.
engine::Result<ReplayInput> loadModelInput(const std::string& nameOrFile, double deviceTflops,
                                           const std::vector<std::string>& zooDirs);

// `pace` without settings chooses its own, as the worker would after warm-up: what the user fixed is kept
// (channels given as a what-if; the segment size, fusion, order and channels the run's experiment set), and where
// the experiment fixed everything, its settings are replayed as they are (settings.tuned false). Returns the
// settings and the replay under them.
struct SelfTuned {
    engine::Schedule settings;
    engine::ReplayResult result;
    engine::Workload workload;  // as the chosen order runs it
};
engine::Result<SelfTuned> selfTunedPace(const ReplayInput& input, const engine::PolicyConfig& config,
                                        const engine::WhatIf& whatIf, const engine::SimOptions& options = {});

// Whether `config` under `whatIf` is the schedule the run itself ran (its policy settings, or its recorded tuning, as
// they ran): a prediction of it keeps the band its iterations give; any other is widened by selfResidual.
bool isOwnSchedule(const ReplayInput& input, const engine::PolicyConfig& config, const engine::WhatIf& whatIf);

// engine::replay of the input with its band, widened by the model's error (selfResidual) unless it is the run's own
// schedule. Every replay that reports a band goes through here (or selfTunedPace).
engine::Result<engine::ReplayResult> replayInput(const ReplayInput& input, const engine::PolicyConfig& config,
                                                 const engine::WhatIf& whatIf, const engine::SimOptions& options = {});

// One input kept for a series of replays.
class ReplaySession {
public:
    explicit ReplaySession(std::shared_ptr<const ReplayInput> input) : m_input(std::move(input)) {}
    static engine::Result<ReplaySession> openRun(const std::string& project, std::int64_t runId);

    const ReplayInput& input() const { return *m_input; }
    std::shared_ptr<const ReplayInput> sharedInput() const { return m_input; }

    engine::Result<engine::ReplayResult> replay(const engine::PolicyConfig& config, const engine::WhatIf& whatIf = {},
                                                const engine::SimOptions& options = {}) const {
        return replayInput(*m_input, config, whatIf, options);
    }

private:
    std::shared_ptr<const ReplayInput> m_input;
};

}  // namespace pacer::app
