// Import and export: Chrome export → import preserves every event; the sample Kineto (2 ranks), Horovod and
// Nsight Systems traces import with the right ranks, tracks, kinds and iterations; bad input fails with one line
// that says what and where, and writes nothing.
#include <QtTest>

#include <sqlite3.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <fstream>
#include <nlohmann/json.hpp>

#include "profiler/export_chrome.h"
#include "profiler/import_chrome.h"
#include "profiler/import_nsys.h"
#include "profiler/project.h"
#include "test_util.h"

using namespace pacer::profiler;
using pacer::profiler::testing::makeRun;
using pacer::profiler::testing::sameEvents;

namespace {
const std::string kTraces = std::string(PACER_SAMPLES_DIR) + "/traces/";

std::string readText(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// Builds an Nsight Systems export from its SQL text.
bool buildSqlite(const std::string& sqlPath, const std::string& out) {
    sqlite3* db = nullptr;
    if (sqlite3_open(out.c_str(), &db) != SQLITE_OK) return false;
    const bool ok = sqlite3_exec(db, readText(sqlPath).c_str(), nullptr, nullptr, nullptr) == SQLITE_OK;
    sqlite3_close(db);
    return ok;
}

int countKind(const RunTrace& t, EventKind k) {
    return static_cast<int>(std::count_if(t.events.begin(), t.events.end(), [&](const auto& e) { return e.kind == k; }));
}
}  // namespace

class TestImportExport : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::string path(const std::string& name) { return dir_.filePath(QString::fromStdString(name)).toStdString(); }

private slots:
    void chromeExportImportRoundTrip() {
        const std::string project = path("source.pacer");
        RunTrace trace = makeRun(3, 2, 3);
        trace.events[0].name = "odd \"name\" with \\ and ünïcode";
        trace.events[1].start = 1'700'000'000'123'456'789;  // epoch-sized ns must survive the µs text exactly
        trace.events[1].end = 1'700'000'000'123'457'001;
        RunInfo info{"round trip", "pace", "", 8192, 3, 2, "cpu", 42};
        auto id = writeRun(project, trace, info);
        QVERIFY2(id.ok(), id.message().c_str());
        const std::string json = path("export.json");
        const Status exported = exportChromeTrace(project, *id, json);
        QVERIFY2(exported.ok(), exported.message().c_str());

        // What Perfetto needs: X events, M names, flows in pairs.
        const auto doc = nlohmann::json::parse(readText(json));
        int x = 0, m = 0, s = 0, f = 0;
        for (const auto& e : doc.at("traceEvents")) {
            const std::string ph = e.at("ph");
            x += ph == "X";
            m += ph == "M";
            s += ph == "s";
            f += ph == "f";
        }
        QCOMPARE(x, static_cast<int>(trace.events.size()));
        QCOMPARE(m, 3 + 2 * static_cast<int>(trace.tracks.size()));
        QVERIFY(s > 0);
        QCOMPARE(s, f);

        const std::string copy = path("copy.pacer");
        auto imported = importChromeTrace({json}, copy);
        QVERIFY2(imported.ok(), imported.message().c_str());
        auto back = readRun(copy, *imported);
        QVERIFY(back.ok());
        QString why;
        QVERIFY2(sameEvents(trace.events, back->events, &why), qPrintable(why));
        QCOMPARE(back->tracks.size(), trace.tracks.size());
        for (std::size_t i = 0; i < trace.tracks.size(); ++i) {
            QCOMPARE(back->tracks[i].name, trace.tracks[i].name);
            QCOMPARE(back->tracks[i].kind, trace.tracks[i].kind);
        }
        QCOMPARE(back->tensors.size(), trace.tensors.size());
        auto summary = readRunSummary(copy, *imported);
        QCOMPARE(summary->label, std::string("round trip"));
        QCOMPARE(summary->segment_bytes, std::int64_t{8192});
        QCOMPARE(summary->source, std::string("chrome"));
    }

