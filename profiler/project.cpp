#include "profiler/project.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "profiler/clock.h"
#include "profiler/schema.h"
#include "profiler/sqlite_db.h"
#include "profiler/store.h"

namespace pacer::profiler {

namespace {

// Opens (creating if missing) and writes one run; a project this call created is removed again on failure, so
// a failed import leaves no half-made file behind.
Result<std::int64_t> writeStoredRun(const std::string& projectPath, const store::StoredRun& run) {
    std::error_code ec;
    const bool existed = std::filesystem::exists(projectPath, ec) && std::filesystem::file_size(projectPath, ec) > 0;
    Result<std::int64_t> result = [&]() -> Result<std::int64_t> {
        PROFILER_ASSIGN_OR_RETURN(auto db, openStore(projectPath, OpenFor::CreateOrWrite));
        return store::writeWholeRun(*db, run);
    }();
    if (!result && !existed) {
        for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(projectPath + suffix, ec);
    }
    return result;
}

RunSummary summarize(const store::StoredRun& run) {
    RunSummary s;
    s.run_id = run.trace.run_id;
    s.label = run.info.label;
    s.policy = run.info.policy;
    s.backend = run.info.backend;
    s.ranks = run.info.ranks;
    s.iterations = run.info.iterations;
    s.segment_bytes = run.info.segment_bytes;
    s.started_ns = run.info.started_ns;
    s.source = run.source;
    s.notes = run.notes;
    s.experiment_json = run.info.experiment_json;
    std::map<std::string, std::vector<double>> values;
    for (const store::RankExtra& r : run.ranks) {
        s.dropped += r.dropped;
        for (const auto& [k, v] : r.metrics) values[k].push_back(v);
    }
    for (const auto& [k, vs] : values) {
        // The first value captured by copy: clang before 16 cannot capture a structured binding (scripts/fuzz).
        const bool same = std::all_of(vs.begin(), vs.end(), [first = vs.front()](double v) { return v == first; });
        double sum = 0;
        for (double v : vs) sum += v;
        s.metrics[k] = same ? vs.front() : sum / static_cast<double>(vs.size());
    }
    return s;
}

Result<std::vector<std::int64_t>> runIds(sql::Db& db) {
    PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db.prepare("SELECT id FROM runs ORDER BY id"));
    std::vector<std::int64_t> ids;
    Status s;
    while (st.step(&s)) ids.push_back(st.i64(0));
    PROFILER_RETURN_IF_ERROR(s);
    return ids;
}

Status requireRun(sql::Db& db, std::int64_t runId) {
    PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db.prepare("SELECT 1 FROM runs WHERE id=?"));
    st.bind(1, runId);
    Status s;
    if (!st.step(&s)) return s.ok() ? errorStatus(db.path() + ": no run with id " + std::to_string(runId)) : s;
    return okStatus();
}

Result<std::int64_t> resolveRun(sql::Db& db, std::int64_t runId) {
    if (runId != 0) {
        PROFILER_RETURN_IF_ERROR(requireRun(db, runId));
        return runId;
    }
    PROFILER_ASSIGN_OR_RETURN(auto ids, runIds(db));
    if (ids.empty()) return errorStatus(db.path() + ": the project holds no runs");
    return ids.back();
}

// The run key a rank file carries (RunInfo::run_key), empty for files written before there was one.
Result<std::string> rankFileRunKey(sql::Db& db) {
    PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db.prepare("SELECT value FROM PacerMeta WHERE key='run_key'"));
    Status s;
    std::string key = st.step(&s) ? st.text(0) : std::string();
    PROFILER_RETURN_IF_ERROR(s);
    return key;
}

// Rank files of one capture carry one run key and the same resolved experiment; equal policy and rank count
// alone would let two runs of a sweep merge into one meaningless run.
Status requireOneRun(const std::vector<store::StoredRun>& parts, const std::vector<std::string>& keys,
                     const std::vector<std::string>& files) {
    for (std::size_t i = 1; i < parts.size(); ++i) {
        const std::string which = files[i] + " and " + files[0];
        if (keys[i] != keys[0])
            return errorStatus("merge: " + which + " belong to different runs (run key '" + keys[i] + "' and '" +
                               keys[0] + "')");
        const RunInfo &a = parts[i].info, &b = parts[0].info;
        if (a.experiment_json != b.experiment_json || a.backend != b.backend || a.segment_bytes != b.segment_bytes)
            return errorStatus("merge: " + which + " belong to different runs (their experiments differ)");
    }
    return okStatus();
}

}  // namespace

