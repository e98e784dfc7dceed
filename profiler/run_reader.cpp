#include "profiler/run_reader.h"

#include <algorithm>
#include <limits>
#include <map>
#include <queue>

#include "profiler/project.h"
#include "profiler/schema.h"
#include "profiler/store.h"

namespace pacer::profiler {

namespace {

// Every event table, by one kind stored in it (tableForKind names the table).
constexpr EventKind kOneKindPerTable[] = {EventKind::Forward, EventKind::Kernel,  EventKind::Memcpy, EventKind::Memset,
                                          EventKind::Runtime, EventKind::Sync, EventKind::Marker};

constexpr std::int64_t kNoTime = std::numeric_limits<std::int64_t>::min();

// A merge of per-(track, table) scans, each already in start order: a heap of the scans by their current row.
class MergedScans : public SpanStream {
public:
    // trackOf: the track of each scan.
    MergedScans(sql::Db* db, std::vector<store::TrackScan> scans, std::vector<int> trackOf)
        : db_(db), scans_(std::move(scans)), track_of_(std::move(trackOf)) {
        rows_.resize(scans_.size());
        for (std::size_t i = 0; i < scans_.size(); ++i)
            if (advance(i)) heap_.push({rows_[i].start, i});
    }
    bool next(SpanRow* row) override {
        if (heap_.empty() || !status_.ok()) return false;
        const std::size_t i = heap_.top().second;
        heap_.pop();
        *row = rows_[i];
        if (advance(i)) heap_.push({rows_[i].start, i});
        return status_.ok();
    }
    Status status() const override { return status_; }

private:
    // Reads scan i's next row into rows_[i]; false at its end or on an error.
    bool advance(std::size_t i) {
        store::TrackScan& scan = scans_[i];
        Status s;
        if (!scan.stmt.step(&s)) {
            if (!s.ok() && status_.ok()) status_ = s;
            return false;
        }
        SpanRow& r = rows_[i];
        const int kind = scan.stmt.i32(0);
        if (scan.has_kind && (kind < 0 || kind >= kEventKindCount)) {
            status_ = errorStatus(db_->path() + ": event with unknown kind " + std::to_string(kind));
            return false;
        }
        r.kind = scan.has_kind ? static_cast<EventKind>(kind) : scan.fixed_kind;
        r.name = scan.stmt.isNull(1) ? -1 : scan.stmt.i64(1);
        r.start = scan.stmt.i64(2);
        r.end = scan.stmt.i64(3);
        r.iteration = scan.stmt.i32(4);
        r.track = track_of_[i];
        return true;
    }

    using Head = std::pair<std::int64_t, std::size_t>;  // (start, scan)
    sql::Db* db_;
    std::vector<store::TrackScan> scans_;
    std::vector<int> track_of_;
    std::vector<SpanRow> rows_;
    std::priority_queue<Head, std::vector<Head>, std::greater<Head>> heap_;
    Status status_ = okStatus();
};

}  // namespace

std::int64_t summaryLevelWidth(int level) { return store::kSummaryBaseNs << (2 * level); }

Result<std::unique_ptr<RunReader>> RunReader::open(const std::string& projectPath, std::int64_t runId) {
    PROFILER_RETURN_IF_ERROR(checkProject(projectPath));
    PROFILER_ASSIGN_OR_RETURN(auto db, openStore(projectPath, OpenFor::Read));
    Status s;
    PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db->prepare(runId == 0 ? "SELECT MAX(id) FROM runs" : "SELECT id FROM runs WHERE id=?"));
    if (runId != 0) st.bind(1, runId);
    if (!st.step(&s) || st.isNull(0)) {
        if (!s.ok()) return s;
        return errorStatus(projectPath + (runId == 0 ? std::string(": the project holds no runs")
                                                     : ": no run with id " + std::to_string(runId)));
    }
    runId = st.i64(0);
    return std::unique_ptr<RunReader>(new RunReader(std::move(db), runId));
}

