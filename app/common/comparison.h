// A comparison: measured runs and replayed schedules side by side, each row saying which run it is or replays
// on and which experiment that run trained. Shared by `pacer-cli compare` and the GUI's compare view, so both
// read the same figures with the same rules:
//  - a run item is the run's measurement next to its self-replay;
//  - a plain `pace` (no segment size) is what the self-tuning pace would choose on that run;
//  - a schedule item replays on the run it names (POLICY[:SIZE]@RUN, or a saved schedule's own run), else on
//    the run given as the default (the CLI's --run, or the last run item named before it, or the latest run);
//  - differences against the baseline are given only between rows of the same experiment; rows of different
//    experiments are kept in separate groups, never silently mixed.
#pragma once

#include "app/common/replay_session.h"
#include "engine/policy_config.h"
#include "engine/replay/replay.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pacer::app {

struct CompareItem {
    enum class Kind { Run, Schedule };
    Kind kind = Kind::Run;
    std::string label;            // as the user named it: "3", "pace:256KiB", "pace@1", a saved schedule's name
    std::int64_t runId = 0;       // the run it is, or replays on; 0 = the default run
    // A schedule's settings (unused for a run); segment_bytes 0: a policy named alone, which takes the settings the
    // run was given (ReplayInput::givenConfig) under its own name.
    engine::PolicyConfig config;
    engine::WhatIf whatIf;
};

struct CompareRow {
    CompareItem item;
    std::int64_t runId = 0;           // the run it is, or replays on (resolved)
    std::string experimentName;
    int group = 0;                    // index into Comparison::groups
    engine::PolicyConfig config;      // the schedule replayed (a run: the one it ran)
    engine::SimResult predicted;      // a run: its self-replay
    engine::PredictionBand band;      // predicted_low_ms..predicted_high_ms from the run's iterations
    double measuredIterMs = 0;        // runs only; 0 = not measured
    // What a self-tuning pace chose ("plan order, 2 channels, 1 MiB segments"): a run's, or a plain `pace`
    // schedule's as replayed on its run; "" otherwise.
    std::string settings;
    std::shared_ptr<const ReplayInput> input;  // what it was replayed from (its run's trace for drawing)
};

struct CompareGroup {
    std::string experimentName;       // "" when the runs carry no experiment
    std::string key;                  // ReplayInput::experimentKey
    std::vector<std::int64_t> runs;   // the runs of this group, in order of first appearance
};

struct Comparison {
    std::vector<CompareRow> rows;
    std::vector<CompareGroup> groups;
    bool mixedExperiments() const { return groups.size() > 1; }
};

// The runs of one project, each read once and kept (a comparison often names the same run many times).
class ProjectInputs {
public:
    explicit ProjectInputs(std::string project) : m_project(std::move(project)) {}
    const std::string& project() const { return m_project; }
    // runId 0 = the latest run.
    engine::Result<std::shared_ptr<const ReplayInput>> input(std::int64_t runId);
    // A run the caller has already read (the GUI's shown run): later items naming it are not read again.
    void add(std::shared_ptr<const ReplayInput> input) {
        if (input && input->runId > 0) m_inputs[input->runId] = std::move(input);
    }

private:
    std::string m_project;
    std::map<std::int64_t, std::shared_ptr<const ReplayInput>> m_inputs;
    std::int64_t m_latest = -1;
};

// Parses the CLI's words: "N" a run; "POLICY[:SIZE][@RUN]" a schedule; anything else must be a saved schedule's
// name in the project. A schedule without @RUN replays on the last run named before it, else on defaultRun
// (0 = the latest run).
engine::Result<std::vector<CompareItem>> parseCompareItems(const std::vector<std::string>& words,
                                                           const std::string& project, std::int64_t defaultRun);

// A schedule saved in the project, as an item that replays on its own run.
engine::Result<CompareItem> itemFromSavedSchedule(const profiler::SavedSchedule& saved, const std::string& project);

// An item as the project keeps it among the compare view's pins (profiler::readComparePins), and back.
profiler::ComparePin pinFromItem(const CompareItem& item);
engine::Result<CompareItem> itemFromPin(const profiler::ComparePin& pin, const std::string& project);

engine::Result<Comparison> compare(ProjectInputs& inputs, const std::vector<CompareItem>& items,
                                   const engine::SimOptions& options = {});

// Relative change of a row's iteration time against the baseline row (the measurement where both are runs,
// else the predictions), e.g. -0.12 for 12% faster; nullopt when the two rows are of different experiments.
std::optional<double> changeAgainst(const Comparison& c, std::size_t row, std::size_t baseline);
// How much slower the machine computed while the row's run was captured than while the baseline's was: their
// forward passes alone (ReplayInput::forwardAloneMs) relative, e.g. 0.15 for 15% slower; nullopt for rows of one
// run, of different experiments, or where either run has no such figure. A replay predicts at its run's speed.
std::optional<double> machineSlowerThanBaseline(const Comparison& c, std::size_t row, std::size_t baseline);
// Above this, compare says that part of a difference is the machine's. On a shared 2-core machine (90 captures, two
// rounds of each cell) a run's figure lay median 0.6%, p90 4% from its round's median; 6 of 90 lay beyond 5%, two of
// them a co-tenant's 40-66% that the runs' own CPU per iteration showed too.
constexpr double kMachineSpeedNote = 0.05;
// Where a row's run found the machine more than kMachineSpeedNote slower or faster than the baseline's, the sentence
// that says so, one wording for the CLI's notes and the GUI's marks: "the machine computed 20% slower during run 2
// than during run 1 (the forward pass alone: 2.400 against 2.000 ms): part of this difference is the machine's, not
// the schedules'"; nullopt otherwise.
std::optional<std::string> machineSpeedNote(const Comparison& c, std::size_t row, std::size_t baseline);
// "pace 256 KiB", "ddp 25 MiB buckets", "bytescheduler 4 MiB ×4", "horovod", "fifo": the settings that matter.
std::string describeSchedule(const engine::PolicyConfig& config);
// The iteration time a row stands for: measured for a run, predicted for a schedule.
double iterationMs(const CompareRow& row);

}  // namespace pacer::app