Status checkProject(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return errorStatus(path + ": no such file");
    if (std::filesystem::is_directory(path, ec)) return errorStatus(path + ": is a directory, not a Pacer project");
    {
        std::ifstream in(path, std::ios::binary);
        char header[16] = {};
        in.read(header, sizeof header);
        if (in.gcount() < 16 || std::string_view(header, 16) != std::string_view("SQLite format 3\0", 16))
            return errorStatus(path + ": not an SQLite file (not a Pacer project)");
    }
    PROFILER_ASSIGN_OR_RETURN(auto db, sql::Db::open(path, sql::Db::Mode::ReadOnly));
    int appId = 0, version = 0;
    for (auto [pragma, out] : {std::pair{"application_id", &appId}, std::pair{"user_version", &version}}) {
        auto st = db->prepare(std::string("PRAGMA ") + pragma);
        if (!st) return errorStatus(path + ": not a readable SQLite database (" + st.message() + ")");
        Status s;
        if (!st->step(&s)) return s.ok() ? errorStatus(path + ": cannot read " + pragma) : s;
        *out = st->i32(0);
    }
    if (appId != kPacerApplicationId) return errorStatus(path + ": an SQLite file but not a Pacer project");
    if (version > kSchemaVersion)
        return errorStatus(path + ": written by a newer Pacer (schema " + std::to_string(version) +
                           ", this build reads up to " + std::to_string(kSchemaVersion) + ")");
    if (version < 1) return errorStatus(path + ": invalid schema version " + std::to_string(version));
    return okStatus();
}

Result<std::int64_t> mergeRankFiles(const std::vector<std::string>& rankFiles, const std::string& projectPath) {
    if (rankFiles.empty()) return errorStatus("merge: no rank files given");
    std::vector<store::StoredRun> parts;
    std::vector<std::string> keys;
    for (const std::string& file : rankFiles) {
        PROFILER_RETURN_IF_ERROR(checkProject(file));
        PROFILER_ASSIGN_OR_RETURN(auto db, openStore(file, OpenFor::Read));
        PROFILER_ASSIGN_OR_RETURN(auto ids, runIds(*db));
        if (ids.size() != 1)
            return errorStatus(file + ": a rank file holds exactly one run, this one holds " + std::to_string(ids.size()));
        PROFILER_ASSIGN_OR_RETURN(store::StoredRun part, store::readWholeRun(*db, ids.front()));
        if (part.ranks.size() != 1)
            return errorStatus(file + ": a rank file holds exactly one rank, this one holds " +
                               std::to_string(part.ranks.size()));
        PROFILER_RETURN_IF_ERROR(store::validateRun(part.trace, file));
        PROFILER_ASSIGN_OR_RETURN(std::string key, rankFileRunKey(*db));
        parts.push_back(std::move(part));
        keys.push_back(std::move(key));
    }
    PROFILER_RETURN_IF_ERROR(requireOneRun(parts, keys, rankFiles));
    std::sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.ranks[0].rank < b.ranks[0].rank; });
    std::set<int> seen;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const int rank = parts[i].ranks[0].rank;
        if (!seen.insert(rank).second) return errorStatus("merge: two rank files for rank " + std::to_string(rank));
        if (parts[i].info.policy != parts[0].info.policy || parts[i].info.ranks != parts[0].info.ranks)
            return errorStatus("merge: rank " + std::to_string(rank) + " belongs to another run (policy '" +
                               parts[i].info.policy + "', " + std::to_string(parts[i].info.ranks) +
                               " ranks; rank " + std::to_string(parts[0].ranks[0].rank) + " says '" +
                               parts[0].info.policy + "', " + std::to_string(parts[0].info.ranks) + ")");
    }
    if (parts[0].info.ranks > 0 && static_cast<int>(parts.size()) != parts[0].info.ranks)
        return errorStatus("merge: the run has " + std::to_string(parts[0].info.ranks) + " ranks but " +
                           std::to_string(parts.size()) + " rank files were given");

    store::StoredRun merged;
    merged.info = parts[0].info;
    merged.info.ranks = static_cast<int>(parts.size());
    merged.source = "capture";
    std::set<int> tensorIds;
    for (store::StoredRun& part : parts) {
        // Track ids are unique per rank file; in the project they are renumbered in rank order.
        std::map<int, int> trackMap;
        for (Track t : part.trace.tracks) {
            const int newId = static_cast<int>(merged.trace.tracks.size());
            trackMap[t.id] = newId;
            t.id = newId;
            t.rank = part.ranks[0].rank;
            merged.trace.tracks.push_back(std::move(t));
        }
        const std::int64_t offset = part.ranks[0].clock_offset_ns;
        for (TraceEvent& e : part.trace.events) {
            e.track = trackMap.at(e.track);
            e.start += offset;
            e.end += offset;
            merged.trace.events.push_back(std::move(e));
        }
        for (TensorRecord& t : part.trace.tensors)
            if (tensorIds.insert(t.id).second) merged.trace.tensors.push_back(std::move(t));
        merged.ranks.push_back(part.ranks[0]);
        merged.info.iterations = std::max(merged.info.iterations, part.info.iterations);
    }
    return writeStoredRun(projectPath, merged);
}

