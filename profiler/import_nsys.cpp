#include "profiler/import_nsys.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "profiler/chrome_raw_event.h"
#include "profiler/clock.h"
#include "profiler/kineto_ddp.h"
#include "profiler/string_pool.h"
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

// One process's rows as the DDP extraction reads Kineto's events (profiler/kineto_ddp.h): kernels ("kernel") and
// runtime calls ("cuda_runtime") with their correlation ids, NVTX ranges as host ops.
struct ProcessEvents {
    StringPool names;  // the texts its events' views point into
    std::vector<RawEvent> events;
    bool trained = false;  // an AccumulateGrad range: a training process, not a launcher
    int ncclRank = INT32_MAX, ncclRanks = 0;  // from NCCL's communicator ranges, when their payloads say
    std::optional<std::int64_t> ncclComm;     // that communicator's id: the same in every rank of one job
};

// PyTorch's emit_nvtx names a range "<op>, seq = N, op_id = M, sizes = [[64, 3], [64]], input_op_ids = [...]"
// (torch/csrc/profiler/util.cpp, getNvtxStr): the op's name, and the first input's shape when record_shapes=True.
void readEmitNvtxName(const std::string& text, RawEvent& e, StringPool& names) {
    std::size_t cut = text.size();
    for (const char* field : {", seq = ", ", op_id = ", ", sizes = "}) cut = std::min(cut, text.find(field));
    e.name = names.intern(std::string_view(text).substr(0, cut));
    const std::size_t sizes = text.find(", sizes = [[", cut);
    if (sizes == std::string::npos) return;
    std::int64_t value = 0;
    bool inNumber = false, ok = true;
    std::vector<std::int64_t> dims;
    for (std::size_t i = sizes + 12; i < text.size(); ++i) {
        const char c = text[i];
        if (c >= '0' && c <= '9') {
            if (value > (INT64_MAX - 9) / 10) return;  // no shape has a dimension this large
            value = value * 10 + (c - '0');
            inNumber = true;
        } else if (c == ',' || c == ']') {
            if (inNumber) dims.push_back(value);
            else if (c == ',') ok = false;
            value = 0;
            inNumber = false;
            if (c == ']') {
                e.hasInputDims = ok;
                if (ok) e.firstInputDims = std::move(dims);
                return;
            }
        } else if (c != ' ') {
            return;  // not a shape (a symbolic size, a nested list): leave it unknown
        }
    }
}

// User ranges around each training step, "step 3", "iteration 3" or "iter 3", read as Kineto's ProfilerStep#3.
void readStepName(RawEvent& e, StringPool& names) {
    for (const char* word : {"step ", "iteration ", "iter "}) {
        const std::size_t n = std::char_traits<char>::length(word);
        if (e.name.size() <= n || e.name.size() > n + 9) continue;
        std::string lower(e.name.substr(0, n));
        std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
        if (lower != word) continue;
        if (std::all_of(e.name.begin() + static_cast<std::ptrdiff_t>(n), e.name.end(), [](char c) { return c >= '0' && c <= '9'; }))
            e.name = names.intern("ProfilerStep#" + std::string(e.name.substr(n)));
        return;
    }
}

// What NCCL's NVTX payloads say, by the entry names of its schemas (NCCL's nvtx_payload_schemas.h, seen registered in
// real exports' NVTX_PAYLOAD_SCHEMA_ENTRIES), whichever column of the export holds them.
struct NcclPayload {
    std::optional<std::int64_t> comm, ranks, rank, bytes;
};
constexpr const char* kCommEntry = "NCCL communicator ID";
constexpr const char* kRanksEntry = "No. of ranks";
constexpr const char* kRankEntry = "Rank";
constexpr const char* kBytesEntry = "Message size [bytes]";

// An integer under `key` in an NVTX payload rendered as JSON (NCCL's schema entry names, nvtx_payload_schemas.h),
// at its top or a few levels down; deeper nesting is no payload NCCL writes (and would only cost stack).
std::optional<std::int64_t> payloadInteger(const nlohmann::json& j, const std::string& key, int depth = 0) {
    if (depth > 4) return std::nullopt;
    if (j.is_object()) {
        if (auto it = j.find(key); it != j.end() && it->is_number_integer()) return it->get<std::int64_t>();
        for (const auto& [k, v] : j.items())
            if (auto found = payloadInteger(v, key, depth + 1)) return found;
    } else if (j.is_array()) {
        for (const auto& v : j)
            if (auto found = payloadInteger(v, key, depth + 1)) return found;
    }
    return std::nullopt;
}

