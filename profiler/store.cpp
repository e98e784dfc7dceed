#include "profiler/store.h"

#include <algorithm>
#include <limits>
#include <set>
#include <unordered_set>

namespace pacer::profiler::store {

namespace {

// Times beyond ±2^62 ns (146 years) are corrupt input, and would overflow when offsets are added.
constexpr std::int64_t kMaxAbsTime = std::int64_t{1} << 62;

struct KindTable {
    const char* table;
    const char* nameColumn;
    const char* insertSql;
};

#define PACER_COMMON_INSERT "run_id, track, start, end, correlationId, iteration, layer, tensor, segment, bytes, priority"
#define PACER_COMMON_VALUES "?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13"

constexpr KindTable kPacerTable{
    "PACER_EVENTS", "nameId",
    "INSERT INTO PACER_EVENTS(kind, nameId, " PACER_COMMON_INSERT ") VALUES(?1, ?2, " PACER_COMMON_VALUES ")"};
constexpr KindTable kKernelTable{"CUPTI_ACTIVITY_KIND_KERNEL", "shortName",
                                 "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(shortName, demangledName, " PACER_COMMON_INSERT
                                 ") VALUES(?2, ?2, " PACER_COMMON_VALUES ")"};
constexpr KindTable kMemcpyTable{"CUPTI_ACTIVITY_KIND_MEMCPY", "nameId",
                                 "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY(nameId, " PACER_COMMON_INSERT
                                 ") VALUES(?2, " PACER_COMMON_VALUES ")"};
constexpr KindTable kMemsetTable{"CUPTI_ACTIVITY_KIND_MEMSET", "nameId",
                                 "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET(nameId, " PACER_COMMON_INSERT
                                 ") VALUES(?2, " PACER_COMMON_VALUES ")"};
constexpr KindTable kRuntimeTable{"CUPTI_ACTIVITY_KIND_RUNTIME", "nameId",
                                  "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(nameId, " PACER_COMMON_INSERT
                                  ") VALUES(?2, " PACER_COMMON_VALUES ")"};
constexpr KindTable kSyncTable{"CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "nameId",
                               "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION(nameId, " PACER_COMMON_INSERT
                               ") VALUES(?2, " PACER_COMMON_VALUES ")"};
// eventType 59 is NVTX's push/pop range in Nsight Systems' export.
constexpr KindTable kNvtxTable{"NVTX_EVENTS", "textId",
                               "INSERT INTO NVTX_EVENTS(textId, eventType, " PACER_COMMON_INSERT
                               ") VALUES(?2, 59, " PACER_COMMON_VALUES ")"};

const KindTable& kindTable(EventKind kind) {
    switch (kind) {
        case EventKind::Kernel: return kKernelTable;
        case EventKind::Memcpy: return kMemcpyTable;
        case EventKind::Memset: return kMemsetTable;
        case EventKind::Runtime: return kRuntimeTable;
        case EventKind::Sync: return kSyncTable;
        case EventKind::Marker: return kNvtxTable;
        default: return kPacerTable;
    }
}

constexpr const KindTable* kAllTables[] = {&kPacerTable,  &kKernelTable, &kMemcpyTable, &kMemsetTable,
                                           &kRuntimeTable, &kSyncTable,   &kNvtxTable};
constexpr EventKind kFixedKind[] = {EventKind::Forward, EventKind::Kernel,  EventKind::Memcpy, EventKind::Memset,
                                    EventKind::Runtime, EventKind::Sync,    EventKind::Marker};

std::int64_t floorDiv(std::int64_t a, std::int64_t b) {
    std::int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
}

}  // namespace

const char* tableForKind(EventKind kind) { return kindTable(kind).table; }

std::int64_t addSaturating(std::int64_t a, std::int64_t b) {
    std::int64_t sum = 0;
    if (!__builtin_add_overflow(a, b, &sum)) return sum;
    return b > 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
}

Status validateRun(const RunTrace& trace, const std::string& where) {
    std::unordered_set<int> trackIds;
    for (const Track& t : trace.tracks) {
        if (!trackIds.insert(t.id).second) return errorStatus(where + ": duplicate track id " + std::to_string(t.id));
        if (static_cast<int>(t.kind) >= kTrackKindCount)
            return errorStatus(where + ": track " + std::to_string(t.id) + " has an unknown kind");
    }
    std::unordered_set<int> tensorIds;
    for (const TensorRecord& t : trace.tensors) {
        if (!tensorIds.insert(t.id).second) return errorStatus(where + ": duplicate tensor id " + std::to_string(t.id));
        if (t.elements < 0) return errorStatus(where + ": tensor " + t.name + " has a negative size");
        if (t.layer < -1 || t.layer > kMaxLayer)
            return errorStatus(where + ": tensor " + t.name + " has layer " + std::to_string(t.layer) + ", outside -1.." +
                               std::to_string(kMaxLayer));
    }
    for (std::size_t i = 0; i < trace.events.size(); ++i) {
        const TraceEvent& e = trace.events[i];
        const std::string at = where + ": event " + std::to_string(i) + " ('" + e.name + "')";
        if (!trackIds.count(e.track)) return errorStatus(at + ": unknown track " + std::to_string(e.track));
        if (static_cast<int>(e.kind) >= kEventKindCount) return errorStatus(at + ": unknown kind");
        if (e.start < -kMaxAbsTime || e.start > kMaxAbsTime || e.end < -kMaxAbsTime || e.end > kMaxAbsTime)
            return errorStatus(at + ": time out of range");
        if (e.end < e.start) return errorStatus(at + ": ends before it starts");
        if (static_cast<std::uint64_t>(e.end) - static_cast<std::uint64_t>(e.start) > std::uint64_t(kMaxAbsTime)) return errorStatus(at + ": lasts longer than 2^62 ns");
        if (e.layer < -1 || e.layer > kMaxLayer)
            return errorStatus(at + ": layer " + std::to_string(e.layer) + " outside -1.." + std::to_string(kMaxLayer));
        if (e.bytes < 0) return errorStatus(at + ": negative byte count");
    }
    return okStatus();
}

Result<std::unique_ptr<EventWriter>> EventWriter::create(sql::Db& db, std::int64_t runId) {
    std::unique_ptr<EventWriter> w(new EventWriter(db, runId));
    for (int k = 0; k < kEventKindCount; ++k) {
        PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db.prepare(kindTable(static_cast<EventKind>(k)).insertSql));
        w->inserts_.push_back(std::move(st));
    }
    PROFILER_ASSIGN_OR_RETURN(sql::Stmt find, db.prepare("SELECT id FROM StringIds WHERE value=?"));
    PROFILER_ASSIGN_OR_RETURN(sql::Stmt insert, db.prepare("INSERT INTO StringIds(value) VALUES(?)"));
    w->findString_ = std::make_unique<sql::Stmt>(std::move(find));
    w->insertString_ = std::make_unique<sql::Stmt>(std::move(insert));
    return w;
}