Result<std::int64_t> writeRun(const std::string& projectPath, const RunTrace& trace, const RunInfo& info,
                              const std::string& source) {
    store::StoredRun run;
    run.trace = trace;
    run.info = info;
    if (run.info.label.empty()) run.info.label = trace.label;
    if (run.info.policy.empty()) run.info.policy = trace.policy;
    if (run.info.segment_bytes == 0) run.info.segment_bytes = trace.segment_bytes;
    if (run.info.ranks == 0) run.info.ranks = trace.ranks;
    if (run.info.iterations == 0) run.info.iterations = trace.iterations;
    if (run.info.started_ns == 0) run.info.started_ns = wallClockNs();
    run.source = source;
    std::set<int> ranks;
    for (const Track& t : trace.tracks) ranks.insert(t.rank);
    for (int r : ranks) run.ranks.push_back(store::RankExtra{r, {}, 0, 0, {}});
    if (run.info.ranks == 0) run.info.ranks = static_cast<int>(ranks.size());
    return writeStoredRun(projectPath, run);
}

Result<std::vector<RunSummary>> listRuns(const std::string& projectPath) {
    PROFILER_RETURN_IF_ERROR(checkProject(projectPath));
    PROFILER_ASSIGN_OR_RETURN(auto db, openStore(projectPath, OpenFor::Read));
    PROFILER_ASSIGN_OR_RETURN(auto ids, runIds(*db));
    std::vector<RunSummary> out;
    for (std::int64_t id : ids) {
        PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db->prepare(
            "SELECT r.label, r.policy, r.backend, r.segment_bytes, r.ranks, r.iterations, r.started_ns, r.source,"
            " r.notes, e.settings_json FROM runs r LEFT JOIN experiments e ON e.id = r.experiment_id WHERE r.id=?"));
        st.bind(1, id);
        Status s;
        if (!st.step(&s)) return s.ok() ? db->error("list runs") : s;
        store::StoredRun run;
        run.trace.run_id = id;
        run.info = RunInfo{st.text(0), st.text(1), st.text(9), st.i64(3), st.i32(4), st.i32(5), st.text(2), st.i64(6)};
        run.source = st.text(7);
        run.notes = st.text(8);
        PROFILER_ASSIGN_OR_RETURN(sql::Stmt r, db->prepare("SELECT rank, dropped FROM ranks WHERE run_id=?"));
        r.bind(1, id);
        while (r.step(&s)) run.ranks.push_back(store::RankExtra{r.i32(0), {}, 0, static_cast<std::uint64_t>(r.i64(1)), {}});
        PROFILER_RETURN_IF_ERROR(s);
        PROFILER_ASSIGN_OR_RETURN(sql::Stmt m, db->prepare("SELECT rank, key, value FROM run_metrics WHERE run_id=?"));
        m.bind(1, id);
        while (m.step(&s)) {
            const int rank = m.i32(0);
            auto it = std::find_if(run.ranks.begin(), run.ranks.end(), [&](const auto& x) { return x.rank == rank; });
            if (it == run.ranks.end()) {
                run.ranks.push_back(store::RankExtra{rank, {}, 0, 0, {}});
                it = run.ranks.end() - 1;
            }
            it->metrics[m.text(1)] = m.f64(2);
        }
        PROFILER_RETURN_IF_ERROR(s);
        out.push_back(summarize(run));
    }
    return out;
}

