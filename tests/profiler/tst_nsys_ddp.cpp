// The replay input of a DDP job from an Nsight Systems SQLite export: PyTorch's emit_nvtx ranges (AccumulateGrad
// with shapes, iteration ranges), NCCL's own ncclAllReduce ranges with their message-size payloads, CUPTI kernels
// matched to their launches. samples/traces/nsys_ddp_2rank.sql is written by hand from the documented schema (no
// public export of a DDP job was found) with the figures of tst_kineto_ddp's hand-timed job, so both importers must
// agree on them. Per-rank exports cut from it (each process's rows alone, as one nsys session per rank records them;
// still hand-written) must merge back into the same job, and exports of other jobs must be refused. The real exports
// (Nsight Systems 2022.2 and 2024.5 from pipit's test data, 2026.2 from nsys-ai's) are not DDP jobs and must import
// and say, in one line, what replay would need.
#include "profiler/import_nsys.h"
#include "profiler/trace_model.h"

#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

using namespace pacer::profiler;
using nlohmann::json;

namespace {

const std::string kTraces = std::string(PACER_SAMPLES_DIR) + "/traces/";

// Builds the export from its SQL text, then applies `edit` (SQL) to it.
bool buildExport(const std::string& sqlFile, const std::string& out, const std::string& edit = {}) {
    std::ifstream in(sqlFile);
    std::stringstream text;
    text << in.rdbuf();
    sqlite3* db = nullptr;
    if (sqlite3_open(out.c_str(), &db) != SQLITE_OK) return false;
    const bool ok = sqlite3_exec(db, text.str().c_str(), nullptr, nullptr, nullptr) == SQLITE_OK &&
                    sqlite3_exec(db, edit.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK;
    sqlite3_close(db);
    return ok;
}

json importedOf(const RunInfo& info) { return json::parse(info.experiment_json)["imported"]; }

// Drops the shapes emit_nvtx(record_shapes=True) wrote into the AccumulateGrad ranges' names.
constexpr const char* kWithoutShapes =
    "UPDATE NVTX_EVENTS SET text = substr(text, 1, instr(text, ', sizes = ') - 1) "
    "WHERE text LIKE 'torch::autograd::AccumulateGrad%'";
// One rank's export cut from the two-rank one (still hand-written, see above): only process `pid`'s rows, as an nsys
// session per rank records them (pid 4343 is rank 0, 4242 rank 1). nsys keeps the pid in bits 24..47 of the ids.
std::string onlyProcess(int pid) {
    const std::string other = " & 16777215 != " + std::to_string(pid) + ";";
    return "DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE (globalPid >> 24)" + other +
           "DELETE FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE (globalTid >> 24)" + other +
           "DELETE FROM NVTX_EVENTS WHERE (globalTid >> 24)" + other;
}
// The session's start in UTC, as nsys records it; the export's times count from there.
std::string sessionStart(std::int64_t utcNs) {
    return "CREATE TABLE TARGET_INFO_SESSION_START_TIME(utcEpochNs INTEGER, utcTime TEXT, localTime TEXT, "
           "systemClockNs INTEGER); INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (" +
           std::to_string(utcNs) + ", NULL, NULL, NULL);";
}
// Every time of an export `ns` earlier (its session started that much later).
std::string earlier(std::int64_t ns) {
    const std::string set = " SET start = start - " + std::to_string(ns) + ", end = end - " + std::to_string(ns) + ";";
    return "UPDATE CUPTI_ACTIVITY_KIND_KERNEL" + set + "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME" + set +
           "UPDATE NVTX_EVENTS" + set;
}
constexpr std::int64_t kSessionUtc = 1'764'547'200'000'000'000;  // 2025-12-01 00:00 UTC
constexpr int kRank0Pid = 4343, kRank1Pid = 4242;
QString q(const std::string& text) { return QString::fromStdString(text); }

// NCCL's payloads as `nsys export --include-blobs=true` keeps them: NVTX_EVENTS.binaryData, a header of four
// little-endian uint64 (domain, schema, payload size, payload offset) and the payload, laid out by the schema entries.
// Hand-built: the entries are those a real export registers for NCCL (Nsight Systems 2026.2, schema 3.25: GindaChen/
// nsys-ai's tests/fixtures/mfu_2gpu_before.sqlite, MIT), whose ranges carried no payload values to copy.
std::string blob(std::uint64_t schema, const std::vector<std::tuple<std::size_t, std::size_t, std::uint64_t>>& fields) {
    std::vector<unsigned char> bytes(32 + 24, 0);
    auto put = [&](std::size_t at, std::size_t width, std::uint64_t v) {
        for (std::size_t i = 0; i < width; ++i) bytes[at + i] = static_cast<unsigned char>(v >> (8 * i));
    };
    put(0, 8, 1);
    put(8, 8, schema);
    put(16, 8, 24);
    put(24, 8, 32);
    for (const auto& [offset, width, value] : fields) put(32 + offset, width, value);
    std::string hex = "X'";
    for (unsigned char b : bytes) hex += "0123456789ABCDEF"[b >> 4], hex += "0123456789ABCDEF"[b & 15];
    return hex + "'";
}
// `comm`: the communicator id the blobs carry (the JSON payloads say 77).
std::string binaryPayloads(std::uint64_t comm = 77) {
    constexpr std::uint64_t kInit = 16777218, kAllReduce = 16777223;  // NCCL's schema ids in that export
    std::string sql =
        "ALTER TABLE NVTX_EVENTS ADD COLUMN binaryData BLOB;"
        "CREATE TABLE NVTX_PAYLOAD_SCHEMA_ENTRIES(domainId INTEGER NOT NULL, schemaId INTEGER NOT NULL, idx INTEGER "
        "NOT "
        "NULL, flags INTEGER, type INTEGER NOT NULL, name TEXT, description TEXT, arrayOrUnionDetail INTEGER, offset "
        "INTEGER);"
        "INSERT INTO NVTX_PAYLOAD_SCHEMA_ENTRIES VALUES (1, 16777218, 0, NULL, 18, 'NCCL communicator ID', NULL, NULL, "
        "NULL),"
        "(1, 16777218, 1, NULL, 5, 'No. of ranks', NULL, NULL, 8), (1, 16777218, 2, NULL, 5, 'Rank', NULL, NULL, 12),"
        "(1, 16777218, 3, NULL, 5, 'CUDA device', NULL, NULL, 16),"
        "(1, 16777223, 0, NULL, 18, 'NCCL communicator ID', NULL, NULL, NULL),"
        "(1, 16777223, 1, NULL, 22, 'Message size [bytes]', NULL, NULL, 8),"
        "(1, 16777223, 2, NULL, 16777232, 'Reduction operation', NULL, NULL, 16);";
    auto move = [&](const std::string& like, const std::string& blobHex) {
        sql +=
            "UPDATE NVTX_EVENTS SET binaryData = " + blobHex + ", jsonText = NULL WHERE jsonText LIKE '" + like + "';";
    };
    for (std::uint64_t rank : {0u, 1u})
        move("%\"Rank\": " + std::to_string(rank) + ",%",
             blob(kInit, {{0, 8, comm}, {8, 4, 2}, {12, 4, rank}, {16, 4, rank}}));
    for (std::uint64_t bytes : {440u, 4400u})
        move("%\"Message size [bytes]\": " + std::to_string(bytes) + ",%",
             blob(kAllReduce, {{0, 8, comm}, {8, 8, bytes}}));
    return sql;
}

// Drops the payloads of NCCL's ncclAllReduce ranges (an NCCL that records none).
constexpr const char* kWithoutPayloads =
    "UPDATE NVTX_EVENTS SET jsonText = NULL WHERE textId = (SELECT id FROM StringIds WHERE value = 'ncclAllReduce')";

}  // namespace

class NsysDdpTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void extractsTheHandBuiltJob() {
        RunInfo info;
        auto parsed = importEdited("nsys_ddp_2rank.sql", "", &info);
        QVERIFY2(parsed.ok(), parsed.ok() ? "" : parsed.status().message().c_str());
        const RunTrace& t = parsed.value();
        QCOMPARE(info.ranks, 2);  // the two training processes; the launcher's tracks lie beyond them
        checkHandTimedJob(t, info);
        std::map<int, std::set<std::string>> threadsOfRank;
        for (const Track& track : t.tracks)
            if (!isReplayInputTrack(track)) threadsOfRank[track.rank].insert(track.name);
        QVERIFY(threadsOfRank[2].count("rank 2 thread 4000"));  // the launcher
    }

