// A run opened a window at a time (large_run.h) against the same run read whole, on a project written by the
// real store: the same lanes, span and iteration bands; once a window of events is read, the very draw records
// of the whole run; zoomed out, summary records that account for every event; the loader and the model's
// background read deliver what they promise.
#include "app/gui/models/large_run.h"
#include "app/gui/models/project_loader.h"
#include "app/gui/models/range_stats_model.h"
#include "app/gui/models/timeline_model.h"
#include "profiler/project.h"
#include "tests/gui/trace_fixture.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace pacer;
using namespace pacer::gui;

namespace {

constexpr int kIterations = 40;

TimeAxis axisOver(std::int64_t start, std::int64_t end, int width = 800)
{
    TimeAxis a;
    a.start = start;
    a.end = end;
    a.left = 100;
    a.width = width;
    return a;
}

std::vector<DrawItem> drawAll(const TimelineModel& model, const TimeAxis& axis)
{
    std::vector<DrawItem> out;
    for (int lane = 0; lane < model.laneCount(); ++lane)
        model.appendDrawItems(lane, axis, 3.0, out);
    return out;
}

}  // namespace

class TestLargeRun : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_path;
    std::shared_ptr<const profiler::RunTrace> m_trace;

    std::shared_ptr<const LargeRun> open(const LargeRunLimits& limits)
    {
        QString error;
        auto run = openLargeRun(m_path, 0, &error, limits);
        if (!run)
            qWarning("%s", qPrintable(error));
        return run;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_path = m_dir.filePath(QStringLiteral("large.pacer"));
        auto trace = test::makeTwoRankTrace(kIterations);
        // A channel lane recorded but never used (as self-tuning runs once allocated): neither view draws it.
        trace->tracks.push_back({4, 0, profiler::TrackKind::Comm, "rank 0 comm ch1"});
        profiler::RunInfo info;
        info.label = trace->label;
        info.ranks = 2;
        QVERIFY(profiler::writeRun(m_path.toStdString(), *trace, info).ok());
        auto stored = profiler::readRun(m_path.toStdString(), 0);
        QVERIFY(stored.ok());
        m_trace = std::make_shared<const profiler::RunTrace>(std::move(stored).value());
    }

    void outlineMatchesWholeRun()
    {
        TimelineModel whole, large;
        QAbstractItemModelTester tester(&large, QAbstractItemModelTester::FailureReportingMode::QtTest);
        whole.setTrace(m_trace);
        auto run = open({});
        QVERIFY(run);
        QCOMPARE(run->outline.events, static_cast<std::int64_t>(m_trace->events.size()));
        large.setIndex(buildLargeRunIndex(run));
        QVERIFY(large.isLarge());
        QCOMPARE(large.laneNames(), whole.laneNames());
        QVERIFY(!large.laneNames().contains(QStringLiteral("rank 0 comm ch1")));
        QCOMPARE(large.startTime(), whole.startTime());
        QCOMPARE(large.endTime(), whole.endTime());
        QCOMPARE(large.minPriority(), whole.minPriority());
        QCOMPARE(large.maxPriority(), whole.maxPriority());
        QCOMPARE(large.iterations().size(), std::size_t(kIterations));
        for (int lane = 0; lane < whole.laneCount(); ++lane)
            QCOMPARE(large.data(large.index(lane), TimelineModel::EventCountRole),
                     whole.data(whole.index(lane), TimelineModel::EventCountRole));
        // No event has been read but the markers (and the lanes too small for a summary: none here).
        QCOMPARE(large.trace()->events.size(), std::size_t(2 * kIterations));
    }

    void zoomedOutSummaryCountsEveryEvent()
    {
        TimelineModel large;
        large.setIndex(buildLargeRunIndex(open({})));
        // 20 ms a pixel: no finer than the finest level every lane stores (sparser levels are not stored).
        const TimeAxis all = axisOver(large.startTime(), large.endTime(), 20);
        LargeRunWindow plan;
        QVERIFY(!planWindow(large.timelineIndex(), all.start, all.end, all.nsPerPixel(), &plan));  // resident suffices
        std::vector<std::int64_t> counted(static_cast<std::size_t>(large.laneCount()), 0);
        for (const DrawItem& d : drawAll(large, all)) {
            QVERIFY(d.isSummary());
            QVERIFY(d.x0 >= all.left - 2 && d.x1 <= all.left + all.width + 2);
            QVERIFY(d.t0 < d.t1);
            counted[static_cast<std::size_t>(d.lane)] += d.count;
        }
        for (int lane = 0; lane < large.laneCount(); ++lane)
            QCOMPARE(counted[static_cast<std::size_t>(lane)],
                     large.data(large.index(lane), TimelineModel::EventCountRole).toLongLong());
    }

    // Once the window of a range is read, the records are exactly those of the whole run at that zoom.
    void eventWindowDrawsAsWholeRun_data()
    {
        QTest::addColumn<double>("from");  // fractions of the run's span
        QTest::addColumn<double>("to");
        QTest::newRow("whole run") << 0.0 << 1.0;
        QTest::newRow("middle tenth") << 0.45 << 0.55;
        QTest::newRow("one iteration") << 0.5 << 0.525;
        QTest::newRow("the burst") << 0.99 << 1.0;
        QTest::newRow("a sliver") << 0.3 << 0.3001;
    }
    void eventWindowDrawsAsWholeRun()
    {
        QFETCH(double, from);
        QFETCH(double, to);
        TimelineModel whole, large;
        whole.setTrace(m_trace);
        LargeRunLimits limits;
        limits.residentCells = 1;  // only the coarsest level resident: every zoom asks for a window
        large.setIndex(buildLargeRunIndex(open(limits)));
        const std::int64_t span = whole.endTime() - whole.startTime();
        const TimeAxis axis = axisOver(whole.startTime() + static_cast<std::int64_t>(from * span),
                                       whole.startTime() + static_cast<std::int64_t>(to * span));
        LargeRunWindow plan;
        QVERIFY(planWindow(large.timelineIndex(), axis.start, axis.end, axis.nsPerPixel(), &plan));
        QVERIFY(plan.events);
        QString error;
        auto window = readLargeRunWindow(large.timelineIndex(), plan, &error);
        QVERIFY2(window, qPrintable(error));
        large.setWindow(window);
        QVERIFY(!planWindow(large.timelineIndex(), axis.start, axis.end, axis.nsPerPixel(), &plan));  // it has it now
        const auto expected = drawAll(whole, axis);
        const auto got = drawAll(large, axis);
        QCOMPARE(got.size(), expected.size());
        for (std::size_t i = 0; i < got.size(); ++i) {
            QCOMPARE(got[i].lane, expected[i].lane);
            QCOMPARE(got[i].x0, expected[i].x0);
            QCOMPARE(got[i].x1, expected[i].x1);
            QCOMPARE(got[i].count, expected[i].count);
            QCOMPARE(got[i].colour, expected[i].colour);
            QCOMPARE(large.drawItemDetails(got[i]), whole.drawItemDetails(expected[i]));
        }
    }

    // A range of a large run counted in the project file gives the table the same range gives on the run held whole
    // (an event overlapping the range counts whole; iteration markers are not on lanes), including ranges that
    // start or end inside events and ranges with nothing in them.
    void storedRangeCountsAsWholeRun_data() { eventWindowDrawsAsWholeRun_data(); }
    void storedRangeCountsAsWholeRun()
    {
        QFETCH(double, from);
        QFETCH(double, to);
        TimelineModel whole;
        whole.setTrace(m_trace);
        const std::int64_t span = whole.endTime() - whole.startTime();
        const std::int64_t t0 = whole.startTime() + static_cast<std::int64_t>(from * span);
        const std::int64_t t1 = whole.startTime() + static_cast<std::int64_t>(to * span);
        std::vector<RangeStat> expected, got;
        QVERIFY(aggregateRange(whole, t0, t1, &expected));
        QVERIFY(!expected.empty());
        LargeRunLimits limits;
        limits.residentCells = 1;
        QString error;
        QVERIFY2(aggregateStoredRange(*open(limits), t0, t1, &got, &error), qPrintable(error));
        QCOMPARE(got.size(), expected.size());
        for (std::size_t i = 0; i < got.size(); ++i) {
            QCOMPARE(got[i].name, expected[i].name);
            QCOMPARE(got[i].count, expected[i].count);
            QCOMPARE(got[i].totalNs, expected[i].totalNs);
        }
        QVERIFY(aggregateStoredRange(*open(limits), whole.endTime() + 1000, whole.endTime() + 2000, &got, &error));
        QVERIFY(got.empty());
    }

    // Too many events in the range for the budget: a finer summary is read instead, and it still accounts for
    // every event starting in the view.
    void summaryWindowWhenOverBudget()
    {
        TimelineModel large;
        LargeRunLimits limits;
        limits.residentCells = 1;
        limits.windowEvents = 10;
        large.setIndex(buildLargeRunIndex(open(limits)));
        const std::int64_t span = large.endTime() - large.startTime();
        const TimeAxis axis = axisOver(large.startTime() + span / 4, large.startTime() + span / 2, 5);
        LargeRunWindow plan;
        QVERIFY(planWindow(large.timelineIndex(), axis.start, axis.end, axis.nsPerPixel(), &plan));
        QVERIFY(!plan.events);
        const std::int64_t width = profiler::summaryLevelWidth(plan.level);
        QVERIFY(width <= axis.nsPerPixel());
        QString error;
        auto window = readLargeRunWindow(large.timelineIndex(), plan, &error);
        QVERIFY2(window, qPrintable(error));
        large.setWindow(window);
        std::int64_t counted = 0;
        for (const DrawItem& d : drawAll(large, axis)) {
            QVERIFY(d.isSummary());
            counted += d.count;
        }
        // Every event of the buckets wholly inside the view is counted; nothing starting a bucket and the longest
        // span (1 ms) before the view, or after it, is.
        auto startingIn = [&](std::int64_t from, std::int64_t to) {
            std::int64_t n = 0;
            for (const auto& e : m_trace->events)
                n += e.kind != profiler::EventKind::Iteration && e.start >= from && e.start < to;
            return n;
        };
        const std::int64_t inner = startingIn((axis.start / width + 1) * width, axis.end);
        const std::int64_t outer = startingIn((axis.start - test::kLayerNs) / width * width - width, axis.end);
        QVERIFY2(counted >= inner && counted <= outer,
                 qPrintable(QStringLiteral("%1 not in [%2, %3]").arg(counted).arg(inner).arg(outer)));
        QVERIFY(inner > 0);
    }

    void backgroundReadArrives()
    {
        TimelineModel large;
        QAbstractItemModelTester tester(&large, QAbstractItemModelTester::FailureReportingMode::QtTest);
        LargeRunLimits limits;
        limits.residentCells = 1;
        large.setIndex(buildLargeRunIndex(open(limits)));
        QSignalSpy changed(&large, &TimelineModel::windowChanged);
        const std::int64_t mid = (large.startTime() + large.endTime()) / 2;
        const TimeAxis axis = axisOver(mid, mid + 5'000'000);
        large.requestRange(axis.start, axis.end, axis.nsPerPixel());
        large.requestRange(axis.start, axis.end, axis.nsPerPixel());  // the same again: no second read
        QVERIFY(large.isReadingWindow());
        QTRY_COMPARE_WITH_TIMEOUT(changed.count(), 1, 10'000);
        QVERIFY(!large.isReadingWindow());
        QVERIFY(!drawAll(large, axis).empty());
        for (const DrawItem& d : drawAll(large, axis))
            QVERIFY(!d.isSummary());
        large.requestRange(axis.start, axis.end, axis.nsPerPixel());  // has it: nothing to read
        QVERIFY(!large.isReadingWindow());
    }

    void loaderOpensLargeRunsByOutline()
    {
        LargeRunLimits limits;
        limits.wholeRunEvents = 100;
        const ProjectSnapshot large = readProjectSnapshot(m_path, 0, limits);
        QVERIFY2(large.error.isEmpty(), qPrintable(large.error));
        QVERIFY(large.index && large.index->large);
        QCOMPARE(large.index->trace->events.size(), std::size_t(2 * kIterations));
        const ProjectSnapshot whole = readProjectSnapshot(m_path, 0);
        QVERIFY(whole.index && !whole.index->large);
        QCOMPARE(whole.trace->events.size(), m_trace->events.size());
    }

    // Find by name in the project file gives the event the whole run's in-memory search gives, both ways, from
    // anywhere (wrapping around), and nothing for a name no event has (LIKE's wildcards match only themselves).
    void storedFindMatchesWholeRun_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("forward");
        QTest::addColumn<int>("fromPercent");  // where the search starts, in percent of the run's span
        QTest::newRow("next, any case, from the start") << "FC3 BACK" << true << 0;
        QTest::newRow("next from the middle") << "fc2 backward" << true << 50;
        QTest::newRow("previous from the middle") << "fc2 backward" << false << 50;
        QTest::newRow("next wraps around at the end") << "fc4" << true << 100;
        QTest::newRow("previous wraps around at the start") << "allreduce fc1" << false << 0;
        QTest::newRow("a comm piece, backward from the end") << "piece" << false << 100;
        QTest::newRow("no such name") << "no such layer" << true << 30;
        QTest::newRow("wildcards are literal") << "fc%back" << true << 0;
        QTest::newRow("underscore is literal") << "fc_" << true << 0;
    }
    void storedFindMatchesWholeRun()
    {
        QFETCH(QString, text);
        QFETCH(bool, forward);
        QFETCH(int, fromPercent);
        TimelineModel whole;
        whole.setTrace(m_trace);
        const auto run = open({});
        QVERIFY(run);
        const std::int64_t from = whole.startTime() + (whole.endTime() - whole.startTime()) * fromPercent / 100;
        const int expected = whole.find(text, from, forward);
        QString error;
        const auto found = findInLargeRun(*run, text, from, forward, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(found.has_value(), expected >= 0);
        if (!found)
            return;
        const profiler::TraceEvent& e = m_trace->events[static_cast<std::size_t>(expected)];
        QCOMPARE(found->start, e.start);
        QCOMPARE(found->track, e.track);
        QCOMPARE(found->name, e.name);
    }

    void missingProjectIsAnError()
    {
        QString error;
        QVERIFY(!openLargeRun(m_dir.filePath(QStringLiteral("nope.pacer")), 0, &error));
        QVERIFY(error.contains(QLatin1String("no such file")));
        QVERIFY(!openLargeRun(m_path, 99, &error));
        QVERIFY2(error.contains(QLatin1String("no run with id 99")), qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(TestLargeRun)
#include "tst_large_run.moc"