Result<TrackExtent> RunReader::extent(int track) {
    TrackExtent x;
    x.track = track;
    Status s;
    {
        PROFILER_ASSIGN_OR_RETURN(sql::Stmt has, db_->prepare(
            "SELECT 1 FROM track_summary WHERE run_id=? AND track=? AND level=? LIMIT 1"));
        for (int level = 0; level < store::kSummaryLevels; ++level) {
            has.bind(1, runId_).bind(2, track).bind(3, level);
            if (has.step(&s)) x.levels.push_back(level);
            PROFILER_RETURN_IF_ERROR(s);
            has.reset();
        }
    }
    if (x.levels.empty()) {
        // Too few events for a summary (it is stored only where it shrinks the track four times): read them.
        std::vector<TraceEvent> all;
        PROFILER_RETURN_IF_ERROR(store::readEvents(
            *db_, runId_, {track, std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max(), false}, all));
        x.first_start = std::numeric_limits<std::int64_t>::max();
        x.last_end = kNoTime;
        for (const TraceEvent& e : all) {
            if (e.kind == EventKind::Iteration) continue;  // markers are counted by the outline, as in the summary
            ++x.events;
            x.first_start = std::min(x.first_start, e.start);
            x.last_end = std::max(x.last_end, e.end);
            x.longest_ns = std::max(x.longest_ns, e.end - e.start);
        }
        return x;
    }
    {
        PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db_->prepare(
            "SELECT SUM(count), MAX(peak_ns) FROM track_summary WHERE run_id=? AND track=? AND level=?"));
        st.bind(1, runId_).bind(2, track).bind(3, x.levels.back());
        if (!st.step(&s)) return s.ok() ? errorStatus(db_->path() + ": unreadable track summary") : s;
        x.events = st.i64(0);
        x.longest_ns = st.i64(1);
    }
    // First and last start come from the (run_id, track, start) index of each table; the last end from the
    // events that start within the longest duration of the last start (any later end must be among them).
    x.first_start = std::numeric_limits<std::int64_t>::max();
    std::int64_t lastStart = kNoTime;
    for (EventKind kind : kOneKindPerTable) {
        const std::string table = store::tableForKind(kind);
        for (const char* fn : {"MIN", "MAX"}) {
            PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db_->prepare(std::string("SELECT ") + fn + "(start) FROM " + table +
                                                                 " WHERE run_id=? AND track=?"));
            st.bind(1, runId_).bind(2, track);
            if (st.step(&s) && !st.isNull(0)) {
                x.first_start = std::min(x.first_start, st.i64(0));
                lastStart = std::max(lastStart, st.i64(0));
            }
            PROFILER_RETURN_IF_ERROR(s);
        }
    }
    x.last_end = lastStart;
    for (EventKind kind : kOneKindPerTable) {
        PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db_->prepare(std::string("SELECT MAX(end) FROM ") + store::tableForKind(kind) +
                                                             " WHERE run_id=? AND track=? AND start>=?"));
        st.bind(1, runId_).bind(2, track).bind(3, lastStart - x.longest_ns);
        if (st.step(&s) && !st.isNull(0)) x.last_end = std::max(x.last_end, st.i64(0));
        PROFILER_RETURN_IF_ERROR(s);
    }
    return x;
}

Result<RunOutline> RunReader::outline() {
    RunOutline out;
    PROFILER_ASSIGN_OR_RETURN(store::StoredRun header, store::readRunHeader(*db_, runId_));
    out.trace = std::move(header.trace);
    for (const Track& t : out.trace.tracks) {
        PROFILER_ASSIGN_OR_RETURN(TrackExtent x, extent(t.id));
        out.events += x.events;
        out.extents.push_back(std::move(x));
    }
    PROFILER_RETURN_IF_ERROR(store::readEvents(*db_, runId_, {-1, 0, 0, true}, out.trace.events));
    out.events += static_cast<std::int64_t>(out.trace.events.size());
    std::sort(out.trace.events.begin(), out.trace.events.end(), [](const TraceEvent& a, const TraceEvent& b) {
        return a.track != b.track ? a.track < b.track : a.start < b.start;
    });
    Status s;
    PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db_->prepare(
        "SELECT MIN(priority), MAX(priority) FROM segments WHERE run_id=? AND priority>=0"));
    st.bind(1, runId_);
    if (st.step(&s) && !st.isNull(0)) {
        out.min_priority = st.i32(0);
        out.max_priority = st.i32(1);
    }
    PROFILER_RETURN_IF_ERROR(s);
    return out;
}

Result<std::vector<SummaryCell>> RunReader::summary(int track, int level, std::int64_t firstBucket,
                                                     std::int64_t lastBucket) {
    PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db_->prepare(
        "SELECT bucket, count, busy_ns, peak_ns, peak_kind FROM track_summary"
        " WHERE run_id=? AND track=? AND level=? AND bucket>=? AND bucket<=? ORDER BY bucket"));
    st.bind(1, runId_).bind(2, track).bind(3, level).bind(4, firstBucket).bind(5, lastBucket);
    std::vector<SummaryCell> cells;
    Status s;
    while (st.step(&s)) {
        const int kind = st.i32(4);
        if (kind < 0 || kind >= kEventKindCount)
            return errorStatus(db_->path() + ": summary bucket with unknown kind " + std::to_string(kind));
        cells.push_back({st.i64(0), st.i64(1), st.i64(2), st.i64(3), static_cast<EventKind>(kind)});
    }
    PROFILER_RETURN_IF_ERROR(s);
    return cells;
}

Result<std::vector<TraceEvent>> RunReader::events(const std::vector<TrackExtent>& tracks, std::int64_t t0, std::int64_t t1) {
    std::vector<TraceEvent> out;
    for (const TrackExtent& x : tracks) {
        const std::size_t begin = out.size();
        PROFILER_RETURN_IF_ERROR(store::readEvents(*db_, runId_, {x.track, t0 - x.longest_ns, t1, false}, out));
        // Drop what ends before the range (read only because it might have reached into it), then sort the track.
        const auto kept = std::remove_if(out.begin() + static_cast<std::ptrdiff_t>(begin), out.end(), [t0](const TraceEvent& e) {
            return e.end < t0 || e.kind == EventKind::Iteration;
        });
        out.erase(kept, out.end());
        std::sort(out.begin() + static_cast<std::ptrdiff_t>(begin), out.end(),
                  [](const TraceEvent& a, const TraceEvent& b) { return a.start < b.start; });
    }
    return out;
}

