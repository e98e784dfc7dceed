#include "profiler/schema.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "profiler/store.h"
#include "profiler/trace_model.h"

namespace pacer::profiler {

namespace {

// Columns every event table shares, after its own leading ones: what a TraceEvent needs to come back intact.
#define PACER_EVENT_COLS                                                                                    \
    "run_id INTEGER NOT NULL, track INTEGER NOT NULL, start INTEGER NOT NULL, end INTEGER NOT NULL, "       \
    "correlationId INTEGER NOT NULL DEFAULT 0, iteration INTEGER NOT NULL DEFAULT -1, "                     \
    "layer INTEGER NOT NULL DEFAULT -1, tensor INTEGER NOT NULL DEFAULT -1, segment INTEGER NOT NULL DEFAULT -1, " \
    "bytes INTEGER NOT NULL DEFAULT 0, priority INTEGER NOT NULL DEFAULT -1"

// Version 1: everything but runs.notes and the per-track summary.
constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE PacerMeta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL UNIQUE);
CREATE TABLE experiments(id INTEGER PRIMARY KEY, settings_json TEXT NOT NULL UNIQUE);
CREATE TABLE runs(id INTEGER PRIMARY KEY, experiment_id INTEGER, label TEXT NOT NULL,
    policy TEXT NOT NULL DEFAULT '', backend TEXT NOT NULL DEFAULT '', segment_bytes INTEGER NOT NULL DEFAULT 0,
    ranks INTEGER NOT NULL DEFAULT 0, iterations INTEGER NOT NULL DEFAULT 0, started_ns INTEGER NOT NULL DEFAULT 0,
    source TEXT NOT NULL DEFAULT 'capture');
CREATE TABLE run_metrics(run_id INTEGER NOT NULL, rank INTEGER NOT NULL, key TEXT NOT NULL, value REAL NOT NULL,
    PRIMARY KEY(run_id, rank, key));
CREATE TABLE ranks(run_id INTEGER NOT NULL, rank INTEGER NOT NULL, hostname TEXT NOT NULL DEFAULT '',
    clock_offset_ns INTEGER NOT NULL DEFAULT 0, dropped INTEGER NOT NULL DEFAULT 0, PRIMARY KEY(run_id, rank));
CREATE TABLE tracks(run_id INTEGER NOT NULL, id INTEGER NOT NULL, rank INTEGER NOT NULL, kind TEXT NOT NULL,
    name TEXT NOT NULL, PRIMARY KEY(run_id, id));
CREATE TABLE tensors(run_id INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT NOT NULL, layer INTEGER NOT NULL,
    elements INTEGER NOT NULL, PRIMARY KEY(run_id, id));
CREATE TABLE segments(run_id INTEGER NOT NULL, tensor INTEGER NOT NULL, segment INTEGER NOT NULL,
    bytes INTEGER NOT NULL, priority INTEGER NOT NULL, PRIMARY KEY(run_id, tensor, segment));
CREATE TABLE schedules(id INTEGER PRIMARY KEY, run_id INTEGER, name TEXT NOT NULL, policy TEXT NOT NULL,
    segment_bytes INTEGER NOT NULL DEFAULT 0, settings_json TEXT NOT NULL DEFAULT '{}',
    created_ns INTEGER NOT NULL DEFAULT 0);
CREATE TABLE PACER_EVENTS(kind INTEGER NOT NULL, nameId INTEGER, )sql" PACER_EVENT_COLS R"sql();
CREATE INDEX PACER_EVENTS_track_start ON PACER_EVENTS(run_id, track, start);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(shortName INTEGER, demangledName INTEGER, deviceId INTEGER,
    streamId INTEGER, globalPid INTEGER, )sql" PACER_EVENT_COLS R"sql();
CREATE INDEX KERNEL_track_start ON CUPTI_ACTIVITY_KIND_KERNEL(run_id, track, start);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(nameId INTEGER, copyKind INTEGER, deviceId INTEGER, streamId INTEGER,
    )sql" PACER_EVENT_COLS R"sql();
CREATE INDEX MEMCPY_track_start ON CUPTI_ACTIVITY_KIND_MEMCPY(run_id, track, start);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET(nameId INTEGER, value INTEGER, deviceId INTEGER, streamId INTEGER,
    )sql" PACER_EVENT_COLS R"sql();
CREATE INDEX MEMSET_track_start ON CUPTI_ACTIVITY_KIND_MEMSET(run_id, track, start);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(nameId INTEGER, eventClass INTEGER, globalTid INTEGER,
    returnValue INTEGER, )sql" PACER_EVENT_COLS R"sql();
CREATE INDEX RUNTIME_track_start ON CUPTI_ACTIVITY_KIND_RUNTIME(run_id, track, start);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION(nameId INTEGER, syncType INTEGER, deviceId INTEGER,
    streamId INTEGER, )sql" PACER_EVENT_COLS R"sql();
CREATE INDEX SYNC_track_start ON CUPTI_ACTIVITY_KIND_SYNCHRONIZATION(run_id, track, start);
CREATE TABLE NVTX_EVENTS(textId INTEGER, text TEXT, eventType INTEGER, globalTid INTEGER, )sql" PACER_EVENT_COLS R"sql();
CREATE INDEX NVTX_track_start ON NVTX_EVENTS(run_id, track, start);
)sql";

