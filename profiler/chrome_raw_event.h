// Internal to the profiler: one Chrome trace event as the importer reads it, before it becomes a TraceEvent.
// Shared by the importer (profiler/import_chrome.cpp) and the extraction of a DDP job's replay input from a
// Kineto trace (profiler/kineto_ddp.cpp), which needs the arguments Kineto records beside the span.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace pacer::profiler {

// Texts are views into the StringPool of whoever read the events (or string literals), which outlives them.
struct RawEvent {
    char ph = 0;
    bool hasDur = false, hasIteration = false, hasInputDims = false;
    int line = 0;
    std::string_view name, cat, pid, tid;
    std::int64_t ts = 0, dur = 0;
    int iteration = -1, layer = -1, tensor = -1, segment = -1, priority = -1;
    std::int64_t bytes = 0, correlation = 0;
    // Kineto's arguments that replay needs, read only for the ops that carry them (AccumulateGrad,
    // record_param_comms, NCCL kernels): the first input's shape ("Input Dims", with record_shapes=True) and a
    // collective's message ("In msg nelems", "dtype", "Collective name", "Group size"). -1: absent.
    std::vector<std::int64_t> firstInputDims;
    std::int64_t msgElements = -1;
    std::string_view dtype, collective;
    int groupSize = -1;
};

}  // namespace pacer::profiler
