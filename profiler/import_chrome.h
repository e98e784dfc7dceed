// Import of Chrome trace JSON: the PyTorch profiler's Kineto traces (one file per rank, `distributedInfo`,
// NCCL kernels, ProfilerStep# markers), Horovod's timeline (B/E pairs per tensor) and Pacer's own export.
//
// Files are streamed through nlohmann::json's SAX interface, so a large trace is never held as a DOM: an event's
// members go into fixed slots and only the arguments Pacer reads into a small DOM of their own. Errors
// name the file and line ("trace.json: line 3: expected number for 'ts'"). All files are read and checked before
// the project is opened: bad input writes nothing.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "profiler/run_info.h"
#include "profiler/status.h"
#include "profiler/trace_model.h"

namespace pacer::profiler {

// Where an import's time went, phase by phase, in wall and in the calling thread's CPU ns (bench_profiler prints
// them). Phases after a failing one stay 0.
struct ImportPhases {
    struct Time {
        std::int64_t wall = 0, cpu = 0;
    };
    Time parse;        // reading and parsing the files into events
    Time tracks;       // the events' tracks, kinds and iterations
    Time replayInput;  // a DDP job's replay input (profiler/kineto_ddp.h)
};

// Parses one or more Chrome trace files (the ranks of one run) into a trace; `info` receives what the files say.
Result<RunTrace> parseChromeTrace(const std::vector<std::string>& files, RunInfo* info, ImportPhases* phases = nullptr);
// Parses text already in memory (the fuzz targets' entry); `name` stands for the file in messages.
Result<RunTrace> parseChromeTraceText(std::string_view text, const std::string& name, RunInfo* info);

Result<std::int64_t> importChromeTrace(const std::vector<std::string>& files, const std::string& projectPath);

}  // namespace pacer::profiler
