// What a run is, apart from its events: the settings it ran with. Written once per rank file and per project run.
#pragma once

#include <cstdint>
#include <string>

namespace pacer::profiler {

struct RunInfo {
    std::string label;            // user-visible name, e.g. "pace 4 MiB"
    std::string policy;           // fifo, ddp, horovod, bytescheduler, pace, manual, or "imported"
    std::string experiment_json;  // the experiment file's text, kept so a run can be repeated
    std::int64_t segment_bytes = 0;
    int ranks = 0;
    int iterations = 0;
    std::string backend;          // cpu, gpu, or where it came from for imports (chrome, nsys)
    std::int64_t started_ns = 0;  // wall clock (ns since the epoch)
    // Rank files only: names the one capture every rank file of a run belongs to (the launcher's PACER_RUN_KEY,
    // else the run directory), so merge can refuse files of different runs that happen to share settings.
    std::string run_key{};
};

}  // namespace pacer::profiler