Result<std::vector<RunReader::NameTotals>> RunReader::aggregate(const std::vector<TrackExtent>& tracks, std::int64_t t0,
                                                               std::int64_t t1) {
    std::map<std::string, store::NameTotal> byName;
    for (const TrackExtent& x : tracks)
        PROFILER_RETURN_IF_ERROR(store::aggregateEvents(*db_, runId_, {x.track, t0 - x.longest_ns, t1, false}, t0, byName));
    std::vector<NameTotals> out;
    out.reserve(byName.size());
    for (const auto& [name, t] : byName) out.push_back({name, t.count, t.total_ns});
    std::sort(out.begin(), out.end(), [](const NameTotals& a, const NameTotals& b) {
        return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
    });
    return out;
}

Result<std::unique_ptr<SpanStream>> RunReader::spans(const std::vector<int>& tracks) {
    std::vector<store::TrackScan> scans;
    std::vector<int> trackOf;
    PROFILER_ASSIGN_OR_RETURN(const unsigned tables, store::eventTablesOf(*db_, runId_));
    for (const int track : tracks) {
        PROFILER_RETURN_IF_ERROR(store::appendTrackScans(*db_, runId_, track, tables, scans));
        trackOf.resize(scans.size(), track);
    }
    return std::unique_ptr<SpanStream>(new MergedScans(db_.get(), std::move(scans), std::move(trackOf)));
}

Result<std::unordered_map<std::int64_t, std::string>> RunReader::names() {
    PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db_->prepare("SELECT id, value FROM StringIds"));
    std::unordered_map<std::int64_t, std::string> out;
    Status s;
    while (st.step(&s)) out.emplace(st.i64(0), st.text(1));
    PROFILER_RETURN_IF_ERROR(s);
    return out;
}

Result<std::optional<TraceEvent>> RunReader::findByName(const std::vector<int>& tracks, const std::string& text,
                                                        std::int64_t after, bool forward) {
    PROFILER_ASSIGN_OR_RETURN(std::vector<std::int64_t> ids, store::nameIdsContaining(*db_, text));
    if (ids.empty() || text.empty()) return std::optional<TraceEvent>{};
    PROFILER_ASSIGN_OR_RETURN(const unsigned tables, store::eventTablesOf(*db_, runId_));
    // The starts the search can meet: where the window below stops growing.
    PROFILER_ASSIGN_OR_RETURN(auto range, store::startRange(*db_, runId_, tracks, tables));
    if (!range) return std::optional<TraceEvent>{};
    // Named copies, not a structured binding: clang 14 (the sanitizer builds) cannot capture those in a lambda.
    const std::int64_t lo = range->first, hi = range->second;
    std::vector<store::TrackSearch> searches;
    for (const int track : tracks) {
        PROFILER_ASSIGN_OR_RETURN(store::TrackSearch search, store::TrackSearch::prepare(*db_, runId_, track, tables, ids, forward));
        searches.push_back(std::move(search));
    }
    // Windows growing 4x from the start: the nearest match lies in the first window where some track has one, so a
    // name that is common somewhere costs a few short index walks per track (a track without it is not walked to
    // its end), and a rare one no more than a walk over the run.
    auto searchFrom = [&](std::int64_t edge) -> Result<std::optional<TraceEvent>> {
        std::int64_t width = std::max<std::int64_t>(1, (hi - lo) / 4096);
        while (forward ? edge < hi : edge > lo) {
            const std::int64_t next = forward ? (hi - edge <= width ? hi : edge + width) : (edge - lo <= width ? lo : edge - width);
            std::optional<TraceEvent> best;
            for (store::TrackSearch& search : searches) {
                // Starts in (edge, next] forward, [next, edge) backward; a match found bounds the other tracks.
                const std::int64_t bound = best ? best->start : (forward ? next + 1 : next - 1);
                PROFILER_ASSIGN_OR_RETURN(std::optional<TraceEvent> e, search.find(edge, bound));
                if (e) best = std::move(e);
            }
            if (best) return best;
            edge = next;
            width = width > (std::numeric_limits<std::int64_t>::max() >> 3) ? width : width * 4;
        }
        return std::optional<TraceEvent>{};
    };
    // The nearest match after `after`, else (wrapping around) the first of the run (the last, backward).
    PROFILER_ASSIGN_OR_RETURN(std::optional<TraceEvent> found,
                              searchFrom(forward ? std::max(after, lo - 1) : std::min(after, hi + 1)));
    if (found) return found;
    return searchFrom(forward ? lo - 1 : hi + 1);
}

}  // namespace pacer::profiler
