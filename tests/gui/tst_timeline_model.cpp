// The timeline model: lanes, cutting to the visible range, folding sub-pixel spans, hit testing, details;
// and the project tree model's structure.
#include "app/gui/models/event_style.h"
#include "app/gui/models/project_tree_model.h"
#include "app/gui/models/timeline_model.h"
#include "tests/gui/trace_fixture.h"

#include <QAbstractItemModelTester>
#include <QTest>

using namespace pacer::gui;

namespace {

int laneNamed(const TimelineModel& model, const QString& name)
{
    return static_cast<int>(model.laneNames().indexOf(name));
}

}  // namespace

class TestTimelineModel : public QObject {
    Q_OBJECT
private slots:
    void lanesInRankOrder()
    {
        TimelineModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTrace(test::makeTwoRankTrace());
        QCOMPARE(model.laneNames(), (QStringList{"rank 0 compute", "rank 0 comm", "rank 1 compute", "rank 1 comm"}));
        QCOMPARE(model.data(model.index(2), TimelineModel::RankRole).toInt(), 1);
        // 2 iterations × (4 forward + 4 backward) on compute; iteration markers go to the ruler instead.
        QCOMPARE(model.data(model.index(0), TimelineModel::EventCountRole).toInt(), 16);
        QCOMPARE(model.data(model.index(1), TimelineModel::EventCountRole).toInt(), 16 + test::kBurst);
        QCOMPARE(model.iterations().size(), std::size_t(2));
        QCOMPARE(model.startTime(), qint64(0));
        QCOMPARE(model.minPriority(), 0);
        QCOMPARE(model.maxPriority(), test::kLayers - 1);
        model.setTrace(nullptr);
        QCOMPARE(model.laneCount(), 0);
    }

    void lanesOrderStreamsAfterComm()
    {
        using pacer::profiler::TrackKind;
        auto run = std::make_shared<pacer::profiler::RunTrace>();
        // Unnamed tracks get names from rank, kind and id; streams come after compute and comm of their rank.
        run->tracks = {{9, 1, TrackKind::CudaStream, {}}, {4, 0, TrackKind::CudaStream, {}}, {1, 0, TrackKind::Comm, {}},
                       {0, 0, TrackKind::Compute, {}},    {3, 0, TrackKind::CudaStream, {}}, {2, 1, TrackKind::Compute, {}},
                       {5, 2, TrackKind::Other, {}}};
        TimelineModel model;
        model.setTrace(run);
        QCOMPARE(model.laneNames(), (QStringList{"rank 0 compute", "rank 0 comm", "rank 0 stream 3", "rank 0 stream 4",
                                                 "rank 1 compute", "rank 1 stream 9", "rank 2 track 5"}));
        QCOMPARE(model.startTime(), qint64(0));  // no events: an empty but valid range
        QCOMPARE(model.endTime(), qint64(1));
    }

    // A self-tuned run recorded with a lane for every channel it could have chosen: a rank's extra channels that
    // carry nothing get no lane; the main comm lane stays even when idle (rank 1 sent nothing here).
    void idleChannelLanesAreLeftOut()
    {
        using pacer::profiler::TrackKind;
        auto run = test::makeTwoRankTrace();  // tracks 0..3: compute and comm of ranks 0 and 1
        run->tracks.push_back({4, 0, TrackKind::Comm, "rank 0 comm ch1"});
        run->tracks.push_back({5, 0, TrackKind::Comm, "rank 0 comm ch2"});
        run->tracks.push_back({6, 1, TrackKind::Comm, "rank 1 comm ch1"});
        pacer::profiler::TraceEvent unit;
        unit.kind = pacer::profiler::EventKind::AllReduce;
        unit.track = 4;
        unit.start = 100;
        unit.end = 200;
        unit.name = "allreduce fused";
        run->events.push_back(unit);
        std::erase_if(run->events, [](const pacer::profiler::TraceEvent& e) { return e.track == 3; });
        TimelineModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTrace(run);
        QCOMPARE(model.laneNames(), (QStringList{"rank 0 compute", "rank 0 comm", "rank 0 comm ch1", "rank 1 compute",
                                                 "rank 1 comm"}));
        QCOMPARE(model.data(model.index(2), TimelineModel::EventCountRole).toInt(), 1);
        // Windows of a large run keep every lane they are given (the outline already left the idle ones out).
        QCOMPARE(buildTimelineIndex(run, IdleChannels::Keep)->lanes.size(), std::size_t(7));
    }