Result<std::int64_t> EventWriter::stringId(std::string_view text) {
    std::string key(text);
    if (auto it = stringIds_.find(key); it != stringIds_.end()) return it->second;
    findString_->bind(1, text);
    Status s;
    std::int64_t id = 0;
    if (findString_->step(&s)) {
        id = findString_->i64(0);
        findString_->reset();
    } else {
        findString_->reset();
        PROFILER_RETURN_IF_ERROR(s);
        insertString_->bind(1, text);
        PROFILER_RETURN_IF_ERROR(insertString_->run());
        id = db_.lastInsertId();
    }
    stringIds_.emplace(std::move(key), id);
    return id;
}

Status EventWriter::add(EventKind kind, int track, std::int64_t nameId, std::int64_t start, std::int64_t end,
                        std::int64_t correlation, int iteration, int layer, int tensor, int segment,
                        std::int64_t bytes, int priority) {
    sql::Stmt& st = inserts_[static_cast<std::size_t>(kind)];
    st.bind(1, static_cast<int>(kind));
    if (nameId >= 0) st.bind(2, nameId); else st.bindNull(2);
    st.bind(3, runId_).bind(4, track).bind(5, start).bind(6, end).bind(7, correlation).bind(8, iteration);
    st.bind(9, layer).bind(10, tensor).bind(11, segment).bind(12, bytes).bind(13, priority);
    return st.run();
}