    // Two ranks recorded by two nsys sessions (one export each) merge into the run one session would have recorded:
    // ranks from NCCL's ncclCommInitRank payloads whatever the order given, clocks aligned by the sessions' starts.
    void mergesPerRankExports_data() {
        QTest::addColumn<QString>("rank0Edit");
        QTest::addColumn<QString>("rank1Edit");
        QTest::addColumn<bool>("reversed");
        QTest::newRow("rank order") << q(onlyProcess(kRank0Pid)) << q(onlyProcess(kRank1Pid)) << false;
        QTest::newRow("rank 1's export first") << q(onlyProcess(kRank0Pid)) << q(onlyProcess(kRank1Pid)) << true;
        QTest::newRow("rank 1's session started 0.75 ms later")
            << q(onlyProcess(kRank0Pid) + sessionStart(kSessionUtc))
            << q(onlyProcess(kRank1Pid) + sessionStart(kSessionUtc + 750'000) + earlier(750'000)) << true;
        QTest::newRow("binary NCCL payloads, rank 1's export first")
            << q(binaryPayloads() + onlyProcess(kRank0Pid)) << q(binaryPayloads() + onlyProcess(kRank1Pid)) << true;
    }
    void mergesPerRankExports() {
        QFETCH(QString, rank0Edit);
        QFETCH(QString, rank1Edit);
        QFETCH(bool, reversed);
        std::vector<std::string> files = {buildEdited("nsys_ddp_2rank.sql", rank0Edit.toStdString()),
                                          buildEdited("nsys_ddp_2rank.sql", rank1Edit.toStdString())};
        if (reversed) std::swap(files[0], files[1]);
        RunInfo info;
        auto parsed = parseNsysSqlite(files, &info);
        QVERIFY2(parsed.ok(), parsed.ok() ? "" : parsed.status().message().c_str());
        QCOMPARE(info.ranks, 2);
        checkHandTimedJob(parsed.value(), info);
    }

