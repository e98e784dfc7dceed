// The project file (*.pacer): runs merged from rank files, imported or simulated, and what the GUI and CLI ask
// of them. Every function opens the file, does its work in one transaction and closes it; a bad input or a
// foreign/newer file yields an error and leaves the project untouched.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "profiler/rank_file.h"
#include "profiler/run_info.h"
#include "profiler/status.h"
#include "profiler/trace_model.h"

namespace pacer::profiler {

struct RunSummary {
    std::int64_t run_id = 0;
    std::string label, policy, backend;
    int ranks = 0, iterations = 0;
    std::int64_t segment_bytes = 0;
    std::int64_t started_ns = 0;
    // Per metric: the value when every rank agrees (param_hash), else the mean over ranks (iter_ms).
    std::map<std::string, double> metrics;
    std::string source;   // capture (merged), chrome, nsys, simulated
    std::string notes;    // annotateRun
    std::uint64_t dropped = 0;  // tracer records lost, all ranks
    std::string experiment_json;
};

// Creates the project if missing; adds one run; returns its run id; validates everything before writing.
// Rank files must each hold one run of one rank, ranks distinct; times are shifted by each rank's clock offset.
Result<std::int64_t> mergeRankFiles(const std::vector<std::string>& rankFiles, const std::string& projectPath);

// Writes a trace (e.g. a simulated one) into a project as a new run; `source` says where it came from.
Result<std::int64_t> writeRun(const std::string& projectPath, const RunTrace& trace, const RunInfo& info,
                              const std::string& source = "simulated");

Result<std::vector<RunSummary>> listRuns(const std::string& projectPath);
Result<RunTrace> readRun(const std::string& projectPath, std::int64_t runId);  // runId 0 = latest
Result<RunSummary> readRunSummary(const std::string& projectPath, std::int64_t runId);  // runId 0 = latest
// A run's trace and summary from one check, one open and one read (what a replay needs; readRun plus
// readRunSummary would check and open the file three times and read the run list once more).
struct RunRecord {
    RunSummary summary;
    RunTrace trace;
};
Result<RunRecord> readRunRecord(const std::string& projectPath, std::int64_t runId);  // runId 0 = latest

// Exists, is SQLite, is ours, version not newer: else a clear error. Never writes.
Status checkProject(const std::string& path);

Status renameRun(const std::string& projectPath, std::int64_t runId, const std::string& label);
Status deleteRun(const std::string& projectPath, std::int64_t runId);
Status annotateRun(const std::string& projectPath, std::int64_t runId, const std::string& notes);

// Zoomed-out drawing: [t0, t1) cut into `buckets` equal buckets, each with the events starting in it, their
// total duration, and the longest one (the peak is what stays visible, as in a mipmap). Empty buckets have
// count 0. Served from the stored summary when the zoom is coarse enough, else from the events by index.
struct SummaryBucket {
    std::int64_t start = 0;
    std::int64_t end = 0;
    std::int64_t count = 0;
    std::int64_t busy_ns = 0;
    std::int64_t peak_ns = 0;
    EventKind peak_kind = EventKind::Forward;
};
Result<std::vector<SummaryBucket>> readTrackSummary(const std::string& projectPath, std::int64_t runId, int trackId,
                                                    std::int64_t t0, std::int64_t t1, int buckets);

// Saved schedules: a policy and its settings (priorities etc. as JSON) the user wants to keep, optionally tied
// to the run it was derived from (runId 0: none).
struct SavedSchedule {
    std::int64_t id = 0;
    std::int64_t run_id = 0;
    std::string name, policy;
    std::int64_t segment_bytes = 0;
    std::string settings_json = "{}";
    std::int64_t created_ns = 0;
};
Result<std::int64_t> saveSchedule(const std::string& projectPath, const SavedSchedule& schedule);
Result<std::vector<SavedSchedule>> listSchedules(const std::string& projectPath);
Status deleteSchedule(const std::string& projectPath, std::int64_t scheduleId);

// What the compare view has pinned, in pin order (a schedule's settings as JSON, as a saved schedule keeps them),
// and the row differences are taken against. Written whole in one transaction whenever they change, so the file
// holds the old set or the new one, never a mix.
struct ComparePin {
    enum class Kind { Run, Schedule };
    Kind kind = Kind::Run;
    std::string label;
    std::int64_t run_id = 0;  // the run it is, or replays on; 0: none named
    std::string settings_json = "{}";
};
struct ComparePins {
    std::vector<ComparePin> pins;
    int baseline = 0;  // index into pins
};
Status saveComparePins(const std::string& projectPath, const ComparePins& pins);
// An older project (none stored) gives an empty set; a row this build cannot read is an error naming it.
Result<ComparePins> readComparePins(const std::string& projectPath);

}  // namespace pacer::profiler