Result<std::int64_t> insertRunRow(sql::Db& db, const RunInfo& info, const std::string& source,
                                  const std::string& notes) {
    std::int64_t experimentId = -1;
    if (!info.experiment_json.empty()) {
        PROFILER_ASSIGN_OR_RETURN(sql::Stmt ins, db.prepare("INSERT OR IGNORE INTO experiments(settings_json) VALUES(?)"));
        PROFILER_RETURN_IF_ERROR(ins.bind(1, info.experiment_json).run());
        PROFILER_ASSIGN_OR_RETURN(sql::Stmt find, db.prepare("SELECT id FROM experiments WHERE settings_json=?"));
        find.bind(1, info.experiment_json);
        Status s;
        if (!find.step(&s)) return s.ok() ? db.error("experiment lookup") : s;
        experimentId = find.i64(0);
    }
    PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db.prepare(
        "INSERT INTO runs(experiment_id, label, policy, backend, segment_bytes, ranks, iterations, started_ns, source,"
        " notes) VALUES(?,?,?,?,?,?,?,?,?,?)"));
    if (experimentId >= 0) st.bind(1, experimentId); else st.bindNull(1);
    st.bind(2, info.label).bind(3, info.policy).bind(4, info.backend).bind(5, info.segment_bytes);
    st.bind(6, info.ranks).bind(7, info.iterations).bind(8, info.started_ns).bind(9, source).bind(10, notes);
    PROFILER_RETURN_IF_ERROR(st.run());
    return db.lastInsertId();
}

Status insertRanks(sql::Db& db, std::int64_t runId, const std::vector<RankExtra>& ranks) {
    PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db.prepare(
        "INSERT OR REPLACE INTO ranks(run_id, rank, hostname, clock_offset_ns, dropped) VALUES(?,?,?,?,?)"));
    PROFILER_ASSIGN_OR_RETURN(sql::Stmt metric, db.prepare(
        "INSERT OR REPLACE INTO run_metrics(run_id, rank, key, value) VALUES(?,?,?,?)"));
    for (const RankExtra& r : ranks) {
        st.bind(1, runId).bind(2, r.rank).bind(3, r.hostname).bind(4, r.clock_offset_ns);
        st.bind(5, static_cast<std::int64_t>(r.dropped));
        PROFILER_RETURN_IF_ERROR(st.run());
        for (const auto& [key, value] : r.metrics) {
            metric.bind(1, runId).bind(2, r.rank).bind(3, key).bind(4, value);
            PROFILER_RETURN_IF_ERROR(metric.run());
        }
    }
    return okStatus();
}

Status insertTracks(sql::Db& db, std::int64_t runId, const std::vector<Track>& tracks) {
    PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db.prepare(
        "INSERT OR REPLACE INTO tracks(run_id, id, rank, kind, name) VALUES(?,?,?,?,?)"));
    for (const Track& t : tracks) {
        st.bind(1, runId).bind(2, t.id).bind(3, t.rank).bind(4, trackKindName(t.kind)).bind(5, t.name);
        PROFILER_RETURN_IF_ERROR(st.run());
    }
    return okStatus();
}

Status insertTensors(sql::Db& db, std::int64_t runId, const std::vector<TensorRecord>& tensors) {
    PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db.prepare(
        "INSERT OR REPLACE INTO tensors(run_id, id, name, layer, elements) VALUES(?,?,?,?,?)"));
    for (const TensorRecord& t : tensors) {
        st.bind(1, runId).bind(2, t.id).bind(3, t.name).bind(4, t.layer).bind(5, t.elements);
        PROFILER_RETURN_IF_ERROR(st.run());
    }
    return okStatus();
}

Status insertDerived(sql::Db& db, std::int64_t runId, const std::vector<TraceEvent>& events) {
    // Segments: the communication units the run actually reduced.
    std::set<std::pair<int, int>> seen;
    PROFILER_ASSIGN_OR_RETURN(sql::Stmt seg, db.prepare(
        "INSERT OR IGNORE INTO segments(run_id, tensor, segment, bytes, priority) VALUES(?,?,?,?,?)"));
    for (const TraceEvent& e : events) {
        if (e.kind != EventKind::AllReduce || e.tensor < 0 || !seen.insert({e.tensor, e.segment}).second) continue;
        seg.bind(1, runId).bind(2, e.tensor).bind(3, e.segment).bind(4, e.bytes).bind(5, e.priority);
        PROFILER_RETURN_IF_ERROR(seg.run());
    }

    return insertSummary(db, runId, events);
}

