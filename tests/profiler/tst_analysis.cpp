// The HTA-style analysis on a hand-timed iteration (analysis_fixture.h works every figure out by hand), and the
// same figures streamed from a project file (analyzeStored) as computed over the trace in memory.
#include <QtTest>

#include <QTemporaryDir>

#include "analysis_fixture.h"
#include "profiler/analysis/trace_analysis.h"
#include "profiler/project.h"
#include "profiler/run_reader.h"

using namespace pacer::profiler;
using namespace pacer::profiler::analysis;

Q_DECLARE_METATYPE(pacer::profiler::RunTrace)

namespace {

void compareAnalyses(const RunAnalysis& a, const RunAnalysis& b) {
    QCOMPARE(a.ranks.size(), b.ranks.size());
    for (std::size_t i = 0; i < a.ranks.size(); ++i) {
        const RankBreakdown &x = a.ranks[i], &y = b.ranks[i];
        QCOMPARE(x.rank, y.rank);
        QCOMPARE(x.span_ns, y.span_ns);
        QCOMPARE(x.compute_ns, y.compute_ns);
        QCOMPARE(x.exposed_comm_ns, y.exposed_comm_ns);
        QCOMPARE(x.idle_ns, y.idle_ns);
        QCOMPARE(x.comm_ns, y.comm_ns);
        QCOMPARE(x.overlap_ns, y.overlap_ns);
        QCOMPARE(x.last_starts, y.last_starts);
        QCOMPARE(x.mean_lateness_ns, y.mean_lateness_ns);
    }
    QCOMPARE(a.names.size(), b.names.size());
    for (std::size_t i = 0; i < a.names.size(); ++i) {
        QCOMPARE(a.names[i].name, b.names[i].name);
        QCOMPARE(a.names[i].communication, b.names[i].communication);
        QCOMPARE(a.names[i].count, b.names[i].count);
        QCOMPARE(a.names[i].total_ns, b.names[i].total_ns);
        QCOMPARE(a.names[i].min_ns, b.names[i].min_ns);
        QCOMPARE(a.names[i].max_ns, b.names[i].max_ns);
    }
    QCOMPARE(a.matched_collectives, b.matched_collectives);
    QCOMPARE(a.straggler_rank, b.straggler_rank);
    const CriticalPath &p = a.critical_path, &q = b.critical_path;
    QCOMPARE(p.iteration, q.iteration);
    QCOMPARE(p.rank, q.rank);
    QCOMPARE(p.length_ns, q.length_ns);
    QCOMPARE(p.compute_ns, q.compute_ns);
    QCOMPARE(p.comm_ns, q.comm_ns);
    QCOMPARE(p.steps.size(), q.steps.size());
    for (std::size_t i = 0; i < p.steps.size(); ++i) {
        QCOMPARE(p.steps[i].track, q.steps[i].track);
        QCOMPARE(p.steps[i].kind, q.steps[i].kind);
        QCOMPARE(p.steps[i].name, q.steps[i].name);
        QCOMPARE(p.steps[i].start, q.steps[i].start);
        QCOMPARE(p.steps[i].end, q.steps[i].end);
    }
}

}  // namespace

class TestAnalysis : public QObject {
    Q_OBJECT
private slots:
    void temporalBreakdown_data() {
        QTest::addColumn<int>("rank");
        QTest::addColumn<qint64>("span");
        QTest::addColumn<qint64>("compute");
        QTest::addColumn<qint64>("exposed");
        QTest::addColumn<qint64>("idle");
        QTest::addColumn<qint64>("comm");
        QTest::addColumn<qint64>("overlap");
        QTest::newRow("rank 0") << 0 << 100'000LL << 70'000LL << 20'000LL << 10'000LL << 40'000LL << 20'000LL;
        QTest::newRow("rank 1") << 1 << 110'000LL << 80'000LL << 13'000LL << 17'000LL << 31'000LL << 18'000LL;
    }
    void temporalBreakdown() {
        QFETCH(int, rank);
        const RunAnalysis a = analyzeRun(testing::handTimedIteration());
        QCOMPARE(a.ranks.size(), std::size_t{2});
        const RankBreakdown& r = a.ranks[static_cast<std::size_t>(rank)];
        QCOMPARE(r.rank, rank);
        QTEST(static_cast<qint64>(r.span_ns), "span");
        QTEST(static_cast<qint64>(r.compute_ns), "compute");
        QTEST(static_cast<qint64>(r.exposed_comm_ns), "exposed");
        QTEST(static_cast<qint64>(r.idle_ns), "idle");
        QTEST(static_cast<qint64>(r.comm_ns), "comm");
        QTEST(static_cast<qint64>(r.overlap_ns), "overlap");
        QCOMPARE(r.compute_ns + r.exposed_comm_ns + r.idle_ns, r.span_ns);
        QFETCH(qint64, overlap);
        QFETCH(qint64, comm);
        QCOMPARE(r.overlapPercent(), 100.0 * static_cast<double>(overlap) / static_cast<double>(comm));
    }