// Version 2: run notes (annotateRun) and the zoomed-out summary (peak duration per bucket, several widths).
constexpr const char* kMigrateV1toV2 = R"sql(
ALTER TABLE runs ADD COLUMN notes TEXT NOT NULL DEFAULT '';
CREATE TABLE track_summary(run_id INTEGER NOT NULL, track INTEGER NOT NULL, level INTEGER NOT NULL,
    bucket INTEGER NOT NULL, count INTEGER NOT NULL, busy_ns INTEGER NOT NULL, peak_ns INTEGER NOT NULL,
    peak_kind INTEGER NOT NULL, PRIMARY KEY(run_id, track, level, bucket)) WITHOUT ROWID;
)sql";

// Version 3: the iteration markers by time, so a large run's outline (the ruler's iteration bands) is read
// without scanning its events. Partial: it holds only those few rows (kind 5 is EventKind::Iteration).
constexpr const char* kMigrateV2toV3 = R"sql(
CREATE INDEX PACER_EVENTS_iterations ON PACER_EVENTS(run_id, start) WHERE kind = 5;
)sql";

// Version 4: what the compare view has pinned, in pin order, and the row differences are taken against.
constexpr const char* kMigrateV3toV4 = R"sql(
CREATE TABLE compare_pins(position INTEGER PRIMARY KEY, kind TEXT NOT NULL, label TEXT NOT NULL, run_id INTEGER,
    settings_json TEXT NOT NULL DEFAULT '{}', baseline INTEGER NOT NULL DEFAULT 0);
)sql";

static_assert(static_cast<int>(EventKind::Iteration) == 5, "kMigrateV2toV3's partial index names kind 5");

#undef PACER_EVENT_COLS

Result<int> pragmaInt(sql::Db& db, const char* pragma) {
    PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db.prepare(std::string("PRAGMA ") + pragma));
    Status s;
    if (!st.step(&s)) return s.ok() ? db.error(pragma) : s;
    return st.i32(0);
}

Status setVersion(sql::Db& db, int version) {
    return db.exec("PRAGMA application_id=" + std::to_string(kPacerApplicationId) +
                   "; PRAGMA user_version=" + std::to_string(version));
}

// The first 16 bytes of every SQLite 3 database.
enum class FileState { Missing, Empty, Sqlite, NotSqlite, Unreadable };
FileState probeFile(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return FileState::Missing;
    std::ifstream in(path, std::ios::binary);
    if (!in) return FileState::Unreadable;
    char header[16] = {};
    in.read(header, sizeof header);
    if (in.gcount() == 0) return FileState::Empty;
    if (in.gcount() < 16) return FileState::NotSqlite;
    return std::string_view(header, 16) == std::string_view("SQLite format 3\0", 16) ? FileState::Sqlite
                                                                                      : FileState::NotSqlite;
}

// Schema 2 summarised iteration markers with the events; runs that have markers get their summary again.
Status rebuildSummariesWithoutMarkers(sql::Db& db) {
    std::vector<std::int64_t> runs;
    {
        PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db.prepare("SELECT DISTINCT run_id FROM PACER_EVENTS WHERE kind=5"));
        Status s;
        while (st.step(&s)) runs.push_back(st.i64(0));
        PROFILER_RETURN_IF_ERROR(s);
    }
    for (const std::int64_t runId : runs) {
        PROFILER_ASSIGN_OR_RETURN(store::StoredRun run, store::readWholeRun(db, runId));
        PROFILER_ASSIGN_OR_RETURN(sql::Stmt del, db.prepare("DELETE FROM track_summary WHERE run_id=?"));
        del.bind(1, runId);
        PROFILER_RETURN_IF_ERROR(del.run());
        PROFILER_RETURN_IF_ERROR(store::insertSummary(db, runId, run.trace.events));
    }
    return okStatus();
}