Status insertSummary(sql::Db& db, std::int64_t runId, const std::vector<TraceEvent>& events) {
    // Per-track summary: for widths 1 µs · 4^k, the count, busy time and the longest span starting in each bucket.
    // A level is kept only where it shrinks the track at least four times; finer zooms read the events.
    // Iteration markers are left out: views draw them as bands, and as the longest span of every bucket they
    // would hide what the lane did.
    std::vector<const TraceEvent*> order;
    order.reserve(events.size());
    for (const TraceEvent& e : events)
        if (e.kind != EventKind::Iteration) order.push_back(&e);
    std::stable_sort(order.begin(), order.end(), [](const TraceEvent* a, const TraceEvent* b) {
        return a->track != b->track ? a->track < b->track : a->start < b->start;
    });
    PROFILER_ASSIGN_OR_RETURN(sql::Stmt sum, db.prepare(
        "INSERT INTO track_summary(run_id, track, level, bucket, count, busy_ns, peak_ns, peak_kind)"
        " VALUES(?,?,?,?,?,?,?,?)"));
    struct Bucket { std::int64_t index, count, busy, peak; EventKind peakKind; };
    std::size_t begin = 0;
    while (begin < order.size()) {
        std::size_t end = begin;
        while (end < order.size() && order[end]->track == order[begin]->track) ++end;
        const std::size_t n = end - begin;
        std::int64_t width = kSummaryBaseNs;
        for (int level = 0; level < kSummaryLevels; ++level, width *= 4) {
            std::vector<Bucket> buckets;
            for (std::size_t i = begin; i < end; ++i) {
                const TraceEvent& e = *order[i];
                const std::int64_t b = floorDiv(e.start, width), d = e.end - e.start;
                if (buckets.empty() || buckets.back().index != b) buckets.push_back({b, 0, 0, -1, e.kind});
                Bucket& cur = buckets.back();
                ++cur.count;
                cur.busy = addSaturating(cur.busy, d);
                if (d > cur.peak) { cur.peak = d; cur.peakKind = e.kind; }
            }
            if (buckets.size() * 4 > n) continue;
            for (const Bucket& b : buckets) {
                sum.bind(1, runId).bind(2, order[begin]->track).bind(3, level).bind(4, b.index).bind(5, b.count);
                sum.bind(6, b.busy).bind(7, b.peak).bind(8, static_cast<int>(b.peakKind));
                PROFILER_RETURN_IF_ERROR(sum.run());
            }
            if (buckets.size() <= 1) break;
        }
        begin = end;
    }
    return okStatus();
}

Result<std::int64_t> writeWholeRun(sql::Db& db, const StoredRun& run) {
    PROFILER_RETURN_IF_ERROR(validateRun(run.trace, run.info.label.empty() ? std::string("run") : run.info.label));
    sql::Transaction tx(db);
    PROFILER_RETURN_IF_ERROR(tx.begun());
    PROFILER_ASSIGN_OR_RETURN(const std::int64_t runId, insertRunRow(db, run.info, run.source, run.notes));
    PROFILER_RETURN_IF_ERROR(insertRanks(db, runId, run.ranks));
    PROFILER_RETURN_IF_ERROR(insertTracks(db, runId, run.trace.tracks));
    PROFILER_RETURN_IF_ERROR(insertTensors(db, runId, run.trace.tensors));
    PROFILER_ASSIGN_OR_RETURN(auto writer, EventWriter::create(db, runId));
    for (const TraceEvent& e : run.trace.events) {
        std::int64_t nameId = -1;
        if (!e.name.empty()) { PROFILER_ASSIGN_OR_RETURN(nameId, writer->stringId(e.name)); }
        PROFILER_RETURN_IF_ERROR(writer->add(e.kind, e.track, nameId, e.start, e.end, e.correlation, e.iteration, e.layer,
                                          e.tensor, e.segment, e.bytes, e.priority));
    }
    PROFILER_RETURN_IF_ERROR(insertDerived(db, runId, run.trace.events));
    PROFILER_RETURN_IF_ERROR(tx.commit());
    return runId;
}