    void cutsToVisibleRange()
    {
        TimelineModel model;
        model.setTrace(test::makeTwoRankTrace());
        const int lane = laneNamed(model, "rank 0 compute");
        // 2.5 ms .. 5.5 ms of iteration 0: forward fc3 (2-3), fc4 (3-4), backward fc4 (4-5), fc3 (5-6).
        const TimeAxis axis{2'500'000, 5'500'000, 100.0, 300.0};
        std::vector<DrawItem> items;
        model.appendDrawItems(lane, axis, 3.0, items);
        QCOMPARE(items.size(), std::size_t(4));
        QCOMPARE(model.eventName(model.lane(lane).events[items[0].first]), QStringLiteral("fc3"));
        QCOMPARE(model.eventName(model.lane(lane).events[items[3].first]), QStringLiteral("fc3 backward"));
        // Partly visible spans are clipped to the axis (within its small margin), fully visible ones exact.
        QVERIFY(items[0].x0 >= 98.0);
        QCOMPARE(items[1].x0, 150.0);
        QCOMPARE(items[1].x1, 250.0);
        QVERIFY(items[3].x1 <= 402.0);
        // Appending does not clear: the caller owns and reuses the vector.
        model.appendDrawItems(lane, axis, 3.0, items);
        QCOMPARE(items.size(), std::size_t(8));
    }

    void foldsSubPixelSpans_data()
    {
        QTest::addColumn<qint64>("visibleStart");
        QTest::addColumn<qint64>("visibleEnd");
        QTest::addColumn<double>("width");
        QTest::addColumn<int>("burstItems");
        QTest::addColumn<int>("largestCount");
        const qint64 burst = 2 * 10'000'000 + 100'000;  // where the fixture puts its 40 tiny pieces
        // Whole run on 1000 px: 40 µs of pieces is 2 px, one folded item.
        QTest::newRow("zoomed out") << qint64(0) << qint64(20'200'000) << 1000.0 << 1 << test::kBurst;
        // 400 µs on 1000 px: pieces 1.25 px wide, 2.5 px apart: closer than 3 px, so they fold, but a fold
        // takes only pieces starting within 12 px of its own start: 5 per fold, 8 folds.
        QTest::newRow("near") << burst - 100'000 << burst + 300'000 << 1000.0 << 8 << 5;
        // 80 µs on 1000 px: each piece is 6.25 px wide and stands alone.
        QTest::newRow("zoomed in") << burst - 20'000 << burst + 60'000 << 1000.0 << test::kBurst << 1;
        // Narrow window over half the burst only: the fold covers just what is visible.
        QTest::newRow("half visible") << burst + 20'000 << burst + 4'000'000 << 1000.0 << 1 << 20;
    }
    void foldsSubPixelSpans()
    {
        QFETCH(qint64, visibleStart);
        QFETCH(qint64, visibleEnd);
        QFETCH(double, width);
        QFETCH(int, burstItems);
        QFETCH(int, largestCount);
        TimelineModel model;
        model.setTrace(test::makeTwoRankTrace());
        const int lane = laneNamed(model, "rank 1 comm");
        std::vector<DrawItem> items;
        model.appendDrawItems(lane, TimeAxis{visibleStart, visibleEnd, 0.0, width}, 3.0, items);
        int burst = 0;
        int largest = 0;
        int total = 0;
        for (const DrawItem& d : items) {
            total += d.count;
            QVERIFY(d.x1 - d.x0 >= 1.0);  // nothing thinner than a pixel reaches the painter
            if (model.eventName(model.lane(lane).events[d.first]) == QStringLiteral("allreduce piece")) {
                ++burst;
                largest = std::max(largest, d.count);
                if (d.count > 1)
                    QCOMPARE(d.colour, foldedColour(eventColour(model.trace()->events[model.lane(lane).events[d.first]],
                                                               model.minPriority(), model.maxPriority())));
            }
        }
        QCOMPARE(burst, burstItems);
        QCOMPARE(largest, largestCount);
        QVERIFY(total <= static_cast<int>(model.lane(lane).events.size()));
    }