Result<RunTrace> readRun(const std::string& projectPath, std::int64_t runId) {
    PROFILER_RETURN_IF_ERROR(checkProject(projectPath));
    PROFILER_ASSIGN_OR_RETURN(auto db, openStore(projectPath, OpenFor::Read));
    PROFILER_ASSIGN_OR_RETURN(store::StoredRun run, store::readWholeRun(*db, runId));
    return std::move(run.trace);
}

Result<RunRecord> readRunRecord(const std::string& projectPath, std::int64_t runId) {
    PROFILER_RETURN_IF_ERROR(checkProject(projectPath));
    PROFILER_ASSIGN_OR_RETURN(auto db, openStore(projectPath, OpenFor::Read));
    PROFILER_ASSIGN_OR_RETURN(store::StoredRun run, store::readWholeRun(*db, runId));
    RunRecord out;
    out.summary = summarize(run);
    out.trace = std::move(run.trace);
    return out;
}

Result<RunSummary> readRunSummary(const std::string& projectPath, std::int64_t runId) {
    PROFILER_RETURN_IF_ERROR(checkProject(projectPath));
    PROFILER_ASSIGN_OR_RETURN(auto db, openStore(projectPath, OpenFor::Read));
    PROFILER_ASSIGN_OR_RETURN(const std::int64_t id, resolveRun(*db, runId));
    PROFILER_ASSIGN_OR_RETURN(auto all, listRuns(projectPath));
    for (RunSummary& s : all)
        if (s.run_id == id) return std::move(s);
    return errorStatus(projectPath + ": no run with id " + std::to_string(id));
}

Status renameRun(const std::string& projectPath, std::int64_t runId, const std::string& label) {
    if (label.empty()) return errorStatus(projectPath + ": a run's label cannot be empty");
    PROFILER_RETURN_IF_ERROR(checkProject(projectPath));
    PROFILER_ASSIGN_OR_RETURN(auto db, openStore(projectPath, OpenFor::Write));
    PROFILER_RETURN_IF_ERROR(requireRun(*db, runId));
    PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db->prepare("UPDATE runs SET label=? WHERE id=?"));
    return st.bind(1, label).bind(2, runId).run();
}

Status annotateRun(const std::string& projectPath, std::int64_t runId, const std::string& notes) {
    PROFILER_RETURN_IF_ERROR(checkProject(projectPath));
    PROFILER_ASSIGN_OR_RETURN(auto db, openStore(projectPath, OpenFor::Write));
    PROFILER_RETURN_IF_ERROR(requireRun(*db, runId));
    PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db->prepare("UPDATE runs SET notes=? WHERE id=?"));
    return st.bind(1, notes).bind(2, runId).run();
}

Status deleteRun(const std::string& projectPath, std::int64_t runId) {
    PROFILER_RETURN_IF_ERROR(checkProject(projectPath));
    PROFILER_ASSIGN_OR_RETURN(auto db, openStore(projectPath, OpenFor::Write));
    PROFILER_RETURN_IF_ERROR(requireRun(*db, runId));
    sql::Transaction tx(*db);
    PROFILER_RETURN_IF_ERROR(tx.begun());
    for (const char* table : {"run_metrics", "ranks", "tracks", "tensors", "segments", "track_summary", "PACER_EVENTS",
                              "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
                              "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "NVTX_EVENTS"}) {
        PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db->prepare(std::string("DELETE FROM ") + table + " WHERE run_id=?"));
        PROFILER_RETURN_IF_ERROR(st.bind(1, runId).run());
    }
    PROFILER_ASSIGN_OR_RETURN(sql::Stmt sched, db->prepare("UPDATE schedules SET run_id=NULL WHERE run_id=?"));
    PROFILER_RETURN_IF_ERROR(sched.bind(1, runId).run());
    PROFILER_ASSIGN_OR_RETURN(sql::Stmt run, db->prepare("DELETE FROM runs WHERE id=?"));
    PROFILER_RETURN_IF_ERROR(run.bind(1, runId).run());
    return tx.commit();
}

