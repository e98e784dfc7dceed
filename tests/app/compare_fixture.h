// A project for the comparison's tests (the CLI's and the GUI's compare view): the sample Pacer trace stored once
// per experiment given (runs 1, 2, ...), and a schedule "fine" (pace, 4 KiB segments) saved on run 2.
#pragma once

#include "app/common/policy_json.h"
#include "profiler/import_chrome.h"
#include "profiler/project.h"

#include <nlohmann/json.hpp>

#include <string>
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

}  // namespace pacer::testing
