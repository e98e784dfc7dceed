// A project for the comparison's tests (the CLI's and the GUI's compare view): the sample Pacer trace stored once
// per experiment given (runs 1, 2, ...), and a schedule "fine" (pace, 4 KiB segments) saved on run 2; and the
// machine's speed a run found (its forward-alone figures), which imported traces do not carry.
#pragma once

#include "app/common/policy_json.h"
#include "profiler/import_chrome.h"
#include "profiler/project.h"
#include "profiler/sqlite_db.h"

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace pacer::testing {

inline nlohmann::json compareExperiment(const std::string& name, int width) {
    return {{"name", name}, {"model", {{"layers", {width, width}}}}, {"order", "dynamic"}};
}

// Returns an error message, empty on success.
inline std::string writeCompareProject(const std::string& project, const std::vector<nlohmann::json>& experiments) {
    profiler::RunInfo info;
    auto trace = profiler::parseChromeTrace({PACER_SAMPLES_DIR "/traces/pacer_export.json"}, &info);
    if (!trace.ok()) return trace.status().message();
    info.backend = "cpu";
    for (const nlohmann::json& experiment : experiments) {
        info.experiment_json = experiment.dump();
        if (auto id = profiler::writeRun(project, trace.value(), info, "capture"); !id.ok()) return id.status().message();
    }
    profiler::SavedSchedule saved;
    saved.run_id = 2;
    saved.name = "fine";
    engine::PolicyConfig fine;
    fine.name = "pace";
    fine.segment_bytes = 4096;
    saved.policy = fine.name;
    saved.segment_bytes = 4096;
    saved.settings_json = app::scheduleSettingsToJson(fine, {}).dump();
    if (auto id = profiler::saveSchedule(project, saved); !id.ok()) return id.status().message();
    return {};
}

// Sets rank 0's metrics of run `runId` (a figure the worker records, which an imported trace does not carry),
// replacing any it had. Returns an error message, empty on success.
inline std::string setRunMetrics(const std::string& project, std::int64_t runId,
                                 const std::vector<std::pair<std::string, double>>& metrics) {
    auto db = profiler::sql::Db::open(project, profiler::sql::Db::Mode::ReadWrite);
    if (!db.ok()) return db.status().message();
    for (const auto& [key, value] : metrics) {
        const profiler::Status st =
            (*db)->exec("INSERT OR REPLACE INTO run_metrics(run_id, rank, key, value) VALUES (" +
                        std::to_string(runId) + ", 0, '" + key + "', " + std::to_string(value) + ")");
        if (!st.ok()) return st.message();
    }
    return {};
}

// Gives run `runId` the worker's two forward-alone figures (before and after its iterations), as rank 0's.
// Returns an error message, empty on success.
inline std::string setForwardAloneMs(const std::string& project, std::int64_t runId, double before, double after) {
    return setRunMetrics(project, runId, {{"forward_alone_before_ms", before}, {"forward_alone_after_ms", after}});
}

// Two runs of experiment "small" that found the machine at different speeds: forward figures of `first` and `second`
// ms, each its before and after alike. Returns an error message, empty on success.
inline std::string writeTwoSpeedsProject(const std::string& project, double first, double second) {
    std::string error = writeCompareProject(project, {compareExperiment("small", 8), compareExperiment("small", 8)});
    if (error.empty()) error = setForwardAloneMs(project, 1, first, first);
    if (error.empty()) error = setForwardAloneMs(project, 2, second, second);
    return error;
}

}  // namespace pacer::testing