Result<std::vector<SummaryBucket>> readTrackSummary(const std::string& projectPath, std::int64_t runId, int trackId,
                                                    std::int64_t t0, std::int64_t t1, int buckets) {
    if (buckets <= 0 || buckets > 1'000'000)
        return errorStatus("track summary: bucket count " + std::to_string(buckets) + " out of range 1..1000000");
    if (t1 <= t0) return errorStatus("track summary: empty time range");
    PROFILER_RETURN_IF_ERROR(checkProject(projectPath));
    PROFILER_ASSIGN_OR_RETURN(auto db, openStore(projectPath, OpenFor::Read));
    PROFILER_ASSIGN_OR_RETURN(runId, resolveRun(*db, runId));

    const std::int64_t span = t1 - t0;
    const std::int64_t width = (span + buckets - 1) / buckets;
    std::vector<SummaryBucket> out(static_cast<std::size_t>(buckets));
    for (int i = 0; i < buckets; ++i) {
        out[static_cast<std::size_t>(i)].start = t0 + width * i;
        out[static_cast<std::size_t>(i)].end = std::min(t1, t0 + width * (i + 1));
    }
    auto add = [&](std::int64_t start, std::int64_t count, std::int64_t busy, std::int64_t peak, int kind) {
        if (start < t0 || start >= t1) return;
        SummaryBucket& b = out[static_cast<std::size_t>((start - t0) / width)];
        b.count += count;
        b.busy_ns = store::addSaturating(b.busy_ns, busy);
        if (b.count == count || peak > b.peak_ns) {  // first contribution, or a longer span
            b.peak_ns = peak;
            b.peak_kind = static_cast<EventKind>(kind);
        }
    };

    // The coarsest stored level whose buckets fit inside one requested bucket.
    int level = -1;
    {
        PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db->prepare(
            "SELECT DISTINCT level FROM track_summary WHERE run_id=? AND track=? ORDER BY level"));
        st.bind(1, runId).bind(2, trackId);
        Status s;
        while (st.step(&s)) {
            const int l = st.i32(0);
            if (l < store::kSummaryLevels && (store::kSummaryBaseNs << (2 * l)) <= width) level = l;
        }
        PROFILER_RETURN_IF_ERROR(s);
    }
    Status s;
    if (level >= 0) {
        const std::int64_t w = store::kSummaryBaseNs << (2 * level);
        auto floorDiv = [](std::int64_t a, std::int64_t b) { return a / b - ((a % b != 0) && (a < 0)); };
        PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db->prepare(
            "SELECT bucket, count, busy_ns, peak_ns, peak_kind FROM track_summary"
            " WHERE run_id=? AND track=? AND level=? AND bucket>=? AND bucket<=?"));
        st.bind(1, runId).bind(2, trackId).bind(3, level).bind(4, floorDiv(t0, w)).bind(5, floorDiv(t1 - 1, w));
        while (st.step(&s)) add(std::max(t0, st.i64(0) * w), st.i64(1), st.i64(2), st.i64(3), st.i32(4));
        PROFILER_RETURN_IF_ERROR(s);
        return out;
    }
    for (EventKind kind : {EventKind::Forward, EventKind::Kernel, EventKind::Memcpy, EventKind::Memset,
                           EventKind::Runtime, EventKind::Sync, EventKind::Marker}) {
        const std::string table = store::tableForKind(kind);
        const std::string kindExpr = table == "PACER_EVENTS" ? "kind" : std::to_string(static_cast<int>(kind));
        PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db->prepare("SELECT start, end, " + kindExpr + " FROM " + table +
                                                         " WHERE run_id=? AND track=? AND start>=? AND start<?"));
        st.bind(1, runId).bind(2, trackId).bind(3, t0).bind(4, t1);
        while (st.step(&s)) add(st.i64(0), 1, st.i64(1) - st.i64(0), st.i64(1) - st.i64(0), st.i32(2));
        PROFILER_RETURN_IF_ERROR(s);
    }
    return out;
}

Result<std::int64_t> saveSchedule(const std::string& projectPath, const SavedSchedule& schedule) {
    if (schedule.name.empty()) return errorStatus(projectPath + ": a saved schedule needs a name");
    PROFILER_ASSIGN_OR_RETURN(auto db, openStore(projectPath, OpenFor::CreateOrWrite));
    if (schedule.run_id != 0) PROFILER_RETURN_IF_ERROR(requireRun(*db, schedule.run_id));
    PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db->prepare(
        "INSERT INTO schedules(run_id, name, policy, segment_bytes, settings_json, created_ns) VALUES(?,?,?,?,?,?)"));
    if (schedule.run_id != 0) st.bind(1, schedule.run_id); else st.bindNull(1);
    st.bind(2, schedule.name).bind(3, schedule.policy).bind(4, schedule.segment_bytes).bind(5, schedule.settings_json);
    st.bind(6, schedule.created_ns ? schedule.created_ns : wallClockNs());
    PROFILER_RETURN_IF_ERROR(st.run());
    return db->lastInsertId();
}