    // One rank's export alone stands for a symmetric job of the world size its NCCL ranges give.
    void oneRanksExportIsASymmetricJob() {
        RunInfo info;
        auto parsed = parseNsysSqlite({buildEdited("nsys_ddp_2rank.sql", onlyProcess(kRank1Pid))}, &info);
        QVERIFY2(parsed.ok(), parsed.ok() ? "" : parsed.status().message().c_str());
        QCOMPARE(info.ranks, 2);
        QCOMPARE(info.policy, std::string("ddp"));
        QCOMPARE(importedOf(info)["buckets"].dump(), std::string("[[2,3],[0,1]]"));
    }

    // Exports that are not ranks of one job are refused with one line naming the export, before anything is written.
    void refusesExportsOfOtherJobs_data() {
        QTest::addColumn<QString>("rank1Edit");
        QTest::addColumn<QString>("mentions");
        const std::string rank1 = onlyProcess(kRank1Pid);
        QTest::newRow("rank 0 twice") << q(onlyProcess(kRank0Pid)) << "a second export of rank 0";
        QTest::newRow("another NCCL communicator")
            << q(rank1 + "UPDATE NVTX_EVENTS SET jsonText = replace(jsonText, 'ID\": 77', 'ID\": 78');")
            << "NCCL communicator 78, not";
        QTest::newRow("another world size")
            << q(rank1 + "UPDATE NVTX_EVENTS SET jsonText = replace(jsonText, 'ranks\": 2', 'ranks\": 4');")
            << "a job of 4 ranks";
        QTest::newRow("another NCCL communicator (binary payloads)")
            << q(binaryPayloads(78) + rank1) << "NCCL communicator 78, not";
        QTest::newRow("recorded an hour later")
            << q(rank1 + sessionStart(kSessionUtc + 3'600'000'000'000)) << "another time";
    }
    void refusesExportsOfOtherJobs() {
        QFETCH(QString, rank1Edit);
        QFETCH(QString, mentions);
        const std::string rank0 = buildEdited("nsys_ddp_2rank.sql", onlyProcess(kRank0Pid) + sessionStart(kSessionUtc));
        const std::string other = buildEdited("nsys_ddp_2rank.sql", rank1Edit.toStdString());
        QVERIFY(!rank0.empty() && !other.empty());
        auto parsed = parseNsysSqlite({rank0, other}, nullptr);
        QVERIFY(!parsed.ok());
        const std::string message = parsed.status().message();
        QVERIFY2(message.find(mentions.toStdString()) != std::string::npos, message.c_str());
        QVERIFY2(message.rfind(other, 0) == 0, message.c_str());  // names the export refused
        QVERIFY(message.find('\n') == std::string::npos);
    }

