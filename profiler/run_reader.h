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
#include <optional>
#include <string>
#include <unordered_map>
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

// One event as an analysis streams it: no strings (the name is a StringIds id, -1 for none).
struct SpanRow {
    EventKind kind = EventKind::Forward;
    std::int64_t name = -1;
    int track = 0;
    int iteration = -1;
    std::int64_t start = 0;
    std::int64_t end = 0;
};

// Events one at a time in start order.
class SpanStream {
public:
    virtual ~SpanStream() = default;
    // The next event; false at the end or on an error (status() says which).
    virtual bool next(SpanRow* row) = 0;
    virtual Status status() const = 0;
};

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

    // The events of the given tracks but the iteration markers, one at a time in start order: one scan of the
    // (run_id, track, start) index per track and event table, merged. Nothing is held but one row per scan; the
    // stream reads through this reader's connection and must not outlive it.
    Result<std::unique_ptr<SpanStream>> spans(const std::vector<int>& tracks);

    // The project's names by id (the StringIds table), for the ids a SpanRow carries.
    Result<std::unordered_map<std::int64_t, std::string>> names();

    // The event of the given tracks whose name contains `text` (ASCII letters in any case) that starts first after
    // `after` (forward) or last before it (backward), iteration markers left out; past the last match it wraps
    // around to the first (the last). Names are matched in the StringIds table first, so a name no event has costs
    // one small query; then each track's index is walked from `after` until the nearest match found so far.
    Result<std::optional<TraceEvent>> findByName(const std::vector<int>& tracks, const std::string& text, std::int64_t after,
                                                 bool forward);

private:
    RunReader(std::unique_ptr<sql::Db> db, std::int64_t runId) : db_(std::move(db)), runId_(runId) {}
    Result<TrackExtent> extent(int track);

    std::unique_ptr<sql::Db> db_;
    std::int64_t runId_;
};

}  // namespace pacer::profiler