    // An export replaces only an earlier export: never the project it reads, another project, or any other file.
    void exportRefusesToReplace_data() {
        QTest::addColumn<QString>("target");   // what --out names: "self", "project", "text", "dir"
        QTest::addColumn<QString>("mentions");
        QTest::newRow("the project being read") << "self" << "is the project being exported";
        QTest::newRow("another project") << "project" << "is a Pacer project";
        QTest::newRow("a file of the user's") << "text" << "not a Pacer export";
        QTest::newRow("a directory") << "dir" << "not a regular file";
    }
    void exportRefusesToReplace() {
        QFETCH(QString, target);
        QFETCH(QString, mentions);
        const std::string project = path("exported-" + target.toStdString() + ".pacer");
        auto id = writeRun(project, makeRun(1, 1, 2), RunInfo{});
        QVERIFY(id.ok());
        std::string out = path("target-" + target.toStdString());
        if (target == "self") out = project;
        if (target == "project") QVERIFY(writeRun(out, makeRun(2, 1, 1), RunInfo{}).ok());
        if (target == "text") std::ofstream(out) << "notes a person wrote\n";
        if (target == "dir") QVERIFY(QDir().mkpath(QString::fromStdString(out)));
        const bool isFile = target != "dir";  // a directory has no text to compare (reading it throws)
        const std::string before = isFile ? readText(out) : "", projectBefore = readText(project);

        const Status st = exportChromeTrace(project, *id, out);
        QVERIFY(!st.ok());
        QVERIFY2(st.message().find(mentions.toStdString()) != std::string::npos, st.message().c_str());
        if (isFile) QCOMPARE(readText(out), before);
        else QVERIFY(QFileInfo(QString::fromStdString(out)).isDir());
        QCOMPARE(readText(project), projectBefore);
        QVERIFY(listRuns(project).ok());
        QCOMPARE(QDir(dir_.path()).entryList({"*.XXXXXX", "*.tmp*"}, QDir::Files), QStringList{});
    }

    void exportReplacesAnEarlierExportButNeverWritesIntoTheProject() {
        // The project's name is what the old code used as its scratch file for "export.json": it was truncated.
        const std::string out = path("again.json"), project = out + ".tmp";
        auto id = writeRun(project, makeRun(2, 1, 2), RunInfo{});
        QVERIFY(id.ok());
        QVERIFY2(exportChromeTrace(project, *id, out).ok(), "first export");
        QVERIFY2(exportChromeTrace(project, *id, out).ok(), "an export replaces an earlier export");
        auto back = readRun(project, *id);
        QVERIFY2(back.ok(), back.message().c_str());
        QCOMPARE(back->events.size(), makeRun(2, 1, 2).events.size());
        QVERIFY(nlohmann::json::parse(readText(out)).contains("traceEvents"));
    }