NcclPayload payloadFromJson(const std::string& text) {
    if (text.empty() || text.front() != '{') return {};
    const auto j = nlohmann::json::parse(text, nullptr, false);
    return {payloadInteger(j, kCommEntry), payloadInteger(j, kRanksEntry), payloadInteger(j, kRankEntry),
            payloadInteger(j, kBytesEntry)};
}

// Binary payloads (`nsys export --include-blobs=true`): NVTX_EVENTS.binaryData holds a little-endian header of four
// uint64 (domain id, schema id, payload size, payload offset from the blob's start, at least 32) and the payload,
// whose entries NVTX_PAYLOAD_SCHEMA_ENTRIES places (type, offset) per (domain, schema). Only the entries NcclPayload
// names are kept.
struct SchemaEntry {
    std::string name;
    int type = 0;
    std::uint64_t offset = 0;
};
using PayloadSchemas = std::map<std::pair<std::uint64_t, std::uint64_t>, std::vector<SchemaEntry>>;

std::uint64_t littleEndian(std::string_view bytes, std::size_t at, std::size_t width) {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < width; ++i) v |= std::uint64_t{static_cast<unsigned char>(bytes[at + i])} << (8 * i);
    return v;
}

// An integer entry of NVTX's predefined types (nvToolsExtPayload.h: NVTX_PAYLOAD_ENTRY_TYPE_*), on LP64.
std::optional<std::int64_t> readEntry(std::string_view payload, const SchemaEntry& entry) {
    static constexpr std::pair<std::size_t, bool> kTypes[] = {
        // width, signed; by type number 0..22
        {0, false}, {1, true}, {1, false}, {2, true},  {2, false}, {4, true},  {4, false}, {8, true},
        {8, false}, {8, true}, {8, false}, {1, true},  {1, false}, {2, true},  {2, false}, {4, true},
        {4, false}, {8, true}, {8, false}, {0, false}, {0, false}, {0, false}, {8, false}};
    if (entry.type <= 0 || entry.type >= static_cast<int>(std::size(kTypes))) return std::nullopt;
    const auto [width, isSigned] = kTypes[entry.type];
    if (width == 0 || entry.offset > payload.size() || payload.size() - entry.offset < width) return std::nullopt;
    std::uint64_t v = littleEndian(payload, entry.offset, width);
    if (isSigned && width < 8 && (v >> (8 * width - 1)) & 1) v |= ~std::uint64_t{0} << (8 * width);
    if (!isSigned && v > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
    return static_cast<std::int64_t>(v);
}

NcclPayload payloadFromBlob(std::string_view blob, const PayloadSchemas& schemas) {
    constexpr std::size_t kHeader = 32;
    if (blob.size() < kHeader) return {};
    auto schema = schemas.find({littleEndian(blob, 0, 8), littleEndian(blob, 8, 8)});
    const std::uint64_t size = littleEndian(blob, 16, 8), offset = littleEndian(blob, 24, 8);
    if (schema == schemas.end() || offset < kHeader || offset > blob.size() || size > blob.size() - offset) return {};
    const std::string_view payload = blob.substr(offset, size);
    NcclPayload out;
    for (const SchemaEntry& entry : schema->second) {
        using Field = std::optional<std::int64_t> NcclPayload::*;
        for (const auto& [name, field] : {std::pair<const char*, Field>{kCommEntry, &NcclPayload::comm},
                                          {kRanksEntry, &NcclPayload::ranks},
                                          {kRankEntry, &NcclPayload::rank},
                                          {kBytesEntry, &NcclPayload::bytes}})
            if (entry.name == name) out.*field = readEntry(payload, entry);
    }
    return out;
}

PayloadSchemas readPayloadSchemas(sql::Db& db) {
    PayloadSchemas schemas;
    if (!db.hasTable("NVTX_PAYLOAD_SCHEMA_ENTRIES")) return schemas;
    // The first entry's offset may be left NULL (it is 0); a later one without an offset is not placed, so skipped.
    auto st = db.prepare(
        "SELECT DISTINCT domainId, schemaId, name, type, COALESCE(offset, CASE WHEN idx = 0 THEN 0 END) "
        "FROM NVTX_PAYLOAD_SCHEMA_ENTRIES WHERE name IN (?, ?, ?, ?)");
    if (!st) return schemas;  // a layout of the table we do not know: the payloads stay unread
    st->bind(1, kCommEntry).bind(2, kRanksEntry).bind(3, kRankEntry).bind(4, kBytesEntry);
    Status s;
    while (st->step(&s))
        if (!st->isNull(4) && st->i64(4) >= 0)
            schemas[{static_cast<std::uint64_t>(st->i64(0)), static_cast<std::uint64_t>(st->i64(1))}].push_back(
                SchemaEntry{st->text(2), st->i32(3), static_cast<std::uint64_t>(st->i64(4))});
    return schemas;
}

void addReplayEvent(ProcessEvents& p, EventKind kind, std::int64_t start, std::int64_t end, std::int64_t corr,
                    const std::string& name, const NcclPayload& payload) {
    RawEvent e;
    e.ph = 'X';
    e.ts = start;
    e.dur = end - start;
    e.hasDur = true;
    e.correlation = corr;
    if (kind == EventKind::Kernel) {
        e.cat = "kernel";
        e.name = p.names.intern(name);
    } else if (kind == EventKind::Runtime) {
        if (corr == 0) return;  // only launches matter, to match kernels
        e.cat = "cuda_runtime";
        e.name = p.names.intern(name);
    } else {
        e.cat = "cpu_op";
        readEmitNvtxName(name, e, p.names);
        readStepName(e, p.names);
        p.trained |= e.name == "torch::autograd::AccumulateGrad";
        if (payload.bytes && *payload.bytes >= 0 && e.name == "ncclAllReduce") {
            e.msgElements = *payload.bytes;  // NCCL counts the message in bytes
            e.dtype = "Byte";
        }
        const auto& ranks = payload.ranks;
        const auto& rank = payload.rank;
        // The largest communicator is the job's (DDP's default group); its rank orders the processes.
        if (ranks && rank && *ranks > p.ncclRanks && *ranks < 1'000'000 && *rank >= 0 && *rank < *ranks) {
            p.ncclRanks = static_cast<int>(*ranks);
            p.ncclRank = static_cast<int>(*rank);
            p.ncclComm = payload.comm;
        }
    }
    p.events.push_back(std::move(e));
}

// One export as read, before ranks are given out across exports.
struct ExportRows {
    struct Row {
        EventKind kind;
        std::int64_t start, end, corr, bytes, pid, a, b;
        std::string name;
        bool gpu;
    };
    std::string file;
    std::vector<Row> rows;
    std::set<std::int64_t> pids;
    std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> pidOfStream;  // (device, stream) -> pid
    std::map<std::int64_t, ProcessEvents> processes;                            // pid -> what DDP extraction reads
    std::optional<std::int64_t> sessionStartUtcNs;  // TARGET_INFO_SESSION_START_TIME: times count from there
    std::int64_t first = kMaxTime, last = 0;        // the rows' time span
};

Result<ExportRows> readExport(const std::string& file) {
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

    ExportRows out;
    out.file = file;
    auto& rows = out.rows;
    auto& pids = out.pids;
    auto& pidOfStream = out.pidOfStream;
    auto& replayEvents = out.processes;
    using Row = ExportRows::Row;
    const PayloadSchemas schemas = readPayloadSchemas(*db);
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
        // NVTX payloads: NCCL's ranges carry one (message size, ranks), rendered as JSON or kept as a binary blob.
        std::string payload = "NULL", blob = "NULL";
        if (src.kind == EventKind::Marker && hasColumn(*db, table, "jsonText"))
            payload = hasColumn(*db, table, "jsonTextId")
                          ? "COALESCE(t.jsonText, (SELECT value FROM StringIds WHERE id=t.jsonTextId))" : "t.jsonText";
        if (src.kind == EventKind::Marker && !schemas.empty() && hasColumn(*db, table, "binaryData"))
            blob = "t.binaryData";
        const std::string q = "SELECT t.start, t.end, " + std::string(hasCorr ? "t.correlationId" : "0") + ", " +
                              (hasBytes ? "t.bytes" : "0") + ", " + cols + ", " + src.nameSql + ", " + payload + ", " +
                              blob + " FROM " + table + " t" +
                              (src.kind == EventKind::Marker ? " WHERE t.end IS NOT NULL" : "");
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
            if (r.pid >= 0 && (r.kind == EventKind::Kernel || r.kind == EventKind::Runtime || r.kind == EventKind::Marker))
                addReplayEvent(replayEvents[r.pid], r.kind, r.start, r.end, r.corr, r.name,
                               st->isNull(9) ? payloadFromJson(st->text(8)) : payloadFromBlob(st->blob(9), schemas));
            out.first = std::min(out.first, r.start);
            out.last = std::max(out.last, r.end);
            rows.push_back(std::move(r));
        }
        PROFILER_RETURN_IF_ERROR(s);
    }
    if (rows.empty()) return errorStatus(file + ": the export holds no activity rows");
    if (pids.empty()) pids.insert(0);
    if (db->hasTable("TARGET_INFO_SESSION_START_TIME")) {
        auto st = db->prepare("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME WHERE utcEpochNs > 0 LIMIT 1");
        Status s;
        if (st && st->step(&s)) out.sessionStartUtcNs = st->i64(0);
    }
    return out;
}

