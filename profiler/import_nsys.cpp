#include "profiler/import_nsys.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "profiler/clock.h"
#include "profiler/project.h"
#include "profiler/schema.h"
#include "profiler/sqlite_db.h"

namespace pacer::profiler {

namespace {

constexpr std::int64_t kMaxTime = std::int64_t{1} << 62;

struct Source {
    const char* table;
    EventKind kind;
    bool gpu;            // on a (device, stream) track; else on a CPU thread track
    const char* nameSql; // how to get the name
};

// nsys keeps the process id in the upper bits of globalTid / globalPid.
std::int64_t pidOf(std::int64_t globalId) { return (globalId >> 24) & 0xFFFFFF; }

bool hasColumn(sql::Db& db, const std::string& table, const std::string& column) {
    auto st = db.prepare("SELECT 1 FROM pragma_table_info('" + table + "') WHERE name=?");
    if (!st) return false;
    st->bind(1, column);
    Status s;
    return st->step(&s);
}

}  // namespace

Result<RunTrace> parseNsysSqlite(const std::string& file, RunInfo* info) {
    {
        std::ifstream in(file, std::ios::binary);
        if (!in) return errorStatus(file + ": cannot open");
        char header[16] = {};
        in.read(header, sizeof header);
        if (in.gcount() < 16 || std::string_view(header, 16) != std::string_view("SQLite format 3\0", 16))
            return errorStatus(file + ": not an SQLite file (expected an Nsight Systems SQLite export)");
    }
    PROFILER_ASSIGN_OR_RETURN(auto db, sql::Db::open(file, sql::Db::Mode::ReadOnly));
    {
        auto st = db->prepare("PRAGMA application_id");
        if (!st) return errorStatus(file + ": not a readable SQLite database (" + st.message() + ")");
        Status s;
        if (st->step(&s) && st->i32(0) == kPacerApplicationId)
            return errorStatus(file + ": is a Pacer project, not an Nsight Systems export");
    }
    if (!db->hasTable("StringIds")) return errorStatus(file + ": missing table StringIds (not an Nsight Systems export)");

    const Source sources[] = {
        {"CUPTI_ACTIVITY_KIND_KERNEL", EventKind::Kernel, true, "(SELECT value FROM StringIds WHERE id=t.shortName)"},
        {"CUPTI_ACTIVITY_KIND_MEMCPY", EventKind::Memcpy, true, "'memcpy kind ' || t.copyKind"},
        {"CUPTI_ACTIVITY_KIND_MEMSET", EventKind::Memset, true, "'memset'"},
        {"CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", EventKind::Sync, true, "'sync type ' || t.syncType"},
        {"CUPTI_ACTIVITY_KIND_RUNTIME", EventKind::Runtime, false, "(SELECT value FROM StringIds WHERE id=t.nameId)"},
        {"NVTX_EVENTS", EventKind::Marker, false,
         "COALESCE(t.text, (SELECT value FROM StringIds WHERE id=t.textId))"},
    };
    bool any = false;
    for (const Source& src : sources) any |= db->hasTable(src.table);
    if (!any) return errorStatus(file + ": missing tables: no CUPTI_ACTIVITY_KIND_* or NVTX_EVENTS table to import");

    struct Row { EventKind kind; std::int64_t start, end, corr, bytes, pid, a, b; std::string name; bool gpu; };
    std::vector<Row> rows;
    std::set<std::int64_t> pids;
    std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> pidOfStream;  // (device, stream) -> pid
    for (const Source& src : sources) {
        const std::string table = src.table;
        if (!db->hasTable(table)) continue;
        const bool hasBytes = hasColumn(*db, table, "bytes");
        const bool hasCorr = hasColumn(*db, table, "correlationId");
        std::string cols;
        if (src.gpu) {
            const std::string pidCol = hasColumn(*db, table, "globalPid") ? "t.globalPid" : "0";
            cols = "t.deviceId, t.streamId, " + pidCol;
        } else {
            cols = "t.globalTid, 0, t.globalTid";
        }
        const std::string q = "SELECT t.start, t.end, " + std::string(hasCorr ? "t.correlationId" : "0") + ", " +
                              (hasBytes ? "t.bytes" : "0") + ", " + cols + ", " + src.nameSql + " FROM " + table +
                              " t" + (src.kind == EventKind::Marker ? " WHERE t.end IS NOT NULL" : "");
        auto st = db->prepare(q);
        if (!st) return errorStatus(file + ": table " + table + " lacks the expected columns (" + st.message() + ")");
        Status s;
        while (st->step(&s)) {
            Row r{src.kind, st->i64(0), st->i64(1), st->i64(2), st->i64(3), 0, st->i64(4), st->i64(5), st->text(7), src.gpu};
            if (r.start < 0 || r.start > kMaxTime || r.end > kMaxTime || r.end < r.start)
                return errorStatus(file + ": " + table + ": row with start " + std::to_string(r.start) + ", end " +
                                   std::to_string(r.end) + " (out of range or reversed)");
            if (r.bytes < 0) return errorStatus(file + ": " + table + ": negative byte count");
            r.pid = pidOf(st->i64(6));
            if (r.gpu && r.pid == 0) r.pid = -1;  // unknown: resolved below from the stream's other rows
            if (r.pid >= 0) pids.insert(r.pid);
            if (r.gpu && r.pid >= 0) pidOfStream[{r.a, r.b}] = r.pid;
            rows.push_back(std::move(r));
        }
        PROFILER_RETURN_IF_ERROR(s);
    }
    if (rows.empty()) return errorStatus(file + ": the export holds no activity rows");
    if (pids.empty()) pids.insert(0);

    // One rank per process, in pid order; one track per GPU stream and per CPU thread.
    std::map<std::int64_t, int> rankOfPid;
    for (std::int64_t p : pids) rankOfPid.emplace(p, static_cast<int>(rankOfPid.size()));
    RunTrace trace;
    std::map<std::tuple<bool, std::int64_t, std::int64_t>, int> trackIds;
    for (Row& r : rows) {
        if (r.pid < 0) r.pid = pidOfStream.count({r.a, r.b}) ? pidOfStream[{r.a, r.b}] : *pids.begin();
        const int rank = rankOfPid.count(r.pid) ? rankOfPid[r.pid] : 0;
        const auto key = std::make_tuple(r.gpu, r.a, r.b);
        auto it = trackIds.find(key);
        if (it == trackIds.end()) {
            Track t;
            t.id = static_cast<int>(trace.tracks.size());
            t.rank = rank;
            t.kind = r.gpu ? TrackKind::CudaStream : TrackKind::Compute;
            t.name = r.gpu ? "rank " + std::to_string(rank) + " device " + std::to_string(r.a) + " stream " + std::to_string(r.b)
                           : "rank " + std::to_string(rank) + " thread " + std::to_string(r.a & 0xFFFFFF);
            it = trackIds.emplace(key, t.id).first;
            trace.tracks.push_back(std::move(t));
        }
        TraceEvent e;
        e.start = r.start;
        e.end = r.end;
        e.kind = r.kind;
        e.track = it->second;
        e.bytes = r.bytes;
        e.correlation = r.corr;
        e.name = std::move(r.name);
        trace.events.push_back(std::move(e));
    }
    RunInfo ri;
    ri.label = std::filesystem::path(file).stem().string();
    ri.policy = "imported";
    ri.backend = "nsys";
    ri.ranks = static_cast<int>(rankOfPid.size());
    ri.started_ns = wallClockNs();
    trace.label = ri.label;
    trace.policy = ri.policy;
    trace.ranks = ri.ranks;
    if (info) *info = ri;
    return trace;
}

Result<std::int64_t> importNsysSqlite(const std::string& file, const std::string& projectPath) {
    RunInfo info;
    PROFILER_ASSIGN_OR_RETURN(RunTrace trace, parseNsysSqlite(file, &info));
    return writeRun(projectPath, trace, info, "nsys");
}

}  // namespace pacer::profiler
