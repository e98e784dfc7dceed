// A project for the compare view's tests: the sample Pacer trace stored twice as runs of experiment "small" (so
// that differences between them are given), and a schedule "fine" (pace, 4 KiB segments) saved on run 2.
#pragma once

#include "app/common/policy_json.h"
#include "pacer/config.h"
#include "profiler/import_chrome.h"
#include "profiler/project.h"

#include <QString>

#include <string>

namespace pacer::testing {

// Returns an error message, empty on success.
inline std::string writeCompareProject(const std::string& project) {
    profiler::RunInfo info;
    auto trace = profiler::parseChromeTrace({PACER_SOURCE_DIR "/samples/traces/pacer_export.json"}, &info);
    if (!trace.ok()) return trace.status().message();
    info.backend = "cpu";
    info.experiment_json = R"({"name":"small","model":{"layers":[8,8]},"order":"dynamic"})";
    for (int i = 0; i < 2; ++i)
        if (auto id = profiler::writeRun(project, trace.value(), info, "capture"); !id.ok()) return id.status().message();
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