// Exports of one job made by separate nsys sessions (one per node or per rank) count their times from their own
// session's start: shift each to the earliest session's clock by its recorded start in UTC. Ranks of one job run at
// the same time, so exports whose spans do not overlap then are of different jobs.
Status alignSessions(std::vector<ExportRows>& exports) {
    if (exports.size() < 2) return okStatus();
    std::int64_t earliest = INT64_MAX;
    for (const ExportRows& e : exports) {
        if (!e.sessionStartUtcNs) return okStatus();  // clocks unknown: taken as they are
        earliest = std::min(earliest, *e.sessionStartUtcNs);
    }
    for (ExportRows& e : exports) {
        const std::int64_t shift = *e.sessionStartUtcNs - earliest;
        if (shift > kMaxTime - e.last)
            return errorStatus(e.file + ": its session started " + std::to_string(shift / 1'000'000'000) + " s after " +
                               exports.front().file + "'s: exports of different jobs");
        for (ExportRows::Row& r : e.rows) r.start += shift, r.end += shift;
        for (auto& [pid, p] : e.processes)
            for (RawEvent& ev : p.events) ev.ts += shift;
        e.first += shift;
        e.last += shift;
    }
    for (const ExportRows& e : exports)
        if (e.first > exports.front().last || e.last < exports.front().first)
            return errorStatus(e.file + ": recorded at another time than " + exports.front().file +
                               " (their activity does not overlap): exports of different jobs");
    return okStatus();
}

// Several exports must be ranks of one job: the same NCCL communicator (DDP's default group, the largest one each
// process joined) and no rank twice. Exports whose NCCL ranges say nothing are taken in the order given.
Status checkOneJob(const std::vector<ExportRows>& exports) {
    if (exports.size() < 2) return okStatus();
    const ExportRows* jobOf = nullptr;  // the first export whose NCCL ranges name the job
    const ProcessEvents* job = nullptr;
    std::map<int, const ExportRows*> rankSeen;
    for (const ExportRows& e : exports) {
        std::set<int> ranksHere;
        for (const auto& [pid, p] : e.processes) {
            if (!p.trained || p.ncclRanks == 0) continue;
            if (!job) job = &p, jobOf = &e;
            if (p.ncclComm && job->ncclComm && *p.ncclComm != *job->ncclComm)
                return errorStatus(e.file + ": NCCL communicator " + std::to_string(*p.ncclComm) + ", not " +
                                   jobOf->file + "'s " + std::to_string(*job->ncclComm) +
                                   ": exports of different jobs");
            if (p.ncclRanks != job->ncclRanks)
                return errorStatus(e.file + ": a job of " + std::to_string(p.ncclRanks) + " ranks, " + jobOf->file +
                                   "'s has " + std::to_string(job->ncclRanks) + ": exports of different jobs");
            ranksHere.insert(p.ncclRank);
        }
        for (int r : ranksHere)
            if (auto [it, fresh] = rankSeen.emplace(r, &e); !fresh)
                return errorStatus(e.file + ": a second export of rank " + std::to_string(r) + " (also in " +
                                   it->second->file + ")");
    }
    return okStatus();
}

}  // namespace

