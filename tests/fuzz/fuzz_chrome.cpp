// Chrome trace import (Kineto, Horovod's timeline, Pacer's export, the legacy bare array), and what follows an
// import: the parsed trace exports again, is written into a project (the store's write path) and read back, and
// becomes a replay input. Any input must either import or fail with one line naming the file.
#include <cstdint>
#include <memory>
#include <sstream>

#include "app/common/replay_session.h"
#include "fuzz_support.h"
#include "profiler/export_chrome.h"
#include "profiler/import_chrome.h"
#include "profiler/project.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace pacer;
    profiler::RunInfo info;
    auto trace = profiler::parseChromeTraceText(fuzz::text(data, size), "fuzz.json", &info);
    if (!trace.ok()) {
        fuzz::checkErrorLine(trace.message(), "fuzz.json");
        return 0;
    }
    std::ostringstream out;
    profiler::writeChromeTrace(out, *trace, info);

    const std::string project = fuzz::writeScratch("chrome.pacer", {});
    fuzz::removeScratch("chrome.pacer");
    auto id = profiler::writeRun(project, *trace, info, "chrome");
    if (!id.ok()) {
        fuzz::checkErrorLine(id.message());
        return 0;
    }
    auto record = profiler::readRunRecord(project, id.value());
    if (!record.ok()) fuzz::broken("a run just written does not read back", record.message());
    if (record.value().trace.events.size() != trace->events.size())
        fuzz::broken("events lost between write and read", std::to_string(trace->events.size()) + " written, " +
                                                               std::to_string(record.value().trace.events.size()) +
                                                               " read");
    auto input = app::inputFromRun(std::make_shared<const profiler::RunTrace>(std::move(record.value().trace)),
                                   record.value().summary, project);
    if (!input.ok()) fuzz::checkErrorLine(input.message());
    fuzz::removeScratch("chrome.pacer");
    return 0;
}