Status aggregateEvents(sql::Db& db, std::int64_t runId, const EventQuery& query, std::int64_t endsAfter,
                       std::map<std::string, NameTotal>& out) {
    for (const KindTable* kt : kAllTables) {
        const bool hasKind = kt->table == kPacerTable.table;
        // The (run_id, track, start) index bounds the scan; the end and kind tests filter what it yields.
        const std::string q = std::string("SELECT s.value, count(*), sum(e.end - e.start) FROM ") + kt->table +
                              " e LEFT JOIN StringIds s ON s.id = e." + kt->nameColumn +
                              " WHERE e.run_id=?1 AND e.track=?2 AND e.start>=?3 AND e.start<?4 AND e.end>?5" +
                              (hasKind ? " AND e.kind<>5" : "") + " GROUP BY e." + kt->nameColumn;
        PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db.prepare(q));
        st.bind(1, runId).bind(2, query.track).bind(3, query.from).bind(4, query.to).bind(5, endsAfter);
        Status s;
        while (st.step(&s)) {
            NameTotal& t = out[st.text(0)];
            t.count += st.i64(1);
            t.total_ns += st.i64(2);
        }
        PROFILER_RETURN_IF_ERROR(s);
    }
    return okStatus();
}

namespace {

const char* kEventColumns =
    ", s.value, e.track, e.start, e.end, e.correlationId, e.iteration, e.layer, e.tensor, e.segment, e.bytes, e.priority";

// A row selected as kind (or 0), then kEventColumns.
Result<TraceEvent> eventFromRow(sql::Db& db, const sql::Stmt& st, bool hasKind, EventKind fixedKind) {
    TraceEvent e;
    const int kind = st.i32(0);
    if (hasKind && (kind < 0 || kind >= kEventKindCount))
        return errorStatus(db.path() + ": event with unknown kind " + std::to_string(kind));
    e.kind = hasKind ? static_cast<EventKind>(kind) : fixedKind;
    e.name = st.text(1);
    e.track = st.i32(2);
    e.start = st.i64(3);
    e.end = st.i64(4);
    e.correlation = st.i64(5);
    e.iteration = st.i32(6);
    e.layer = st.i32(7);
    e.tensor = st.i32(8);
    e.segment = st.i32(9);
    e.bytes = st.i64(10);
    e.priority = st.i32(11);
    return e;
}

}  // namespace

Status readEvents(sql::Db& db, std::int64_t runId, const EventQuery& query, std::vector<TraceEvent>& out) {
    for (std::size_t k = 0; k < std::size(kAllTables); ++k) {
        const KindTable& kt = *kAllTables[k];
        const bool hasKind = kt.table == kPacerTable.table;
        if (query.iterations_only && !hasKind) continue;
        // Spelled out so that SQLite picks the (run_id, track, start) index, or the partial index of markers.
        std::string where = " WHERE e.run_id=?1";
        if (query.track >= 0) where += " AND e.track=?2 AND e.start>=?3 AND e.start<?4";
        if (query.iterations_only) where += " AND e.kind=5";
        const std::string q = std::string("SELECT ") + (hasKind ? "e.kind" : "0") + kEventColumns + " FROM " + kt.table +
                              " e LEFT JOIN StringIds s ON s.id = e." + kt.nameColumn + where;
        PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db.prepare(q));
        st.bind(1, runId);
        if (query.track >= 0) st.bind(2, query.track).bind(3, query.from).bind(4, query.to);
        Status s;
        while (st.step(&s)) {
            PROFILER_ASSIGN_OR_RETURN(TraceEvent e, eventFromRow(db, st, hasKind, kFixedKind[k]));
            out.push_back(std::move(e));
        }
        PROFILER_RETURN_IF_ERROR(s);
    }
    return okStatus();
}

Result<unsigned> eventTablesOf(sql::Db& db, std::int64_t runId) {
    unsigned tables = 0;
    for (std::size_t k = 0; k < std::size(kAllTables); ++k) {
        PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db.prepare(std::string("SELECT 1 FROM ") + kAllTables[k]->table +
                                                           " WHERE run_id=?1 LIMIT 1"));
        st.bind(1, runId);
        Status s;
        if (st.step(&s)) tables |= 1u << k;
        PROFILER_RETURN_IF_ERROR(s);
    }
    return tables;
}

Status appendTrackScans(sql::Db& db, std::int64_t runId, int track, unsigned tables, std::vector<TrackScan>& out) {
    for (std::size_t k = 0; k < std::size(kAllTables); ++k) {
        if (!(tables & (1u << k))) continue;
        const KindTable& kt = *kAllTables[k];
        const bool hasKind = kt.table == kPacerTable.table;
        const std::string q = std::string("SELECT ") + (hasKind ? "kind" : "0") + ", " + kt.nameColumn +
                              ", start, end, iteration FROM " + kt.table + " WHERE run_id=?1 AND track=?2" +
                              (hasKind ? " AND kind<>5" : "") + " ORDER BY start";
        PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db.prepare(q));
        st.bind(1, runId).bind(2, track);
        out.push_back({std::move(st), hasKind, kFixedKind[k]});
    }
    return okStatus();
}