Result<RunTrace> parseNsysSqlite(const std::vector<std::string>& files, RunInfo* info) {
    if (files.empty()) return errorStatus("import: no files given");
    std::vector<ExportRows> exports;
    for (std::size_t i = 0; i < files.size(); ++i) {
        for (std::size_t j = 0; j < i; ++j) {
            std::error_code ec;
            if (std::filesystem::equivalent(files[i], files[j], ec))
                return errorStatus(files[i] + ": given twice (" + files[j] + ")");
        }
        PROFILER_ASSIGN_OR_RETURN(ExportRows e, readExport(files[i]));
        exports.push_back(std::move(e));
    }
    PROFILER_RETURN_IF_ERROR(alignSessions(exports));
    PROFILER_RETURN_IF_ERROR(checkOneJob(exports));

    // One rank per process, across exports. The processes that trained (their emit_nvtx ranges name gradients) come
    // first, in NCCL's rank order where its ranges said it (else in the order given), so that their ranks are the
    // job's; the rest (a launcher) follow. A process is (export, pid): pids of different hosts may be equal.
    using Process = std::pair<std::size_t, std::int64_t>;
    auto processOf = [&](const Process& p) -> const ProcessEvents* {
        const auto& ps = exports[p.first].processes;
        auto it = ps.find(p.second);
        return it == ps.end() ? nullptr : &it->second;
    };
    std::vector<Process> order;
    for (std::size_t x = 0; x < exports.size(); ++x)
        for (std::int64_t pid : exports[x].pids)
            if (const ProcessEvents* p = processOf({x, pid}); p && p->trained) order.emplace_back(x, pid);
    std::stable_sort(order.begin(), order.end(), [&](const Process& a, const Process& b) {
        return processOf(a)->ncclRank < processOf(b)->ncclRank;
    });
    const int trainingRanks = static_cast<int>(order.size());
    for (std::size_t x = 0; x < exports.size(); ++x)
        for (std::int64_t pid : exports[x].pids)
            if (std::find(order.begin(), order.end(), Process{x, pid}) == order.end()) order.emplace_back(x, pid);
    std::map<Process, int> rankOf;
    for (const Process& p : order) rankOf.emplace(p, static_cast<int>(rankOf.size()));

    RunTrace trace;
    std::map<std::tuple<std::size_t, bool, std::int64_t, std::int64_t>, int> trackIds;
    for (std::size_t x = 0; x < exports.size(); ++x) {
        ExportRows& ex = exports[x];
        for (ExportRows::Row& r : ex.rows) {
            if (r.pid < 0) r.pid = ex.pidOfStream.count({r.a, r.b}) ? ex.pidOfStream[{r.a, r.b}] : *ex.pids.begin();
            const int rank = rankOf.count({x, r.pid}) ? rankOf[{x, r.pid}] : 0;
            const auto key = std::make_tuple(x, r.gpu, r.a, r.b);
            auto it = trackIds.find(key);
            if (it == trackIds.end()) {
                Track t;
                t.id = static_cast<int>(trace.tracks.size());
                t.rank = rank;
                t.kind = r.gpu ? TrackKind::CudaStream : TrackKind::Compute;
                t.name = r.gpu ? "rank " + std::to_string(rank) + " device " + std::to_string(r.a) + " stream " +
                                     std::to_string(r.b)
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
        ex.rows = {};  // their names moved out; the memory is the trace's now
    }
    RunInfo ri;
    ri.label = std::filesystem::path(files.front()).stem().string();
    ri.policy = "imported";
    ri.backend = "nsys";
    ri.ranks = static_cast<int>(rankOf.size());
    ri.started_ns = wallClockNs();

    // The replay input of a DDP job, from the training processes alone; NCCL's ranges may say the job was larger
    // than the processes these exports hold (one export of one node or rank stands for a symmetric job).
    std::vector<KinetoRank> ranks;
    int worldSize = trainingRanks;
    for (int k = 0; k < trainingRanks; ++k) {
        const ProcessEvents& p = *processOf(order[static_cast<std::size_t>(k)]);
        ranks.push_back(KinetoRank{k, &p.events});
        worldSize = std::max(worldSize, p.ncclRanks);
    }
    if (trainingRanks > 0) ri.ranks = trainingRanks;
    attachDdpReplayInput(extractKinetoDdp(ranks, static_cast<int>(trace.tracks.size()), DdpTraceSource::NsysNvtx), "nsys",
                         worldSize, std::string(), trace, ri);
    trace.label = ri.label;
    trace.policy = ri.policy;
    trace.ranks = ri.ranks;
    trace.iterations = ri.iterations;
    if (info) *info = ri;
    return trace;
}

Result<std::int64_t> importNsysSqlite(const std::vector<std::string>& files, const std::string& projectPath) {
    RunInfo info;
    PROFILER_ASSIGN_OR_RETURN(RunTrace trace, parseNsysSqlite(files, &info));
    return writeRun(projectPath, trace, info, "nsys");
}

}  // namespace pacer::profiler
