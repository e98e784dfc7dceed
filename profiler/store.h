// Internal to the profiler: writing and reading whole runs on an open store. Rank files, merge, import and
// writeRun all come through here, so every path validates and stores events the same way.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "profiler/run_info.h"
#include "profiler/sqlite_db.h"
#include "profiler/status.h"
#include "profiler/trace_model.h"

namespace pacer::profiler::store {

struct RankExtra {
    int rank = 0;
    std::string hostname;
    std::int64_t clock_offset_ns = 0;  // added to this rank's times to reach the run's common clock
    std::uint64_t dropped = 0;         // records the tracer could not keep
    std::map<std::string, double> metrics;
};

struct StoredRun {
    RunTrace trace;
    RunInfo info;
    std::vector<RankExtra> ranks;
    std::string source = "capture";  // capture, merge, chrome, nsys, simulated
    std::string notes;
};

// Checks what a writer would store: tracks exist, spans are not reversed, numbers are sane. `where` prefixes errors.
Status validateRun(const RunTrace& trace, const std::string& where);

// Interns strings into StringIds and inserts event rows into the table of their kind, with prepared statements.
class EventWriter {
public:
    static Result<std::unique_ptr<EventWriter>> create(sql::Db& db, std::int64_t runId);
    Result<std::int64_t> stringId(std::string_view text);
    Status add(EventKind kind, int track, std::int64_t nameId, std::int64_t start, std::int64_t end,
               std::int64_t correlation, int iteration, int layer, int tensor, int segment, std::int64_t bytes,
               int priority);

private:
    EventWriter(sql::Db& db, std::int64_t runId) : db_(db), runId_(runId) {}
    sql::Db& db_;
    std::int64_t runId_;
    std::unordered_map<std::string, std::int64_t> stringIds_;
    std::vector<sql::Stmt> inserts_;  // one per EventKind
    std::unique_ptr<sql::Stmt> findString_, insertString_;
};

// Inserts the run row (and its experiment) and returns the new run id. Caller holds the transaction.
Result<std::int64_t> insertRunRow(sql::Db& db, const RunInfo& info, const std::string& source,
                                  const std::string& notes);
Status insertRanks(sql::Db& db, std::int64_t runId, const std::vector<RankExtra>& ranks);
Status insertTracks(sql::Db& db, std::int64_t runId, const std::vector<Track>& tracks);
Status insertTensors(sql::Db& db, std::int64_t runId, const std::vector<TensorRecord>& tensors);
// Segments (one row per tensor/segment seen in all-reduce events) and the per-track summary, from the events.
Status insertDerived(sql::Db& db, std::int64_t runId, const std::vector<TraceEvent>& events);
// The per-track summary alone (iteration markers left out); insertDerived calls it.
Status insertSummary(sql::Db& db, std::int64_t runId, const std::vector<TraceEvent>& events);

// Validates, then writes everything in one transaction. Returns the run id.
Result<std::int64_t> writeWholeRun(sql::Db& db, const StoredRun& run);

// Which events readEvents() appends: all of a run, one track's starting in [from, to), or the iteration markers.
struct EventQuery {
    int track = -1;  // -1: every track, whatever the times
    std::int64_t from = 0;
    std::int64_t to = 0;
    bool iterations_only = false;  // EventKind::Iteration only, through their partial index
};
// Appends the matching events of a run from every event table, in no particular order.
Status readEvents(sql::Db& db, std::int64_t runId, const EventQuery& query, std::vector<TraceEvent>& out);

// Counts and total durations by name of one track's events that start in [from, to) and end after endsAfter,
// iteration markers left out, added into `out` (keyed by name). One GROUP BY per event table, nothing read per event.
struct NameTotal {
    std::int64_t count = 0;
    std::int64_t total_ns = 0;
};
Status aggregateEvents(sql::Db& db, std::int64_t runId, const EventQuery& query, std::int64_t endsAfter,
                       std::map<std::string, NameTotal>& out);

// One event table's events of one track in start order, iteration markers left out, read a row at a time through
// the (run_id, track, start) index: columns kind (the table's own where it has no kind column), name id (NULL for
// none), start, end, iteration. What an analysis streams when a run is too large to hold.
struct TrackScan {
    sql::Stmt stmt;
    bool has_kind = false;
    EventKind fixed_kind = EventKind::Forward;  // the kind of every row when !has_kind
};
// tables: the event tables to scan, as eventTablesOf() gives them.
Status appendTrackScans(sql::Db& db, std::int64_t runId, int track, unsigned tables, std::vector<TrackScan>& out);

// The event tables that hold events of the run, a bit each: a CPU run's are one of seven, so searches and scans
// per track skip the empty ones (one indexed probe per table).
Result<unsigned> eventTablesOf(sql::Db& db, std::int64_t runId);

// The first and last start of the given tracks' events (iteration markers included), from the index; nullopt when
// they have none.
Result<std::optional<std::pair<std::int64_t, std::int64_t>>> startRange(sql::Db& db, std::int64_t runId,
                                                                        const std::vector<int>& tracks, unsigned tables);

// Ids of the names that contain `text` (ASCII letters in any case), from the StringIds table.
Result<std::vector<std::int64_t>> nameIdsContaining(sql::Db& db, const std::string& text);

// Searches one track for the event whose name id is among `names` and that starts first after `after` (forward) or
// last before it (backward), before `bound` (after it, backward); iteration markers left out. Each search walks
// the (run_id, track, start) index from `after` and stops at the first match or at the bound, so a near match
// costs little; the statements are prepared once for any number of searches.
class TrackSearch {
public:
    static Result<TrackSearch> prepare(sql::Db& db, std::int64_t runId, int track, unsigned tables,
                                       const std::vector<std::int64_t>& names, bool forward);
    Result<std::optional<TraceEvent>> find(std::int64_t after, std::int64_t bound);

private:
    TrackSearch(sql::Db* db, std::int64_t runId, int track) : db_(db), run_id_(runId), track_(track) {}
    sql::Db* db_;
    std::int64_t run_id_;
    int track_;
    std::vector<TrackScan> scans_;
};

// Everything of a run but its events (runId 0 = the latest run).
Result<StoredRun> readRunHeader(sql::Db& db, std::int64_t runId);
// runId 0 = the latest run. Events sorted by (track, start).
Result<StoredRun> readWholeRun(sql::Db& db, std::int64_t runId);

// Summary bucket widths: level k covers kSummaryBaseNs * 4^k ns.
inline constexpr std::int64_t kSummaryBaseNs = 1024;
inline constexpr int kSummaryLevels = 14;

// Which table holds events of a kind (Nsight Systems' names for GPU activity).
const char* tableForKind(EventKind kind);

// a + b, held at the int64 limits instead of overflowing: busy time summed over spans of up to 2^62 ns each.
std::int64_t addSaturating(std::int64_t a, std::int64_t b);

}  // namespace pacer::profiler::store