    // Two real exports (Nsight Systems 2026.2, two GPUs each) of jobs recorded two days apart: each imports with its
    // two processes, together they are refused as different jobs by their sessions' start times.
    void refusesRealExportsOfTwoJobs() {
        const std::string a = buildEdited("nsys_real_h100_infer_a_2026.sql", "");
        const std::string b = buildEdited("nsys_real_h100_infer_b_2026.sql", "");
        QVERIFY(!a.empty() && !b.empty());
        for (const std::string& one : {a, b}) {
            RunInfo info;
            auto parsed = parseNsysSqlite({one}, &info);
            QVERIFY2(parsed.ok(), parsed.ok() ? "" : parsed.status().message().c_str());
            QCOMPARE(info.ranks, 2);
        }
        auto both = parseNsysSqlite({a, b}, nullptr);
        QVERIFY(!both.ok());
        QVERIFY2(both.status().message().rfind(a + ": recorded at another time than " + b, 0) == 0 ||
                     both.status().message().rfind(b + ": recorded at another time than " + a, 0) == 0,
                 both.status().message().c_str());
    }

    void refusesTheSameExportTwice() {
        const std::string rank0 = buildEdited("nsys_ddp_2rank.sql", onlyProcess(kRank0Pid));
        auto parsed = parseNsysSqlite({rank0, rank0}, nullptr);
        QVERIFY(!parsed.ok());
        QVERIFY2(parsed.status().message().find("given twice") != std::string::npos, parsed.status().message().c_str());
    }

    // Without shapes, NCCL's payloads size the buckets and each bucket's bytes are shared by its gradients.
    // ... and their communicator ranges order the ranks, whether the export renders the payloads as JSON or keeps them
    // as binary blobs.
    void sizesBucketsFromNcclPayloads_data() {
        QTest::addColumn<QString>("payloads");
        QTest::newRow("JSON (jsonText)") << QString();
        QTest::newRow("binary (binaryData, --include-blobs=true)") << q(binaryPayloads());
    }
    void sizesBucketsFromNcclPayloads() {
        QFETCH(QString, payloads);
        RunInfo info;
        auto parsed =
            importEdited("nsys_ddp_2rank.sql", std::string(kWithoutShapes) + ";" + payloads.toStdString(), &info);
        QVERIFY2(parsed.ok(), parsed.ok() ? "" : parsed.status().message().c_str());
        QCOMPARE(importedOf(info)["exact_sizes"].get<bool>(), false);
        const auto& tensors = parsed.value().tensors;
        QCOMPARE(tensors.size(), std::size_t{4});
        QCOMPARE(tensors[2].elements + tensors[3].elements, std::int64_t{110});
        QCOMPARE(tensors[0].elements + tensors[1].elements, std::int64_t{1100});
        std::set<std::string> rank0Threads;
        for (const Track& track : parsed.value().tracks)
            if (track.rank == 0 && !isReplayInputTrack(track)) rank0Threads.insert(track.name);
        QVERIFY(rank0Threads.count("rank 0 thread 4343"));  // NCCL's rank 0, though its pid is the larger
    }

