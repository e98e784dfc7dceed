// The project store: schema round trip, rank files merged into a project, run management, the per-track
// summary, migration of an older file, and refusal of foreign, newer and non-SQLite files without touching them.
#include <QtTest>

#include <sqlite3.h>

#include <QCryptographicHash>
#include <QFile>
#include <QTemporaryDir>
#include <limits>
#include <thread>

#include "profiler/clock.h"
#include "profiler/cpu_tracer.h"
#include "profiler/project.h"
#include "profiler/rank_file.h"
#include "profiler/run_reader.h"
#include "profiler/schema.h"
#include "profiler/sqlite_db.h"
#include "test_util.h"

using namespace pacer::profiler;
using pacer::profiler::testing::makeRun;
using pacer::profiler::testing::sameEvents;

namespace {
QByteArray fileHash(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256);
}

void execSql(const std::string& path, const std::string& sqlText) {
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    char* err = nullptr;
    const int rc = sqlite3_exec(db, sqlText.c_str(), nullptr, nullptr, &err);
    QVERIFY2(rc == SQLITE_OK, err);
    sqlite3_close(db);
}
}  // namespace

class TestStore : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::string path(const char* name) { return dir_.filePath(name).toStdString(); }

private slots:
    void schemaRoundTrip() {
        const std::string project = path("roundtrip.pacer");
        const RunTrace trace = makeRun(2, 3, 4);
        RunInfo info;
        info.label = "sim";
        info.experiment_json = R"({"model":"mlp"})";
        info.backend = "cpu";
        auto id = writeRun(project, trace, info);
        QVERIFY2(id.ok(), id.message().c_str());
        QVERIFY(checkProject(project).ok());
        auto back = readRun(project, *id);
        QVERIFY2(back.ok(), back.message().c_str());
        QCOMPARE(back->run_id, *id);
        QCOMPARE(back->label, std::string("sim"));
        QCOMPARE(back->policy, std::string("pace"));
        QCOMPARE(back->segment_bytes, std::int64_t{4096});
        QCOMPARE(back->tracks.size(), trace.tracks.size());
        for (std::size_t i = 0; i < trace.tracks.size(); ++i) {
            QCOMPARE(back->tracks[i].name, trace.tracks[i].name);
            QCOMPARE(back->tracks[i].kind, trace.tracks[i].kind);
            QCOMPARE(back->tracks[i].rank, trace.tracks[i].rank);
        }
        QCOMPARE(back->tensors.size(), trace.tensors.size());
        QCOMPARE(back->tensors[3].elements, std::int64_t{1003});
        QString why;
        QVERIFY2(sameEvents(trace.events, back->events, &why), qPrintable(why));
        // Sorted by (track, start), as the trace model promises.
        for (std::size_t i = 1; i < back->events.size(); ++i) {
            const auto& a = back->events[i - 1];
            const auto& b = back->events[i];
            QVERIFY(a.track < b.track || (a.track == b.track && a.start <= b.start));
        }
        // GPU activity sits in Nsight Systems' table, with its name as a string id.
        auto db = sql::Db::open(project, sql::Db::Mode::ReadOnly);
        QVERIFY(db.ok());
        sql::Db* raw = db->get();
        auto st = raw->prepare("SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id=k.shortName"
                               " WHERE s.value LIKE 'ncclDevKernel_AllReduce%'");
        QVERIFY(st.ok());
        Status s;
        QVERIFY(st->step(&s));
        QCOMPARE(st->i64(0), std::int64_t{3});

        auto runs = listRuns(project);
        QVERIFY(runs.ok());
        QCOMPARE(runs->size(), std::size_t{1});
        QCOMPARE(runs->front().experiment_json, info.experiment_json);
        QCOMPARE(runs->front().source, std::string("simulated"));
    }

    void badRunsAreRefused_data() {
        QTest::addColumn<int>("defect");
        QTest::addColumn<QString>("expected");
        QTest::newRow("unknown track") << 0 << "unknown track";
        QTest::newRow("reversed span") << 1 << "ends before it starts";
        QTest::newRow("absurd time") << 2 << "time out of range";
        QTest::newRow("negative bytes") << 3 << "negative byte count";
        QTest::newRow("duplicate track") << 4 << "duplicate track id";
    }
    void badRunsAreRefused() {
        QFETCH(int, defect);
        QFETCH(QString, expected);
        RunTrace t = makeRun(1, 1, 2);
        switch (defect) {
            case 0: t.events[0].track = 99; break;
            case 1: t.events[0].end = t.events[0].start - 1; break;
            case 2: t.events[0].end = INT64_MAX; break;
            case 3: t.events[0].bytes = -5; break;
            case 4: t.tracks.push_back(t.tracks[0]); break;
        }
        const std::string project = path("bad_run.pacer");
        auto id = writeRun(project, t, RunInfo{});
        QVERIFY(!id.ok());
        QVERIFY2(QString::fromStdString(id.message()).contains(expected), id.message().c_str());
        QVERIFY2(!QFile::exists(QString::fromStdString(project)), "a failed write must not leave a new project");
    }

    void mergeFourRankFiles() {
        const int ranks = 4, iterations = 3, layers = 5;
        std::vector<std::string> files;
        std::vector<std::thread> workers;
        std::vector<Status> results(ranks);
        for (int r = 0; r < ranks; ++r) files.push_back(path(("rank" + std::to_string(r) + ".pacer").c_str()));
        // Ranks as threads, each with its own tracer and rank file, as pacer-worker processes would be.
        for (int r = 0; r < ranks; ++r) {
            workers.emplace_back([&, r] {
                results[static_cast<std::size_t>(r)] = [&]() -> Status {
                    RunInfo info{"merge test", "pace", "{}", 1 << 20, ranks, iterations, "cpu", wallClockNs()};
                    PROFILER_ASSIGN_OR_RETURN(auto writer, RankFileWriter::create(files[static_cast<std::size_t>(r)], info, r));
                    CpuTracer tracer(r);
                    const int compute = tracer.addTrack(TrackKind::Compute, "rank " + std::to_string(r) + " compute");
                    const int comm = tracer.addTrack(TrackKind::Comm, "rank " + std::to_string(r) + " comm");
                    std::vector<int> names;
                    for (int l = 0; l < layers; ++l) names.push_back(tracer.internName("layer" + std::to_string(l)));
                    std::vector<TensorRecord> tensors;
                    for (int l = 0; l < layers; ++l) tensors.push_back(TensorRecord{l, "w" + std::to_string(l), l, 100});
                    PROFILER_RETURN_IF_ERROR(writer->writeTensors(tensors));
                    std::int64_t t = 1000;
                    for (int it = 0; it < iterations; ++it) {
                        for (int l = 0; l < layers; ++l, t += 100)
                            tracer.record(EventKind::Forward, compute, names[static_cast<std::size_t>(l)], t, t + 90, it, l);
                        // Comm first in record order: the writer must sort.
                        for (int l = layers - 1; l >= 0; --l, t += 100) {
                            tracer.record(EventKind::AllReduce, comm, names[static_cast<std::size_t>(l)], t + 95, t + 150,
                                          it, l, l, 0, 400, l);
                            tracer.record(EventKind::Backward, compute, names[static_cast<std::size_t>(l)], t, t + 90, it, l);
                        }
                        PROFILER_RETURN_IF_ERROR(writer->flush(tracer));
                    }
                    PROFILER_RETURN_IF_ERROR(writer->setMetric("iter_ms", 10.0 + r));
                    PROFILER_RETURN_IF_ERROR(writer->setMetric("param_hash", 123456789.0));
                    PROFILER_RETURN_IF_ERROR(writer->setClockOffset(r * 1'000'000));
                    return writer->close();
                }();
            });
        }
        for (auto& w : workers) w.join();
        for (const Status& s : results) QVERIFY2(s.ok(), s.message().c_str());

        const std::string project = path("merged.pacer");
        // Shuffled order: merge sorts by rank.
        auto id = mergeRankFiles({files[2], files[0], files[3], files[1]}, project);
        QVERIFY2(id.ok(), id.message().c_str());
        auto run = readRun(project, 0);
        QVERIFY2(run.ok(), run.message().c_str());
        QCOMPARE(run->run_id, *id);
        QCOMPARE(run->ranks, ranks);
        QCOMPARE(run->tracks.size(), std::size_t{8});
        QCOMPARE(run->events.size(), std::size_t(ranks * iterations * layers * 3));
        QCOMPARE(run->tensors.size(), std::size_t(layers));
        for (std::size_t i = 0; i < run->tracks.size(); ++i) {
            QCOMPARE(run->tracks[i].id, static_cast<int>(i));
            QCOMPARE(run->tracks[i].rank, static_cast<int>(i / 2));
        }
        // Clock offsets applied: rank r's first event at 1000 + r ms.
        for (const TraceEvent& e : run->events) {
            const int rank = run->tracks[static_cast<std::size_t>(e.track)].rank;
            QVERIFY(e.start >= 1000 + rank * 1'000'000);
            QVERIFY(e.start < 1000 + rank * 1'000'000 + 100'000);
        }
        auto summary = readRunSummary(project, *id);
        QVERIFY2(summary.ok(), summary.message().c_str());
        QCOMPARE(summary->metrics.at("iter_ms"), 11.5);           // mean of 10, 11, 12, 13
        QCOMPARE(summary->metrics.at("param_hash"), 123456789.0);  // all agree
        QCOMPARE(summary->dropped, std::uint64_t{0});
        QCOMPARE(summary->iterations, iterations);

        // Merging again adds a second run; a missing rank is refused without touching the project.
        auto second = mergeRankFiles(files, project);
        QVERIFY2(second.ok(), second.message().c_str());
        QCOMPARE(*second, *id + 1);
        const QByteArray before = fileHash(QString::fromStdString(project));
        auto partial = mergeRankFiles({files[0], files[1], files[2]}, project);
        QVERIFY(!partial.ok());
        QVERIFY2(partial.message().find("4 ranks but 3 rank files") != std::string::npos, partial.message().c_str());
        auto dup = mergeRankFiles({files[0], files[1], files[2], files[2]}, project);
        QVERIFY(!dup.ok());
        QVERIFY2(dup.message().find("two rank files for rank 2") != std::string::npos, dup.message().c_str());
        auto projectAsRank = mergeRankFiles({project}, path("other.pacer"));
        QVERIFY(!projectAsRank.ok());
        QCOMPARE(fileHash(QString::fromStdString(project)), before);
    }

    // Two rank files with the same policy and rank count but from different runs must not become one run.
    void mergeRefusesRankFilesOfDifferentRuns_data() {
        QTest::addColumn<QString>("otherKey");
        QTest::addColumn<QString>("otherExperiment");
        QTest::addColumn<QString>("refusal");  // empty: the merge must succeed
        QTest::newRow("one run") << "run-a" << R"({"seed":1})" << "";
        QTest::newRow("another run, same settings") << "run-b" << R"({"seed":1})" << "belong to different runs";
        QTest::newRow("same key, another experiment") << "run-a" << R"({"seed":2})" << "experiments differ";
    }
    void mergeRefusesRankFilesOfDifferentRuns() {
        QFETCH(QString, otherKey);
        QFETCH(QString, otherExperiment);
        QFETCH(QString, refusal);
        static int row = 0;
        const std::string tag = std::to_string(++row);
        auto writeRank = [&](int rank, const std::string& key, const std::string& experiment) -> Result<std::string> {
            const std::string file = path(("other-run-" + tag + "-rank" + std::to_string(rank) + ".pacer").c_str());
            RunInfo info{"two runs", "fifo", experiment, 4096, 2, 1, "cpu", wallClockNs()};
            info.run_key = key;
            PROFILER_ASSIGN_OR_RETURN(auto writer, RankFileWriter::create(file, info, rank));
            CpuTracer tracer(rank);
            const int track = tracer.addTrack(TrackKind::Compute, "compute");
            tracer.record(EventKind::Forward, track, tracer.internName("fc0"), 100, 200, 0, 0);
            PROFILER_RETURN_IF_ERROR(writer->flush(tracer));
            PROFILER_RETURN_IF_ERROR(writer->close());
            return file;
        };
        auto a = writeRank(0, "run-a", R"({"seed":1})");
        auto b = writeRank(1, otherKey.toStdString(), otherExperiment.toStdString());
        QVERIFY2(a.ok() && b.ok(), "rank files");
        const std::string project = path(("two-runs-" + tag + ".pacer").c_str());
        auto merged = mergeRankFiles({*a, *b}, project);
        if (refusal.isEmpty()) {
            QVERIFY2(merged.ok(), merged.message().c_str());
            return;
        }
        QVERIFY(!merged.ok());
        QVERIFY2(QString::fromStdString(merged.message()).contains(refusal), merged.message().c_str());
        QVERIFY(!QFile::exists(QString::fromStdString(project)));
    }

    void runManagement() {
        const std::string project = path("manage.pacer");
        auto a = writeRun(project, makeRun(1, 1, 2), RunInfo{});
        auto b = writeRun(project, makeRun(1, 2, 2), RunInfo{});
        QVERIFY(a.ok() && b.ok());
        QVERIFY(renameRun(project, *a, "baseline").ok());
        QVERIFY(annotateRun(project, *a, "first try, link capped at 10 Gb/s").ok());
        auto runs = listRuns(project);
        QVERIFY(runs.ok());
        QCOMPARE(runs->size(), std::size_t{2});
        QCOMPARE(runs->at(0).label, std::string("baseline"));
        QCOMPARE(runs->at(0).notes, std::string("first try, link capped at 10 Gb/s"));
        QVERIFY(!renameRun(project, 999, "x").ok());
        QVERIFY(!renameRun(project, *a, "").ok());

        SavedSchedule sched{0, *a, "pace 2 MiB", "pace", 2 << 20, R"({"priorities":[0,1]})", 0};
        auto sid = saveSchedule(project, sched);
        QVERIFY2(sid.ok(), sid.message().c_str());
        QVERIFY(deleteRun(project, *a).ok());
        runs = listRuns(project);
        QCOMPARE(runs->size(), std::size_t{1});
        QCOMPARE(runs->at(0).run_id, *b);
        QVERIFY(!readRun(project, *a).ok());
        QVERIFY(readRun(project, 0).ok());
        auto schedules = listSchedules(project);
        QVERIFY(schedules.ok());
        QCOMPARE(schedules->size(), std::size_t{1});
        QCOMPARE(schedules->at(0).run_id, std::int64_t{0});  // its run is gone; the schedule stays
        QCOMPARE(schedules->at(0).settings_json, sched.settings_json);
        QVERIFY(deleteSchedule(project, *sid).ok());
        QVERIFY(!deleteSchedule(project, *sid).ok());
        QVERIFY(!deleteRun(project, *a).ok());
    }

    void trackSummaryKeepsPeaks_data() {
        QTest::addColumn<int>("buckets");
        QTest::newRow("coarse, from the stored summary") << 4;
        QTest::newRow("fine, from the events") << 20000;
    }
    void trackSummaryKeepsPeaks() {
        QFETCH(int, buckets);
        // 20000 short events and one long one on a track: every zoom must show the long one and count all.
        RunTrace t;
        t.tracks.push_back(Track{0, 0, TrackKind::Comm, "comm"});
        std::int64_t now = 0;
        auto span = [](std::int64_t start, std::int64_t end, EventKind kind) {
            TraceEvent e;
            e.start = start;
            e.end = end;
            e.kind = kind;
            return e;
        };
        for (int i = 0; i < 20000; ++i, now += 1000) t.events.push_back(span(now, now + 100, EventKind::AllReduce));
        t.events.push_back(span(12'345'000, 12'345'000 + 777'777, EventKind::Wait));
        const std::string project = path(("summary" + std::to_string(buckets) + ".pacer").c_str());
        auto id = writeRun(project, t, RunInfo{});
        QVERIFY(id.ok());
        auto sum = readTrackSummary(project, *id, 0, 0, now, buckets);
        QVERIFY2(sum.ok(), sum.message().c_str());
        QCOMPARE(sum->size(), static_cast<std::size_t>(buckets));
        std::int64_t count = 0, busy = 0, peak = 0;
        EventKind peakKind = EventKind::Forward;
        for (const SummaryBucket& b : *sum) {
            count += b.count;
            busy += b.busy_ns;
            if (b.peak_ns > peak) { peak = b.peak_ns; peakKind = b.peak_kind; }
        }
        QCOMPARE(count, std::int64_t{20001});
        QCOMPARE(busy, std::int64_t{20000 * 100 + 777'777});
        QCOMPARE(peak, std::int64_t{777'777});
        QCOMPARE(peakKind, EventKind::Wait);
        QVERIFY(!readTrackSummary(project, *id, 0, 10, 5, 4).ok());
        QVERIFY(!readTrackSummary(project, *id, 0, 0, 10, 0).ok());
    }

    // Eight spans of almost 2^62 ns each on one track: their busy time passes int64 and must stop at its limit,
    // whether the zoom reads the stored summary or the events.
    void trackSummaryBusyTimeSaturates_data() {
        QTest::addColumn<qint64>("t1");
        QTest::newRow("from the events (a bucket finer than any stored level)") << qint64{8};
        QTest::newRow("from the stored summary") << qint64{1'000'000};
    }
    void trackSummaryBusyTimeSaturates() {
        QFETCH(qint64, t1);
        RunTrace t;
        t.tracks.push_back(Track{0, 0, TrackKind::Comm, "comm"});
        for (int i = 0; i < 8; ++i) {
            TraceEvent e;
            e.start = i;
            e.end = (std::int64_t{1} << 62) - 8;
            e.kind = EventKind::AllReduce;
            t.events.push_back(e);
        }
        const std::string project = path(("saturate" + std::to_string(t1) + ".pacer").c_str());
        auto id = writeRun(project, t, RunInfo{});
        QVERIFY2(id.ok(), id.message().c_str());
        auto sum = readTrackSummary(project, *id, 0, 0, t1, 1);
        QVERIFY2(sum.ok(), sum.message().c_str());
        QCOMPARE(sum->front().count, std::int64_t{8});
        QCOMPARE(sum->front().busy_ns, std::numeric_limits<std::int64_t>::max());
    }

    void olderSchemaIsMigrated() {
        const std::string project = path("v1.pacer");
        {
            auto db = sql::Db::open(project, sql::Db::Mode::Create);
            QVERIFY(db.ok());
            QVERIFY(createSchema(**db, 1).ok());
            QVERIFY(!(*db)->hasTable("track_summary"));
        }
        QVERIFY(checkProject(project).ok());
        auto id = writeRun(project, makeRun(1, 1, 2), RunInfo{});
        QVERIFY2(id.ok(), id.message().c_str());
        QVERIFY(annotateRun(project, *id, "after migration").ok());
        auto db = sql::Db::open(project, sql::Db::Mode::ReadOnly);
        QVERIFY((*db)->hasTable("track_summary"));
        auto st = (*db)->prepare("PRAGMA user_version");
        Status s;
        QVERIFY(st->step(&s));
        QCOMPARE(st->i32(0), kSchemaVersion);
    }

    // The compare view's pins: a schema-3 file has none and gains the table when opened; a save replaces the whole
    // set; a row of a kind this build does not know is an error that names it.
    void comparePinsRoundTrip() {
        const std::string project = path("pins.pacer");
        {
            auto db = sql::Db::open(project, sql::Db::Mode::Create);
            QVERIFY(db.ok());
            QVERIFY(createSchema(**db, 3).ok());
        }
        auto none = readComparePins(project);
        QVERIFY2(none.ok(), none.message().c_str());
        QVERIFY(none->pins.empty());
        QCOMPARE(none->baseline, 0);
        auto id = writeRun(project, makeRun(1, 1, 2), RunInfo{});
        QVERIFY2(id.ok(), id.message().c_str());

        ComparePins pins;
        pins.pins.push_back(ComparePin{ComparePin::Kind::Run, "1", *id, "{}"});
        pins.pins.push_back(ComparePin{ComparePin::Kind::Schedule, "pace:64KiB", 0, R"({"policy":"pace"})"});
        pins.pins.push_back(ComparePin{ComparePin::Kind::Schedule, "fifo", *id, R"({"policy":"fifo"})"});
        pins.baseline = 2;
        QVERIFY(saveComparePins(project, pins).ok());
        auto back = readComparePins(project);
        QVERIFY2(back.ok(), back.message().c_str());
        QCOMPARE(back->baseline, 2);
        QCOMPARE(back->pins.size(), pins.pins.size());
        for (std::size_t i = 0; i < pins.pins.size(); ++i) {
            QCOMPARE(back->pins[i].kind, pins.pins[i].kind);
            QCOMPARE(back->pins[i].label, pins.pins[i].label);
            QCOMPARE(back->pins[i].run_id, pins.pins[i].run_id);
            QCOMPARE(back->pins[i].settings_json, pins.pins[i].settings_json);
        }
        pins.pins.erase(pins.pins.begin());
        pins.baseline = 0;
        QVERIFY(saveComparePins(project, pins).ok());
        back = readComparePins(project);
        QCOMPARE(back->pins.size(), std::size_t{2});
        QCOMPARE(back->pins[0].label, std::string("pace:64KiB"));

        execSql(project, "UPDATE compare_pins SET kind='flamegraph' WHERE position=1");
        auto bad = readComparePins(project);
        QVERIFY(!bad.ok());
        QVERIFY2(bad.message().find("compare pin 1 has an unknown kind 'flamegraph'") != std::string::npos,
                 bad.message().c_str());
    }

    // Schema 2 summarised iteration markers with the events (their span hid the lane zoomed out); opening such a
    // file adds the markers' index and summarises its runs again without them.
    void version2SummaryIsRebuiltWithoutMarkers() {
        const std::string project = path("v2-markers.pacer");
        RunTrace t = makeRun(1, 3, 2);
        for (int it = 0; it < 3; ++it)
            t.events.push_back(TraceEvent{1'000'000 + it * 7000, 1'000'000 + (it + 1) * 7000, EventKind::Iteration, 0, it,
                                          -1, -1, -1, 0, -1, "ProfilerStep#" + std::to_string(it), 0});
        auto id = writeRun(project, t, RunInfo{});
        QVERIFY2(id.ok(), id.message().c_str());
        // Make it what schema 2 wrote: no markers' index (nor later tables), a summary whose peaks are the markers.
        execSql(project, "DROP INDEX PACER_EVENTS_iterations; DROP TABLE compare_pins; UPDATE track_summary SET peak_kind=5, peak_ns=7000 "
                         "WHERE track=0; PRAGMA user_version=2");
        auto reader = RunReader::open(project, 0);  // opening migrates
        QVERIFY2(reader.ok(), reader.message().c_str());
        auto outline = (*reader)->outline();
        QVERIFY2(outline.ok(), outline.message().c_str());
        auto db = sql::Db::open(project, sql::Db::Mode::ReadOnly);
        auto markers = (*db)->prepare("SELECT COUNT(*) FROM track_summary WHERE peak_kind=5");
        Status s;
        QVERIFY(markers->step(&s));
        QCOMPARE(markers->i64(0), std::int64_t{0});
        auto index = (*db)->prepare("SELECT COUNT(*) FROM sqlite_master WHERE name='PACER_EVENTS_iterations'");
        QVERIFY(index->step(&s));
        QCOMPARE(index->i64(0), std::int64_t{1});
        QCOMPARE(outline->trace.events.size(), std::size_t{3});  // the markers, and no other event
    }

    // The outline's extents and a window's events, against the events written.
    void runReaderOutlineAndWindow() {
        const std::string project = path("reader.pacer");
        const RunTrace t = makeRun(2, 40, 3);
        auto id = writeRun(project, t, RunInfo{});
        QVERIFY2(id.ok(), id.message().c_str());
        auto reader = RunReader::open(project, *id);
        QVERIFY2(reader.ok(), reader.message().c_str());
        auto outline = (*reader)->outline();
        QVERIFY2(outline.ok(), outline.message().c_str());
        QCOMPARE(outline->events, static_cast<std::int64_t>(t.events.size()));
        QCOMPARE(outline->extents.size(), t.tracks.size());
        for (const TrackExtent& x : outline->extents) {
            std::int64_t n = 0, first = INT64_MAX, last = INT64_MIN, longest = 0;
            for (const TraceEvent& e : t.events) {
                if (e.track != x.track) continue;
                ++n;
                first = std::min(first, e.start);
                last = std::max(last, e.end);
                longest = std::max(longest, e.end - e.start);
            }
            QCOMPARE(x.events, n);
            QCOMPARE(x.first_start, first);
            QCOMPARE(x.last_end, last);
            QCOMPARE(x.longest_ns, longest);
        }
        // A window that cuts events at both ends: exactly those overlapping it.
        const std::int64_t t0 = 1'050'450, t1 = 1'090'050;
        auto events = (*reader)->events(outline->extents, t0, t1);
        QVERIFY2(events.ok(), events.message().c_str());
        std::size_t expected = 0;
        for (const TraceEvent& e : t.events) expected += e.end >= t0 && e.start < t1;
        QCOMPARE(events->size(), expected);
        for (std::size_t i = 1; i < events->size(); ++i) {
            const TraceEvent& a = (*events)[i - 1];
            const TraceEvent& b = (*events)[i];
            QVERIFY(a.track < b.track || (a.track == b.track && a.start <= b.start));
        }
        QVERIFY(!RunReader::open(project, 42).ok());
    }

    void refusedFilesStayUntouched_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("expected");
        QTest::newRow("newer schema") << 0 << "newer Pacer";
        QTest::newRow("foreign sqlite") << 1 << "not a Pacer project";
        QTest::newRow("not sqlite") << 2 << "not an SQLite file";
        QTest::newRow("truncated sqlite header") << 3 << "not an SQLite file";
    }
    void refusedFilesStayUntouched() {
        QFETCH(int, kind);
        QFETCH(QString, expected);
        const std::string file = path(("refused" + std::to_string(kind) + ".pacer").c_str());
        switch (kind) {
            case 0:
                QVERIFY(writeRun(file, makeRun(1, 1, 1), RunInfo{}).ok());
                execSql(file, "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode=DELETE; PRAGMA user_version=" +
                                  std::to_string(kSchemaVersion + 1));
                break;
            case 1: execSql(file, "CREATE TABLE other(x); INSERT INTO other VALUES(1)"); break;
            case 2: {
                QFile f(QString::fromStdString(file));
                QVERIFY(f.open(QIODevice::WriteOnly));
                f.write("{\"traceEvents\": []}\n");
                break;
            }
            case 3: {
                QFile f(QString::fromStdString(file));
                QVERIFY(f.open(QIODevice::WriteOnly));
                f.write("SQLite for");
                break;
            }
        }
        const QByteArray before = fileHash(QString::fromStdString(file));
        const Status check = checkProject(file);
        QVERIFY(!check.ok());
        QVERIFY2(QString::fromStdString(check.message()).contains(expected), check.message().c_str());
        auto written = writeRun(file, makeRun(1, 1, 1), RunInfo{});
        QVERIFY(!written.ok());
        QVERIFY2(QString::fromStdString(written.message()).contains(expected), written.message().c_str());
        QVERIFY(!listRuns(file).ok());
        QVERIFY(!readRun(file, 0).ok());
        QVERIFY(!RankFileWriter::create(file, RunInfo{}, 0).ok());
        QCOMPARE(fileHash(QString::fromStdString(file)), before);
        QVERIFY(!QFile::exists(QString::fromStdString(file + "-wal")));
    }

    void missingProjectIsAnError() {
        const Status s = checkProject(path("nope.pacer"));
        QVERIFY(!s.ok());
        QVERIFY2(s.message().find("no such file") != std::string::npos, s.message().c_str());
        QVERIFY(!readRun(path("nope.pacer"), 0).ok());
        QVERIFY(!QFile::exists(QString::fromStdString(path("nope.pacer"))));
    }
};

QTEST_GUILESS_MAIN(TestStore)
#include "tst_store.moc"
