// The two crossings between the profiler's trace model and the engine's replay, kept here so that neither
// module depends on the other (DESIGN.md: engine and profiler depend on nothing of ours):
//   captured/imported RunTrace  ->  engine::ObservedRun  (what replay extracts a workload and a cost model from)
//   engine::SimResult           ->  RunTrace             (so every view draws a replay like a capture)
#pragma once

#include "engine/replay/observed_run.h"
#include "engine/sim/simulator.h"
#include "profiler/run_info.h"
#include "profiler/trace_model.h"

#include <string>
#include <vector>

namespace pacer::app {

// What an importer wrote in an imported run's experiment record about its replay input ("imported" section,
// profiler/import_chrome.cpp): the trace's DDP buckets (tensor ids per bucket, launch order), or the sentence
// saying what the trace lacks for replay. Both empty for captures and for records without that section.
struct ImportedReplay {
    std::vector<std::vector<int>> buckets;
    std::string missing;
};
ImportedReplay importedReplay(const std::string& experimentJson);

engine::ObservedRun observedFromTrace(const profiler::RunTrace& trace);

profiler::RunTrace traceFromSimulation(const engine::SimResult& sim, const engine::Workload& workload,
                                       const profiler::RunInfo& info);

}  // namespace pacer::app
