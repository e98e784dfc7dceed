// The HTA-style analysis on a hand-timed iteration (analysis_fixture.h works every figure out by hand).
#include <QtTest>

#include "analysis_fixture.h"
#include "profiler/analysis/trace_analysis.h"

using namespace pacer::profiler;
using namespace pacer::profiler::analysis;

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

    void emptyRunHasNoFigures() {
        const RunAnalysis a = analyzeRun(RunTrace{});
        QVERIFY(a.ranks.empty());
        QCOMPARE(a.straggler_rank, -1);
        QCOMPARE(a.critical_path.iteration, -1);
    }
};

QTEST_GUILESS_MAIN(TestAnalysis)
#include "tst_analysis.moc"