    void kinetoTwoRanks() {
        const std::string project = path("kineto.pacer");
        auto id = importChromeTrace({kTraces + "kineto_rank1.json", kTraces + "kineto_rank0.json"}, project);
        QVERIFY2(id.ok(), id.message().c_str());
        auto run = readRun(project, *id);
        QVERIFY(run.ok());
        QCOMPARE(run->ranks, 2);
        QCOMPARE(run->iterations, 2);
        // Per rank: host thread, stream 7, stream 20.
        QCOMPARE(run->tracks.size(), std::size_t{6});
        int streams = 0;
        for (const Track& t : run->tracks) streams += t.kind == TrackKind::CudaStream;
        QCOMPARE(streams, 4);
        int nccl = 0;
        for (const TraceEvent& e : run->events) {
            if (e.name.rfind("ncclDevKernel_AllReduce", 0) == 0) {
                ++nccl;
                QCOMPARE(e.kind, EventKind::Kernel);
                QVERIFY(e.correlation > 0);
                QCOMPARE(run->tracks[static_cast<std::size_t>(e.track)].kind, TrackKind::CudaStream);
                QVERIFY(e.iteration == 5 || e.iteration == 6);  // from the ProfilerStep# range around its start
            }
            if (e.name == "cudaLaunchKernel") QCOMPARE(e.kind, EventKind::Runtime);
        }
        QCOMPARE(nccl, 4);
        QCOMPARE(countKind(*run, EventKind::Iteration), 4);
        QCOMPARE(countKind(*run, EventKind::Kernel), 16);
        QCOMPARE(countKind(*run, EventKind::Memcpy), 4);
        QCOMPARE(countKind(*run, EventKind::Backward), 4);
        QCOMPARE(countKind(*run, EventKind::Optimizer), 4);
        QCOMPARE(countKind(*run, EventKind::AllReduce), 4);  // nccl:all_reduce on the host
        auto summary = readRunSummary(project, *id);
        QCOMPARE(summary->backend, std::string("nccl"));
        // Fractional µs kept exactly: dur 420.75 µs.
        const auto it = std::find_if(run->events.begin(), run->events.end(),
                                     [](const auto& e) { return e.name.rfind("nccl", 0) == 0; });
        QCOMPARE(it->end - it->start, std::int64_t{420'750});
    }

    void horovodTimeline() {
        const std::string project = path("horovod.pacer");
        auto id = importChromeTrace({kTraces + "horovod_timeline.json"}, project);
        QVERIFY2(id.ok(), id.message().c_str());
        auto run = readRun(project, *id);
        QCOMPARE(run->tracks.size(), std::size_t{2});
        QVERIFY(run->tracks[0].name.find("fc1.weight") != std::string::npos);
        QCOMPARE(run->tracks[0].kind, TrackKind::Comm);
        QCOMPARE(countKind(*run, EventKind::AllReduce), 12);
        QCOMPARE(countKind(*run, EventKind::Memcpy), 4);
        // Nested B/E: ALLREDUCE spans 50..190 µs after its step start.
        const auto it = std::find_if(run->events.begin(), run->events.end(), [](const auto& e) { return e.name == "ALLREDUCE"; });
        QCOMPARE(it->end - it->start, std::int64_t{140'000});
    }

    void nsysExport() {
        const std::string db = path("nsys_export.sqlite");
        QVERIFY(buildSqlite(kTraces + "nsys_export.sql", db));
        const std::string project = path("nsys.pacer");
        auto id = importNsysSqlite({db}, project);
        QVERIFY2(id.ok(), id.message().c_str());
        auto run = readRun(project, *id);
        QCOMPARE(run->ranks, 1);
        QCOMPARE(countKind(*run, EventKind::Kernel), 4);
        QCOMPARE(countKind(*run, EventKind::Memcpy), 1);
        QCOMPARE(countKind(*run, EventKind::Runtime), 5);
        QCOMPARE(countKind(*run, EventKind::Marker), 2);  // the instant mark has no end: not a span
        QCOMPARE(run->tracks.size(), std::size_t{3});      // stream 7, stream 20, one CPU thread
        const auto nccl = std::find_if(run->events.begin(), run->events.end(),
                                       [](const auto& e) { return e.name.rfind("ncclDevKernel", 0) == 0; });
        QVERIFY(nccl != run->events.end());
        QCOMPARE(nccl->correlation, std::int64_t{12});
        QVERIFY(run->tracks[static_cast<std::size_t>(nccl->track)].name.find("stream 20") != std::string::npos);
        const auto memcpy = std::find_if(run->events.begin(), run->events.end(), [](const auto& e) { return e.kind == EventKind::Memcpy; });
        QCOMPARE(memcpy->bytes, std::int64_t{1048576});
    }

    void badChromeInput_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("truncated") << QByteArray("{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1") << "parse error";
        QTest::newRow("malformed") << QByteArray("{\"traceEvents\": [}") << "parse error";
        QTest::newRow("not json") << QByteArray("\x01\x02garbage") << "parse error";
        QTest::newRow("string ts, line 3") << QByteArray("{\"traceEvents\": [\n{\"ph\": \"X\", \"dur\": 1,\n \"ts\": \"soon\"}]}")
                                            << "line 3: expected number for 'ts'";
        QTest::newRow("absurd ts") << QByteArray("{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1e300, \"dur\": 1}]}") << "'ts' out of range";
        QTest::newRow("negative dur") << QByteArray("{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"dur\": -5}]}") << "negative 'dur'";
        QTest::newRow("missing ts") << QByteArray("{\"traceEvents\": [{\"ph\": \"X\", \"dur\": 1}]}") << "missing 'ts'";
        QTest::newRow("missing dur") << QByteArray("{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1}]}") << "without 'dur'";
        QTest::newRow("no traceEvents") << QByteArray("{\"other\": 1}") << "no 'traceEvents'";
        QTest::newRow("event not object") << QByteArray("{\"traceEvents\": [1, 2]}") << "expected an object";
        QTest::newRow("E without B") << QByteArray("[{\"ph\": \"E\", \"ts\": 5, \"pid\": 1}]") << "without a matching 'B'";
        QTest::newRow("wrong arg type") << QByteArray("[{\"ph\": \"X\", \"ts\": 5, \"dur\": 1, \"args\": {\"layer\": \"x\"}}]")
                                        << "expected integer for 'args.layer'";
        QTest::newRow("no spans") << QByteArray("{\"traceEvents\": []}") << "no spans";
        // |INT64_MIN| does not exist: the range check must not take an absolute value.
        QTest::newRow("ts INT64_MIN") << QByteArray("[{\"ph\": \"X\", \"ts\": -9223372036854775808, \"dur\": 1}]")
                                      << "'ts' out of range";
        QTest::newRow("dur INT64_MIN") << QByteArray("[{\"ph\": \"X\", \"ts\": 1, \"dur\": -9223372036854775808}]")
                                       << "'dur' out of range";
        // Replay sizes per-layer tables by the largest layer: 2^31 - 1 would be gigabytes (and overflow layer + 1).
        QTest::newRow("layer 2^31 - 1") << QByteArray("[{\"ph\": \"X\", \"ts\": 5, \"dur\": 1, \"args\": {\"layer\": 2147483647}}]")
                                        << "'args.layer' out of range";
    }
    void badChromeInput() {
        QFETCH(QByteArray, text);
        QFETCH(QString, expected);
        const std::string file = path("bad.json");
        {
            QFile f(QString::fromStdString(file));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(text);
        }
        const std::string project = path("never.pacer");
        auto id = importChromeTrace({file}, project);
        QVERIFY(!id.ok());
        const QString msg = QString::fromStdString(id.message());
        QVERIFY2(msg.contains(expected), qPrintable(msg));
        QVERIFY2(msg.startsWith(QString::fromStdString(file)), qPrintable(msg));
        QVERIFY2(!msg.contains('\n'), "one line");
        QVERIFY(!QFile::exists(QString::fromStdString(project)));
    }

    void badNsysInput_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("expected");
        QTest::newRow("not sqlite") << 0 << "not an SQLite file";
        QTest::newRow("missing tables") << 1 << "missing table StringIds";
        QTest::newRow("no activity") << 2 << "missing tables";
        QTest::newRow("a pacer project") << 3 << "is a Pacer project";
        QTest::newRow("reversed row") << 4 << "out of range or reversed";
        QTest::newRow("missing file") << 5 << "cannot open";
    }
    void badNsysInput() {
        QFETCH(int, kind);
        QFETCH(QString, expected);
        const std::string file = path("bad" + std::to_string(kind) + ".sqlite");
        auto exec = [&](const char* sqlText) {
            sqlite3* db = nullptr;
            sqlite3_open(file.c_str(), &db);
            sqlite3_exec(db, sqlText, nullptr, nullptr, nullptr);
            sqlite3_close(db);
        };
        switch (kind) {
            case 0: { QFile f(QString::fromStdString(file)); QVERIFY(f.open(QIODevice::WriteOnly)); f.write("hello, not sqlite at all"); break; }
            case 1: exec("CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start, end)"); break;
            case 2: exec("CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT)"); break;
            case 3: QVERIFY(writeRun(file, makeRun(1, 1, 1), RunInfo{}).ok()); break;
            case 4:
                QVERIFY(buildSqlite(kTraces + "nsys_export.sql", file));
                exec("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = start - 1 WHERE correlationId = 13");
                break;
            case 5: break;
        }
        const std::string project = path("never.pacer");
        auto id = importNsysSqlite({file}, project);
        QVERIFY(!id.ok());
        QVERIFY2(QString::fromStdString(id.message()).contains(expected), id.message().c_str());
        QVERIFY(!QFile::exists(QString::fromStdString(project)));
    }
};

QTEST_GUILESS_MAIN(TestImportExport)
#include "tst_import_export.moc"
