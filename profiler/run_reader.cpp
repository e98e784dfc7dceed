#include "profiler/run_reader.h"

#include <algorithm>
#include <limits>
#include <map>

#include "profiler/project.h"
#include "profiler/schema.h"
#include "profiler/store.h"

namespace pacer::profiler {

namespace {

// Every event table, by one kind stored in it (tableForKind names the table).
constexpr EventKind kOneKindPerTable[] = {EventKind::Forward, EventKind::Kernel,  EventKind::Memcpy, EventKind::Memset,
                                          EventKind::Runtime, EventKind::Sync, EventKind::Marker};

constexpr std::int64_t kNoTime = std::numeric_limits<std::int64_t>::min();

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

}  // namespace pacer::profiler
