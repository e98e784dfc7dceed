// Opening a project (the GUI's File ▸ Open, every CLI command's --project): arbitrary bytes, mostly mutated
// project files, as the file. Every read a viewer does — the run list, a run, a zoomed-out track summary, the saved
// schedules, a replay input — must give data or one line naming the file; an edit (rename) must not crash either.
#include <algorithm>
#include <cstdint>

#include "app/common/replay_session.h"
#include "fuzz_support.h"
#include "profiler/project.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace pacer;
    const std::string path = fuzz::writeScratch("project.pacer", fuzz::text(data, size));
    auto check = [&](const auto& s) {  // a profiler or an engine Status
        if (!s.ok()) fuzz::checkErrorLine(s.message());
    };
    check(profiler::checkProject(path));
    auto runs = profiler::listRuns(path);
    check(runs.status());
    auto schedules = profiler::listSchedules(path);
    check(schedules.status());
    if (runs.ok()) {
        const std::size_t shown = std::min<std::size_t>(runs.value().size(), 3);
        for (std::size_t i = 0; i < shown; ++i) {
            const std::int64_t id = runs.value()[i].run_id;
            auto record = profiler::readRunRecord(path, id);
            check(record.status());
            if (record.ok() && !record.value().trace.tracks.empty()) {
                const auto& events = record.value().trace.events;
                const std::int64_t end = events.empty() ? 1000 : events.back().end;
                check(profiler::readTrackSummary(path, id, record.value().trace.tracks.front().id, 0, end, 64).status());
            }
            auto input = app::loadRunInput(path, id);
            check(input.status());
        }
        if (shown > 0) check(profiler::renameRun(path, runs.value()[0].run_id, "renamed"));
    }
    fuzz::removeScratch("project.pacer");
    return 0;
}
