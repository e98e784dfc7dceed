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

namespace pacer::app {

engine::ObservedRun observedFromTrace(const profiler::RunTrace& trace);

profiler::RunTrace traceFromSimulation(const engine::SimResult& sim, const engine::Workload& workload,
                                       const profiler::RunInfo& info);

}  // namespace pacer::app
