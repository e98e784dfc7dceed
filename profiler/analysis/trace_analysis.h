// Figures of a run in the manner of Holistic Trace Analysis (HTA), computed over the trace model so that the
// GUI and `pacer-cli analyze` report the same numbers. No Qt.
//
// Definitions (HTA's, on Pacer's tracks):
// - compute: the union of a rank's compute spans (forward, backward, optimizer; GPU kernels that are not NCCL's);
//   communication: the union of its collectives (all-reduce units, NCCL kernels). Memory copies and sets are
//   neither (HTA's "non-compute" other than communication); waits are idle time of the compute thread.
// - temporal breakdown per rank over its span (first iteration start to last iteration end, or its events' span
//   when the run has no iteration markers): compute, exposed communication (communication while no compute
//   runs) and idle (neither); the three add up to the span.
// - communication-computation overlap: compute time during communication ÷ communication time.
// - straggler: collectives matched across ranks by their order on each rank (the k-th collective of every rank
//   is the same collective, as NCCL and Gloo require); for each, the rank that starts it last waits for nobody
//   and makes the others wait. The straggler is the rank with the largest mean lateness (its start minus the
//   earliest rank's start).
// - critical path of an iteration: on the rank that ends the iteration last, walk back from its last event
//   through the latest-ending dependency: the previous span on the same track, the backward that made a
//   collective's gradient ready, the collective a wait ended with, the collective an optimizer step updates from.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "profiler/run_reader.h"
#include "profiler/status.h"
#include "profiler/trace_model.h"

namespace pacer::profiler::analysis {

struct RankBreakdown {
    int rank = 0;
    std::int64_t span_ns = 0;
    std::int64_t compute_ns = 0;
    std::int64_t exposed_comm_ns = 0;
    std::int64_t idle_ns = 0;
    std::int64_t comm_ns = 0;          // all communication, hidden or not
    std::int64_t overlap_ns = 0;       // compute during communication
    double overlapPercent() const { return comm_ns > 0 ? 100.0 * static_cast<double>(overlap_ns) / static_cast<double>(comm_ns) : 0.0; }
    // Straggler figures: collectives this rank started last, and its mean lateness over all matched collectives.
    int last_starts = 0;
    double mean_lateness_ns = 0.0;
};

struct NameStats {
    std::string name;
    bool communication = false;
    std::int64_t count = 0;
    std::int64_t total_ns = 0;
    std::int64_t min_ns = 0;
    std::int64_t max_ns = 0;
    double meanNs() const { return count > 0 ? static_cast<double>(total_ns) / static_cast<double>(count) : 0.0; }
};

struct PathStep {
    int rank = 0;
    int track = 0;
    EventKind kind = EventKind::Forward;
    std::string name;
    std::int64_t start = 0;
    std::int64_t end = 0;
};

struct CriticalPath {
    int iteration = -1;
    int rank = -1;
    std::int64_t length_ns = 0;          // from the path's first start to its last end
    std::int64_t compute_ns = 0;         // on-path time in compute spans
    std::int64_t comm_ns = 0;            // on-path time in collectives not overlapped by an on-path compute span
    std::vector<PathStep> steps;         // in time order
};

struct RunAnalysis {
    std::vector<RankBreakdown> ranks;    // by rank
    std::vector<NameStats> names;        // compute then communication, longest total first
    int matched_collectives = 0;
    int straggler_rank = -1;             // -1 when fewer than two ranks or no matched collective
    CriticalPath critical_path;
};

bool isCommunication(const TraceEvent& e);
bool isCompute(const TraceEvent& e);

// iteration: the one whose critical path to trace; -1 = the last iteration that every rank completed.
RunAnalysis analyzeRun(const RunTrace& trace, int iteration = -1);

// The same figures of a project's run, streamed from the store: each rank's events once in start order (a merge
// of index scans, nothing held per event), each rank's collectives once more in step with the other ranks' for the
// straggler, and only the critical path's rank and iteration read as events. What `pacer-cli analyze` and the
// workbench use for a run too large to hold; memory is per rank, iteration and name, never per event.
Result<RunAnalysis> analyzeStored(RunReader& reader, int iteration = -1);

}  // namespace pacer::profiler::analysis