Result<std::optional<std::pair<std::int64_t, std::int64_t>>> startRange(sql::Db& db, std::int64_t runId,
                                                                        const std::vector<int>& tracks, unsigned tables) {
    std::optional<std::pair<std::int64_t, std::int64_t>> range;
    for (std::size_t k = 0; k < std::size(kAllTables); ++k) {
        if (!(tables & (1u << k))) continue;
        // MIN and MAX apart: SQLite answers each alone from the index, both together by a scan.
        const std::string from = std::string(" FROM ") + kAllTables[k]->table + " WHERE run_id=?1 AND track=?2";
        PROFILER_ASSIGN_OR_RETURN(sql::Stmt first, db.prepare("SELECT MIN(start)" + from));
        PROFILER_ASSIGN_OR_RETURN(sql::Stmt last, db.prepare("SELECT MAX(start)" + from));
        for (const int track : tracks) {
            Status s;
            first.bind(1, runId).bind(2, track);
            last.bind(1, runId).bind(2, track);
            if (first.step(&s) && !first.isNull(0) && last.step(&s)) {
                if (!range) range = std::make_pair(first.i64(0), last.i64(0));
                range = std::make_pair(std::min(range->first, first.i64(0)), std::max(range->second, last.i64(0)));
            }
            PROFILER_RETURN_IF_ERROR(s);
            first.reset();
            last.reset();
        }
    }
    return range;
}

Result<std::vector<std::int64_t>> nameIdsContaining(sql::Db& db, const std::string& text) {
    // LIKE is case-blind for ASCII; its wildcards in the text are escaped so that they match themselves.
    std::string pattern = "%";
    for (const char c : text) {
        if (c == '%' || c == '_' || c == '\\') pattern += '\\';
        pattern += c;
    }
    pattern += '%';
    PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db.prepare("SELECT id FROM StringIds WHERE value LIKE ?1 ESCAPE '\\'"));
    st.bind(1, pattern);
    std::vector<std::int64_t> ids;
    Status s;
    while (st.step(&s)) ids.push_back(st.i64(0));
    PROFILER_RETURN_IF_ERROR(s);
    return ids;
}

Result<TrackSearch> TrackSearch::prepare(sql::Db& db, std::int64_t runId, int track, unsigned tables,
                                         const std::vector<std::int64_t>& names, bool forward) {
    std::string in;
    for (const std::int64_t id : names) in += (in.empty() ? "" : ",") + std::to_string(id);
    TrackSearch search(&db, runId, track);
    for (std::size_t k = 0; k < std::size(kAllTables); ++k) {
        if (!(tables & (1u << k))) continue;
        const KindTable& kt = *kAllTables[k];
        const bool hasKind = kt.table == kPacerTable.table;
        const std::string q = std::string("SELECT ") + (hasKind ? "e.kind" : "0") + kEventColumns + " FROM " + kt.table +
                              " e LEFT JOIN StringIds s ON s.id = e." + kt.nameColumn +
                              " WHERE e.run_id=?1 AND e.track=?2 AND " +
                              (forward ? "e.start>?3 AND e.start<?4" : "e.start<?3 AND e.start>?4") + " AND e." +
                              kt.nameColumn + " IN (" + in + ")" + (hasKind ? " AND e.kind<>5" : "") +
                              " ORDER BY e.start " + (forward ? "ASC" : "DESC") + " LIMIT 1";
        PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db.prepare(q));
        search.scans_.push_back({std::move(st), hasKind, kFixedKind[k]});
    }
    return search;
}

Result<std::optional<TraceEvent>> TrackSearch::find(std::int64_t after, std::int64_t bound) {
    std::optional<TraceEvent> best;
    for (TrackScan& scan : scans_) {
        // Each table narrows the bound for the next: a later table only looks for a nearer match.
        scan.stmt.reset();
        scan.stmt.bind(1, run_id_).bind(2, track_).bind(3, after).bind(4, best ? best->start : bound);
        Status s;
        if (scan.stmt.step(&s)) {
            PROFILER_ASSIGN_OR_RETURN(TraceEvent e, eventFromRow(*db_, scan.stmt, scan.has_kind, scan.fixed_kind));
            best = std::move(e);
        }
        PROFILER_RETURN_IF_ERROR(s);
    }
    return best;
}