Status migrate(sql::Db& db, int from) {
    sql::Transaction tx(db);
    PROFILER_RETURN_IF_ERROR(tx.begun());
    if (from < 2) PROFILER_RETURN_IF_ERROR(db.exec(kMigrateV1toV2).withContext("migrating schema 1 to 2: "));
    if (from < 3) {
        PROFILER_RETURN_IF_ERROR(db.exec(kMigrateV2toV3).withContext("migrating schema 2 to 3: "));
        PROFILER_RETURN_IF_ERROR(rebuildSummariesWithoutMarkers(db).withContext("migrating schema 2 to 3: "));
    }
    if (from < 4) PROFILER_RETURN_IF_ERROR(db.exec(kMigrateV3toV4).withContext("migrating schema 3 to 4: "));
    PROFILER_RETURN_IF_ERROR(setVersion(db, kSchemaVersion));
    return tx.commit();
}

}  // namespace

Status createSchema(sql::Db& db, int version) {
    if (version < 1 || version > kSchemaVersion) return errorStatus("unknown schema version " + std::to_string(version));
    sql::Transaction tx(db);
    PROFILER_RETURN_IF_ERROR(tx.begun());
    PROFILER_RETURN_IF_ERROR(db.exec(kSchemaV1));
    if (version >= 2) PROFILER_RETURN_IF_ERROR(db.exec(kMigrateV1toV2));
    if (version >= 3) PROFILER_RETURN_IF_ERROR(db.exec(kMigrateV2toV3));
    if (version >= 4) PROFILER_RETURN_IF_ERROR(db.exec(kMigrateV3toV4));
    PROFILER_RETURN_IF_ERROR(db.exec("INSERT INTO PacerMeta(key, value) VALUES('application', 'pacer')"));
    PROFILER_RETURN_IF_ERROR(setVersion(db, version));
    return tx.commit();
}

Result<std::unique_ptr<sql::Db>> openStore(const std::string& path, OpenFor intent) {
    const FileState state = probeFile(path);
    switch (state) {
        case FileState::Missing:
            if (intent != OpenFor::CreateOrWrite) return errorStatus(path + ": no such file");
            break;
        case FileState::Empty:
            if (intent != OpenFor::CreateOrWrite) return errorStatus(path + ": empty file, not a Pacer project");
            break;
        case FileState::NotSqlite:
            return errorStatus(path + ": not an SQLite file (not a Pacer project)");
        case FileState::Unreadable:
            return errorStatus(path + ": cannot read file");
        case FileState::Sqlite:
            break;
    }
    const bool fresh = state == FileState::Missing || state == FileState::Empty;
    PROFILER_ASSIGN_OR_RETURN(auto db, sql::Db::open(path, fresh ? sql::Db::Mode::Create : sql::Db::Mode::ReadWrite));
    if (fresh) {
        PROFILER_RETURN_IF_ERROR(db->exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL"));
        PROFILER_RETURN_IF_ERROR(createSchema(*db, kSchemaVersion));
        return db;
    }
    // Checks before any write: a foreign or newer file must come out of this untouched.
    auto appIdRead = pragmaInt(*db, "application_id");
    if (!appIdRead) return errorStatus(path + ": not a readable SQLite database (" + appIdRead.message() + ")");
    const int appId = *appIdRead;
    if (appId != kPacerApplicationId)
        return errorStatus(path + ": an SQLite file but not a Pacer project (application id " + std::to_string(appId) +
                           ")");
    PROFILER_ASSIGN_OR_RETURN(const int version, pragmaInt(*db, "user_version"));
    if (version > kSchemaVersion)
        return errorStatus(path + ": written by a newer Pacer (schema " + std::to_string(version) +
                           ", this build reads up to " + std::to_string(kSchemaVersion) + "); refusing to open it");
    if (version < 1) return errorStatus(path + ": Pacer project with an invalid schema version " + std::to_string(version));
    PROFILER_RETURN_IF_ERROR(db->exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL"));
    if (version < kSchemaVersion) PROFILER_RETURN_IF_ERROR(migrate(*db, version));
    return db;
}

}  // namespace pacer::profiler