Result<std::vector<SavedSchedule>> listSchedules(const std::string& projectPath) {
    PROFILER_RETURN_IF_ERROR(checkProject(projectPath));
    PROFILER_ASSIGN_OR_RETURN(auto db, openStore(projectPath, OpenFor::Read));
    PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db->prepare(
        "SELECT id, run_id, name, policy, segment_bytes, settings_json, created_ns FROM schedules ORDER BY id"));
    std::vector<SavedSchedule> out;
    Status s;
    while (st.step(&s))
        out.push_back(SavedSchedule{st.i64(0), st.isNull(1) ? 0 : st.i64(1), st.text(2), st.text(3), st.i64(4),
                                    st.text(5), st.i64(6)});
    PROFILER_RETURN_IF_ERROR(s);
    return out;
}

Status deleteSchedule(const std::string& projectPath, std::int64_t scheduleId) {
    PROFILER_RETURN_IF_ERROR(checkProject(projectPath));
    PROFILER_ASSIGN_OR_RETURN(auto db, openStore(projectPath, OpenFor::Write));
    PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db->prepare("DELETE FROM schedules WHERE id=?"));
    PROFILER_RETURN_IF_ERROR(st.bind(1, scheduleId).run());
    if (sqlite3_changes(db->handle()) == 0)
        return errorStatus(projectPath + ": no saved schedule with id " + std::to_string(scheduleId));
    return okStatus();
}

Status saveComparePins(const std::string& projectPath, const ComparePins& pins) {
    PROFILER_RETURN_IF_ERROR(checkProject(projectPath));
    PROFILER_ASSIGN_OR_RETURN(auto db, openStore(projectPath, OpenFor::Write));
    sql::Transaction tx(*db);
    PROFILER_RETURN_IF_ERROR(tx.begun());
    PROFILER_RETURN_IF_ERROR(db->exec("DELETE FROM compare_pins"));
    PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db->prepare(
        "INSERT INTO compare_pins(position, kind, label, run_id, settings_json, baseline) VALUES(?,?,?,?,?,?)"));
    for (std::size_t i = 0; i < pins.pins.size(); ++i) {
        const ComparePin& p = pins.pins[i];
        st.reset();
        st.bind(1, static_cast<std::int64_t>(i)).bind(2, p.kind == ComparePin::Kind::Run ? "run" : "schedule");
        st.bind(3, p.label);
        if (p.run_id != 0) st.bind(4, p.run_id); else st.bindNull(4);
        st.bind(5, p.settings_json).bind(6, static_cast<std::int64_t>(static_cast<int>(i) == pins.baseline));
        PROFILER_RETURN_IF_ERROR(st.run());
    }
    return tx.commit();
}

Result<ComparePins> readComparePins(const std::string& projectPath) {
    PROFILER_RETURN_IF_ERROR(checkProject(projectPath));
    PROFILER_ASSIGN_OR_RETURN(auto db, openStore(projectPath, OpenFor::Read));
    PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db->prepare(
        "SELECT position, kind, label, run_id, settings_json, baseline FROM compare_pins ORDER BY position"));
    ComparePins out;
    Status s;
    while (st.step(&s)) {
        ComparePin p;
        const std::string kind = st.text(1);
        if (kind == "run") p.kind = ComparePin::Kind::Run;
        else if (kind == "schedule") p.kind = ComparePin::Kind::Schedule;
        else
            return errorStatus(projectPath + ": compare pin " + std::to_string(st.i64(0)) + " has an unknown kind '" +
                               kind + "'");
        p.label = st.text(2);
        p.run_id = st.isNull(3) ? 0 : st.i64(3);
        p.settings_json = st.text(4);
        if (st.i64(5) != 0) out.baseline = static_cast<int>(out.pins.size());
        out.pins.push_back(std::move(p));
    }
    PROFILER_RETURN_IF_ERROR(s);
    return out;
}

}  // namespace pacer::profiler