    // Shapes alone size them too (an NCCL without payloads).
    void sizesBucketsFromShapes() {
        RunInfo info;
        auto parsed = importEdited("nsys_ddp_2rank.sql", kWithoutPayloads, &info);
        QVERIFY(parsed.ok());
        QCOMPARE(importedOf(info)["exact_sizes"].get<bool>(), true);
        QCOMPARE(parsed.value().tensors[1].elements, std::int64_t{1000});
    }

    // Whatever an export lacks, it imports all the same, and its run says in one line how to record what replay needs.
    void saysWhatIsMissing_data() {
        QTest::addColumn<QString>("sql");
        QTest::addColumn<QString>("edit");
        QTest::addColumn<int>("kernels");
        QTest::addColumn<QString>("mentions");
        const QString ddp = "nsys_ddp_2rank.sql";
        QTest::newRow("real export, nsys 2022.2 (schema 2.9.1), MPI saxpy")
            << "nsys_real_saxpy_2022.sql" << "" << 5 << "emit_nvtx(record_shapes=True)";
        QTest::newRow("real export, nsys 2024.5 (schema 3.13.2), CloverLeaf")
            << "nsys_real_cloverleaf_2024.sql" << "" << 41 << "emit_nvtx(record_shapes=True)";
        QTest::newRow("real export, nsys 2026.2 (schema 3.25.0), two H100s")
            << "nsys_real_h100_infer_a_2026.sql"
            << "" << 12 << "emit_nvtx(record_shapes=True)";
        QTest::newRow("Pacer's older hand-written export") << "nsys_export.sql" << "" << 4 << "AccumulateGrad NVTX ranges";
        QTest::newRow("no sizes: no shapes, no payloads")
            << ddp << QString(kWithoutShapes) + ";" + kWithoutPayloads << 12 << "Message size [bytes]";
        QTest::newRow("no iteration ranges")
            << ddp << "DELETE FROM NVTX_EVENTS WHERE text LIKE 'step %' OR text LIKE 'ProfilerStep#%'" << 12
            << "torch.cuda.nvtx.range";
        QTest::newRow("no all-reduce")
            << ddp << "DELETE FROM NVTX_EVENTS WHERE text LIKE 'nccl:all_reduce%' OR textId = 4" << 12 << "--trace=nvtx";
    }
    void saysWhatIsMissing() {
        QFETCH(QString, sql);
        QFETCH(QString, edit);
        QFETCH(int, kernels);
        QFETCH(QString, mentions);
        RunInfo info;
        auto parsed = importEdited(sql.toStdString(), edit.toStdString(), &info);
        QVERIFY2(parsed.ok(), parsed.ok() ? "" : parsed.status().message().c_str());
        int seen = 0;
        for (const TraceEvent& e : parsed.value().events) seen += e.kind == EventKind::Kernel;
        QCOMPARE(seen, kernels);
        const json imported = importedOf(info);
        QVERIFY2(imported.contains("replay_missing"), imported.dump().c_str());
        const std::string missing = imported["replay_missing"].get<std::string>();
        QVERIFY2(missing.find(mentions.toStdString()) != std::string::npos, missing.c_str());
        QVERIFY(missing.find('\n') == std::string::npos);
        QCOMPARE(info.policy, std::string("imported"));
    }

private:
    // The hand-timed job of tst_kineto_ddp, as both the two-rank export and its per-rank exports must give it.
    static void checkHandTimedJob(const RunTrace& t, const RunInfo& info) {
        const json imported = importedOf(info);
        QVERIFY2(!imported.contains("replay_missing"), imported.dump().c_str());
        QCOMPARE(info.policy, std::string("ddp"));
        QCOMPARE(info.iterations, 2);
        QCOMPARE(imported["format"].get<std::string>(), std::string("nsys"));
        QCOMPARE(imported["exact_sizes"].get<bool>(), true);
        QCOMPARE(imported["buckets"].dump(), std::string("[[2,3],[0,1]]"));
        const std::vector<std::int64_t> elements = {100, 1000, 10, 100};
        QCOMPARE(t.tensors.size(), std::size_t{4});
        for (std::size_t id = 0; id < 4; ++id) QCOMPARE(t.tensors[id].elements, elements[id]);

        // Ranks follow NCCL's ncclCommInitRank payloads (pid 4343 is rank 0), not pid order.
        std::map<int, const Track*> trackOf;
        for (const Track& track : t.tracks) trackOf[track.id] = &track;
        std::map<int, std::set<std::string>> threadsOfRank;
        for (const Track& track : t.tracks)
            if (!isReplayInputTrack(track)) threadsOfRank[track.rank].insert(track.name);
        QVERIFY(threadsOfRank[0].count("rank 0 thread 4343"));
        QVERIFY(threadsOfRank[1].count("rank 1 thread 4242"));

        // Step 2 (S = 20 ms): the same figures as the Kineto importer's on the same job.
        const std::int64_t S = 20'000'000;
        for (int rank : {0, 1}) {
            std::map<int, std::pair<std::int64_t, std::int64_t>> backward;
            std::vector<std::tuple<int, std::int64_t, std::int64_t, std::int64_t>> allreduce;
            for (const TraceEvent& e : t.events) {
                const Track& track = *trackOf[e.track];
                if (!isReplayInputTrack(track) || track.rank != rank || e.iteration != 2) continue;
                if (e.kind == EventKind::Backward) backward[e.layer] = {e.start, e.end};
                if (e.kind == EventKind::AllReduce) allreduce.emplace_back(e.tensor, e.bytes, e.start, e.end);
            }
            QCOMPARE(backward[3], std::make_pair(S + 4'000'000, S + 4'900'000));  // the GEMM's end on the GPU
            QCOMPARE(backward[2], std::make_pair(S + 4'900'000, S + 5'100'000));
            QCOMPARE(backward[1], std::make_pair(S + 5'100'000, S + 6'100'000));
            QCOMPARE(backward[0], std::make_pair(S + 6'100'000, S + 7'100'000));
            QCOMPARE(allreduce.size(), std::size_t{2});
            QCOMPARE(allreduce[0],
                     std::make_tuple(3, std::int64_t{440}, S + 5'300'000 + 100'000 * rank, S + 5'800'000));
            QCOMPARE(allreduce[1], std::make_tuple(1, std::int64_t{4400}, S + 7'300'000, S + 8'000'000));
        }
    }

    // Builds the sample export `sql` (samples/traces) with `edit` applied, in a file of its own ("" on failure).
    std::string buildEdited(const std::string& sql, const std::string& edit) {
        const std::string db = dir_.filePath(QString("export-%1.sqlite").arg(++count_)).toStdString();
        return buildExport(kTraces + sql, db, edit) ? db : std::string();
    }
    // ... and parses it.
    Result<RunTrace> importEdited(const std::string& sql, const std::string& edit, RunInfo* info) {
        const std::string db = buildEdited(sql, edit);
        if (db.empty()) return errorStatus(sql + ": could not build the export");
        return parseNsysSqlite({db}, info);
    }
    QTemporaryDir dir_;
    int count_ = 0;
};

QTEST_GUILESS_MAIN(NsysDdpTest)
#include "tst_nsys_ddp.moc"