    void stragglerStartsCollectivesLast() {
        const RunAnalysis a = analyzeRun(testing::handTimedIteration());
        QCOMPARE(a.matched_collectives, 2);
        QCOMPARE(a.straggler_rank, 1);
        QCOMPARE(a.ranks[1].last_starts, 2);
        QCOMPARE(a.ranks[1].mean_lateness_ns, 5'000.0);
        QCOMPARE(a.ranks[0].last_starts, 0);
        QCOMPARE(a.ranks[0].mean_lateness_ns, 0.0);
    }

    void criticalPathThroughDependencies() {
        const RunAnalysis a = analyzeRun(testing::handTimedIteration());
        const CriticalPath& cp = a.critical_path;
        QCOMPARE(cp.iteration, 0);
        QCOMPARE(cp.rank, 1);
        QStringList names;
        for (const PathStep& s : cp.steps) names << QString::fromStdString(s.name);
        QCOMPARE(names, (QStringList{"fc1", "fc2", "fc2 backward", "fc1 backward", "allreduce fc1.weight[0]",
                                     "sgd fc1.weight"}));
        QCOMPARE(cp.length_ns, std::int64_t{100'000});
        QCOMPARE(cp.compute_ns, std::int64_t{80'000});
        QCOMPARE(cp.comm_ns, std::int64_t{13'000});
    }

    void statisticsByName() {
        const RunAnalysis a = analyzeRun(testing::handTimedIteration());
        // Compute first (longest total first), then communication; waits and markers are neither.
        QCOMPARE(a.names.size(), std::size_t{7});
        QCOMPARE(a.names[0].name, std::string("fc2 backward"));  // 20 + 30
        QCOMPARE(a.names[0].count, std::int64_t{2});
        QCOMPARE(a.names[0].total_ns, std::int64_t{50'000});
        QCOMPARE(a.names[0].min_ns, std::int64_t{20'000});
        QCOMPARE(a.names[0].max_ns, std::int64_t{30'000});
        QCOMPARE(a.names[0].meanNs(), 25'000.0);
        const NameStats& lastComm = a.names.back();
        QVERIFY(lastComm.communication);
        QCOMPARE(lastComm.name, std::string("allreduce fc1.weight[0]"));  // 15 + 13 = 28 < 25 + 18 = 43
        QCOMPARE(lastComm.total_ns, std::int64_t{28'000});
    }

    // The workbench draws a replay as one more "rank" of lanes under the measured ones; the figures stay the run's.
    void replayLanesAreNotARank() {
        RunTrace run = testing::handTimedIteration();
        const RunTrace measured = run;
        int lastTrack = 0;
        for (const Track& t : run.tracks) lastTrack = std::max(lastTrack, t.id);
        for (const Track& t : measured.tracks) {
            Track lane = t;
            lane.id += lastTrack + 1;
            lane.rank = run.ranks;
            run.tracks.push_back(lane);
        }
        for (const TraceEvent& e : measured.events) {
            TraceEvent copy = e;
            copy.track += lastTrack + 1;
            run.events.push_back(copy);
        }
        const RunAnalysis a = analyzeRun(run), b = analyzeRun(measured);
        QCOMPARE(a.ranks.size(), b.ranks.size());
        QCOMPARE(a.straggler_rank, b.straggler_rank);
        for (std::size_t r = 0; r < a.ranks.size(); ++r) QCOMPARE(a.ranks[r].last_starts, b.ranks[r].last_starts);
    }

    // The store's path (each rank streamed in start order from the project file) against the trace in memory.
    void storedEqualsInMemory_data() {
        QTest::addColumn<RunTrace>("run");
        QTest::addColumn<int>("iteration");
        QTest::newRow("hand-timed") << testing::handTimedIteration() << -1;
        QTest::newRow("4 CPU ranks, 6 iterations") << testing::syntheticRun(4, 6, false, true, 1) << -1;
        QTest::newRow("2 GPU ranks (kernels, copies)") << testing::syntheticRun(2, 5, true, true, 2) << -1;
        QTest::newRow("no iteration markers") << testing::syntheticRun(3, 4, false, false, 3) << -1;
        QTest::newRow("one rank, iteration 2 asked for") << testing::syntheticRun(1, 4, true, true, 4) << 2;
    }
    void storedEqualsInMemory() {
        QFETCH(RunTrace, run);
        QFETCH(int, iteration);
        QTemporaryDir dir;
        const std::string path = dir.filePath("run.pacer").toStdString();
        const auto id = writeRun(path, run, RunInfo{});
        QVERIFY2(id.ok(), id.message().c_str());
        auto reader = RunReader::open(path, 0);
        QVERIFY(reader.ok());
        const auto stored = analyzeStored(*reader.value(), iteration);
        QVERIFY2(stored.ok(), stored.message().c_str());
        const RunAnalysis inMemory = analyzeRun(run, iteration);
        QVERIFY(!inMemory.ranks.empty());
        QVERIFY(inMemory.critical_path.steps.size() > 1);
        compareAnalyses(stored.value(), inMemory);
    }

    void emptyRunHasNoFigures() {
        const RunAnalysis a = analyzeRun(RunTrace{});
        QVERIFY(a.ranks.empty());
        QCOMPARE(a.straggler_rank, -1);
        QCOMPARE(a.critical_path.iteration, -1);
    }
};

QTEST_GUILESS_MAIN(TestAnalysis)
#include "tst_analysis.moc"