Result<StoredRun> readRunHeader(sql::Db& db, std::int64_t runId) {
    Status s;
    if (runId == 0) {
        PROFILER_ASSIGN_OR_RETURN(sql::Stmt latest, db.prepare("SELECT MAX(id) FROM runs"));
        if (!latest.step(&s) || latest.isNull(0))
            return s.ok() ? errorStatus(db.path() + ": the project holds no runs") : s;
        runId = latest.i64(0);
    }
    StoredRun out;
    {
        PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db.prepare(
            "SELECT r.label, r.policy, r.backend, r.segment_bytes, r.ranks, r.iterations, r.started_ns, r.source,"
            " r.notes, e.settings_json FROM runs r LEFT JOIN experiments e ON e.id = r.experiment_id WHERE r.id=?"));
        st.bind(1, runId);
        if (!st.step(&s)) return s.ok() ? errorStatus(db.path() + ": no run with id " + std::to_string(runId)) : s;
        out.info.label = st.text(0);
        out.info.policy = st.text(1);
        out.info.backend = st.text(2);
        out.info.segment_bytes = st.i64(3);
        out.info.ranks = st.i32(4);
        out.info.iterations = st.i32(5);
        out.info.started_ns = st.i64(6);
        out.source = st.text(7);
        out.notes = st.text(8);
        out.info.experiment_json = st.text(9);
    }
    RunTrace& t = out.trace;
    t.run_id = runId;
    t.label = out.info.label;
    t.policy = out.info.policy;
    t.segment_bytes = out.info.segment_bytes;
    t.ranks = out.info.ranks;
    t.iterations = out.info.iterations;
    {
        PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db.prepare(
            "SELECT rank, hostname, clock_offset_ns, dropped FROM ranks WHERE run_id=? ORDER BY rank"));
        st.bind(1, runId);
        while (st.step(&s)) {
            RankExtra r;
            r.rank = st.i32(0);
            r.hostname = st.text(1);
            r.clock_offset_ns = st.i64(2);
            r.dropped = static_cast<std::uint64_t>(st.i64(3));
            out.ranks.push_back(std::move(r));
        }
        PROFILER_RETURN_IF_ERROR(s);
        PROFILER_ASSIGN_OR_RETURN(sql::Stmt m, db.prepare("SELECT rank, key, value FROM run_metrics WHERE run_id=?"));
        m.bind(1, runId);
        while (m.step(&s)) {
            const int rank = m.i32(0);
            auto it = std::find_if(out.ranks.begin(), out.ranks.end(), [&](const RankExtra& r) { return r.rank == rank; });
            if (it == out.ranks.end()) {
                out.ranks.push_back(RankExtra{rank, {}, 0, 0, {}});
                it = out.ranks.end() - 1;
            }
            it->metrics[m.text(1)] = m.f64(2);
        }
        PROFILER_RETURN_IF_ERROR(s);
    }
    {
        PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db.prepare("SELECT id, rank, kind, name FROM tracks WHERE run_id=? ORDER BY id"));
        st.bind(1, runId);
        while (st.step(&s)) {
            Track tr;
            tr.id = st.i32(0);
            tr.rank = st.i32(1);
            tr.kind = trackKindFromName(st.text(2)).value_or(TrackKind::Other);
            tr.name = st.text(3);
            t.tracks.push_back(std::move(tr));
        }
        PROFILER_RETURN_IF_ERROR(s);
    }
    {
        PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db.prepare(
            "SELECT id, name, layer, elements FROM tensors WHERE run_id=? ORDER BY id"));
        st.bind(1, runId);
        while (st.step(&s)) t.tensors.push_back(TensorRecord{st.i32(0), st.text(1), st.i32(2), st.i64(3)});
        PROFILER_RETURN_IF_ERROR(s);
    }
    return out;
}

Result<StoredRun> readWholeRun(sql::Db& db, std::int64_t runId) {
    PROFILER_ASSIGN_OR_RETURN(StoredRun out, readRunHeader(db, runId));
    RunTrace& t = out.trace;
    PROFILER_RETURN_IF_ERROR(readEvents(db, t.run_id, EventQuery{}, t.events));
    std::stable_sort(t.events.begin(), t.events.end(), [](const TraceEvent& a, const TraceEvent& b) {
        return a.track != b.track ? a.track < b.track : a.start < b.start;
    });
    return out;
}

}  // namespace pacer::profiler::store