    void hitTestsEvents_data()
    {
        QTest::addColumn<QString>("lane");
        QTest::addColumn<qint64>("time");
        QTest::addColumn<qint64>("slack");
        QTest::addColumn<QString>("name");
        QTest::newRow("inside forward") << "rank 0 compute" << qint64(1'500'000) << qint64(0) << "fc2";
        QTest::newRow("boundary goes to the later span") << "rank 0 compute" << qint64(2'000'000) << qint64(0) << "fc3";
        QTest::newRow("backward") << "rank 1 compute" << qint64(4'100'000) << qint64(0) << "fc4 backward";
        QTest::newRow("segment") << "rank 0 comm" << qint64(5'700'000) << qint64(0) << "allreduce fc4.weight[1]";
        QTest::newRow("gap without slack") << "rank 0 comm" << qint64(1'000'000) << qint64(0) << "";
        QTest::newRow("near with slack") << "rank 0 comm" << qint64(4'990'000) << qint64(20'000) << "allreduce fc4.weight[0]";
    }
    void hitTestsEvents()
    {
        QFETCH(QString, lane);
        QFETCH(qint64, time);
        QFETCH(qint64, slack);
        QFETCH(QString, name);
        TimelineModel model;
        model.setTrace(test::makeTwoRankTrace());
        const int event = model.eventAt(laneNamed(model, lane), time, slack);
        QCOMPARE(event >= 0 ? model.eventName(event) : QString(), name);
    }

    void longestSpanOverAnyRange()
    {
        TimelineModel model;
        model.setTrace(test::makeTwoRankTrace(3));
        for (int laneIndex = 0; laneIndex < model.laneCount(); ++laneIndex) {
            const auto& lane = model.lane(laneIndex);
            const int n = static_cast<int>(lane.events.size());
            for (int a = 0; a < n; ++a) {
                std::int64_t expected = 0;
                for (int b = a + 1; b <= n; ++b) {
                    const auto& e = model.trace()->events[static_cast<std::size_t>(lane.events[b - 1])];
                    expected = std::max(expected, e.end - e.start);
                    QCOMPARE(lane.longestIn(a, b), expected);
                }
            }
        }
    }

    void detailsNameTheSegment()
    {
        TimelineModel model;
        model.setTrace(test::makeTwoRankTrace());
        const int event = model.eventAt(laneNamed(model, "rank 0 comm"), 5'700'000, 0);
        QVERIFY(event >= 0);
        const QString details = model.eventDetails(event);
        QVERIFY2(details.contains("fc4.weight (#3)"), qPrintable(details));
        QVERIFY2(details.contains("512.0 KiB"), qPrintable(details));
        QVERIFY2(details.contains("<td>1</td>"), qPrintable(details));  // segment 1
        QVERIFY2(details.contains("priority"), qPrintable(details));
        QVERIFY2(details.contains("all-reduce"), qPrintable(details));
    }

    void priorityColoursDiffer()
    {
        pacer::profiler::TraceEvent urgent;
        urgent.kind = pacer::profiler::EventKind::AllReduce;
        urgent.priority = 0;
        pacer::profiler::TraceEvent late = urgent;
        late.priority = 3;
        QVERIFY(eventColour(urgent, 0, 3) != eventColour(late, 0, 3));
        QCOMPARE(eventColour(urgent, 0, 3), priorityColour(0.0));
        QCOMPARE(eventColour(late, 0, 3), priorityColour(1.0));
        pacer::profiler::TraceEvent forward;
        QCOMPARE(eventColour(forward, 0, 3), kindColour(pacer::profiler::EventKind::Forward));
    }

    void projectTree()
    {
        ProjectTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        ProjectOverview overview;
        overview.path = "/tmp/x.pacer";
        overview.experiment = "mlp-2rank";
        overview.runs = {{1, "first", "fifo", 2, 3, 0, {}, {}},
                         {2, "", "pace", 2, 3, 1 << 20, {}, {}},
                         {3, "pace 1 MiB", "pace", 2, 3, 0, {}, {}}};
        overview.schedules = {{5, "pace 1 MiB", "pace"}};
        model.setOverview(overview);
        QCOMPARE(model.rowCount(), 1);
        const QModelIndex experiment = model.index(0, 0);
        QCOMPARE(experiment.data().toString(), QStringLiteral("mlp-2rank"));
        const QModelIndex runs = model.index(0, 0, experiment);
        QCOMPARE(model.rowCount(runs), 3);
        // Newest first; the policy is shown once, and alone when there is no label.
        QCOMPARE(model.index(0, 0, runs).data().toString(), QStringLiteral("#3 pace 1 MiB"));
        QCOMPARE(model.index(1, 0, runs).data().toString(), QStringLiteral("#2 pace"));
        QCOMPARE(model.index(2, 0, runs).data().toString(), QStringLiteral("#1 first · fifo"));
        QCOMPARE(model.index(2, 0, runs).data(ProjectTreeModel::RunIdRole).toLongLong(), qint64(1));
        QCOMPARE(model.runIndex(1), model.index(2, 0, runs));
        QVERIFY(model.index(0, 0, runs).data(ProjectTreeModel::TunedRole).toString().isEmpty());
        // A run that tuned itself says so, and its tooltip gives what it chose instead of the experiment's segment.
        overview.runs.push_back(
            {4, "", "pace", 2, 3, 4 << 20, "plan order, 2 channels, 1 MiB segments, 3 fusion groups", {}});
        model.setOverview(overview);
        const QModelIndex tuned = model.index(0, 0, model.index(0, 0, model.index(0, 0)));
        QCOMPARE(tuned.data().toString(), QStringLiteral("#4 pace (tuned)"));
        QCOMPARE(tuned.data(Qt::ToolTipRole).toString(),
                 QStringLiteral("run 4: policy pace, 2 ranks, 3 iterations, tuned itself: plan order, 2 channels, "
                                "1 MiB segments, 3 fusion groups"));
        QCOMPARE(tuned.data(ProjectTreeModel::TunedRole).toString(), overview.runs.back().tuned);
        // Where the run recorded how its shared-memory chunks were written, the tooltip's second line says so.
        overview.runs.back().slotStores = "shared memory: streaming stores for 40% of 1280 chunks";
        model.setOverview(overview);
        QCOMPARE(model.index(0, 0, model.index(0, 0, model.index(0, 0))).data(Qt::ToolTipRole).toString(),
                 QStringLiteral("run 4: policy pace, 2 ranks, 3 iterations, tuned itself: plan order, 2 channels, "
                                "1 MiB segments, 3 fusion groups\nshared memory: streaming stores for 40% of 1280 "
                                "chunks"));
        QCOMPARE(model.parent(model.index(0, 0, runs)), runs);
        const QModelIndex schedules = model.index(1, 0, model.index(0, 0));
        QCOMPARE(model.index(0, 0, schedules).data(ProjectTreeModel::ScheduleIdRole).toLongLong(), qint64(5));
    }
};

QTEST_GUILESS_MAIN(TestTimelineModel)
#include "tst_timeline_model.moc"
