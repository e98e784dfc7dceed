// A large run read a piece at a time, for views that must not hold it whole.
//
// A run of 10 M events is about a gigabyte as TraceEvents with their strings and takes many seconds to read.
// A timeline needs none of that to open: the outline (tracks, tensors, iteration markers, each track's extent
// and event count) comes from indexes and the stored per-track summary in milliseconds; zoomed out it draws the
// summary (peak duration per bucket, widths 1 µs · 4^k, as a mipmap); zoomed in it reads only the events of the
// visible range through the (run_id, track, start) index. Each reader holds one connection: use it from one
// thread at a time (a view opens one per background read).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "profiler/sqlite_db.h"
#include "profiler/status.h"
#include "profiler/trace_model.h"

namespace pacer::profiler {

// What a view needs to know of a track before reading any of its events.
struct TrackExtent {
    int track = 0;
    std::int64_t events = 0;       // iteration markers left out (the outline has them)
    std::int64_t first_start = 0;  // meaningless when events == 0
    std::int64_t last_end = 0;
    std::int64_t longest_ns = 0;   // the longest event: how far before a range an event may start and reach into it
    std::vector<int> levels;       // summary levels stored for the track, finest first
};

struct RunOutline {
    RunTrace trace;                    // the run without events, but for its iteration markers
    std::vector<TrackExtent> extents;  // one per trace.tracks entry, in the same order
    std::int64_t events = 0;           // all events of the run, markers included
    int min_priority = 0;              // over the run's all-reduce units (0, 0 when none)
    int max_priority = 0;
};

// One stored summary bucket of a track: the events starting in [bucket·width, (bucket+1)·width).
struct SummaryCell {
    std::int64_t bucket = 0;
    std::int64_t count = 0;
    std::int64_t busy_ns = 0;
    std::int64_t peak_ns = 0;
    EventKind peak_kind = EventKind::Forward;
};

// Width in ns of a stored summary level's buckets.
std::int64_t summaryLevelWidth(int level);

class RunReader {
public:
    // Opens the project for reading (checked and migrated as every read is); runId 0 = the latest run.
    static Result<std::unique_ptr<RunReader>> open(const std::string& projectPath, std::int64_t runId);

    std::int64_t runId() const { return runId_; }

    // Tracks, tensors, iteration markers and extents; no other event is read.
    Result<RunOutline> outline();

    // A track's stored buckets at one level with index in [firstBucket, lastBucket], by bucket.
    Result<std::vector<SummaryCell>> summary(int track, int level, std::int64_t firstBucket, std::int64_t lastBucket);

    // The events of the given tracks that overlap [t0, t1), sorted by (track, start), but the iteration markers. An event starting up to
    // the track's longest duration before t0 may reach into the range, so that much earlier is read too.
    Result<std::vector<TraceEvent>> events(const std::vector<TrackExtent>& tracks, std::int64_t t0, std::int64_t t1);

    // Count and total duration by name of the events of the given tracks that overlap [t0, t1) (end after t0), but
    // the iteration markers, counted in the store: what a range table of a large run needs, read in one pass of
    // the index without materialising an event. Sorted by total, longest first.
    struct NameTotals {
        std::string name;
        std::int64_t count = 0;
        std::int64_t total_ns = 0;
    };
    Result<std::vector<NameTotals>> aggregate(const std::vector<TrackExtent>& tracks, std::int64_t t0, std::int64_t t1);

private:
    RunReader(std::unique_ptr<sql::Db> db, std::int64_t runId) : db_(std::move(db)), runId_(runId) {}
    Result<TrackExtent> extent(int track);

    std::unique_ptr<sql::Db> db_;
    std::int64_t runId_;
};

}  // namespace pacer::profiler
