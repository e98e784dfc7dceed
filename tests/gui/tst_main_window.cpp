// The GUI in real (offscreen) windows: lanes of a run, (Ctrl+)wheel zoom around the cursor, right-drag to pan,
// W/S/A/D/F, a left drag selecting a range and its table of events by name, find by name, toolbar icons, hover
// tooltips on events and on folded spans, selection, painting colours, and a project that cannot be read.
#include "app/gui/main_window.h"
#include "app/gui/models/event_style.h"
#include "app/gui/models/range_stats_model.h"
#include "app/gui/range_stats_panel.h"
#include "app/gui/models/zoom_state.h"
#include "app/gui/timeline_finder.h"
#include "app/gui/timeline_view.h"
#include "app/gui/models/project_loader.h"
#include "tests/gui/trace_fixture.h"
#include "tests/profiler/analysis_fixture.h"
#include "app/gui/analysis_panel.h"
#include "app/gui/models/analysis_model.h"

#if PACER_GUI_HAVE_STORE
#include "profiler/project.h"
#include "profiler/sqlite_db.h"
#endif

#include <QAbstractItemModelTester>
#include <QAbstractItemView>
#include <QDockWidget>
#include <QLineEdit>
#include <QTableView>
#include <QToolBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>
#include <QWheelEvent>

using namespace pacer::gui;

class TestMainWindow : public QObject {
    Q_OBJECT
private:
    std::unique_ptr<MainWindow> m_window;
    TimelineView* view() const { return m_window->timeline(); }

    // The viewport point at the middle of an event of a lane, by event name.
    QPoint pointOf(const QString& lane, const QString& name) const
    {
        const TimelineModel* model = view()->model();
        const int laneIndex = static_cast<int>(model->laneNames().indexOf(lane));
        for (int event : model->lane(laneIndex).events) {
            if (model->eventName(event) != name)
                continue;
            const auto& e = model->trace()->events[static_cast<std::size_t>(event)];
            const TimeAxis axis = view()->axis();
            return {static_cast<int>((axis.toX(e.start) + axis.toX(e.end)) / 2), view()->laneRect(laneIndex).center().y()};
        }
        return {-1, -1};
    }

    void moveWith(Qt::MouseButton button, QPoint pos)
    {
        // QTest::mouseMove carries no buttons; a real drag does.
        QMouseEvent move(QEvent::MouseMove, QPointF(pos), QPointF(view()->viewport()->mapToGlobal(pos)), Qt::NoButton,
                         button, Qt::NoModifier);
        QCoreApplication::sendEvent(view()->viewport(), &move);
    }

    void sendWheel(QPoint pos, int delta, Qt::KeyboardModifiers modifiers = Qt::NoModifier)
    {
        QWheelEvent wheel(QPointF(pos), QPointF(view()->viewport()->mapToGlobal(pos)), QPoint(), QPoint(0, delta),
                          Qt::NoButton, modifiers, Qt::NoScrollPhase, false);
        QCoreApplication::sendEvent(view()->viewport(), &wheel);
    }

private slots:
    void initTestCase()
    {
#ifdef PACER_WORKER_PATH
        qputenv("PACER_WORKER", PACER_WORKER_PATH);  // the launcher finds the worker of this build
#endif
    }

    void init()
    {
        m_window = std::make_unique<MainWindow>();
        m_window->resize(1200, 500);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        ProjectOverview overview;
        overview.experiment = QStringLiteral("fixture");
        overview.runs = {
            {7, QStringLiteral("pace 1 MiB"), QStringLiteral("pace"), 2, 2, 1 << 20, QString(), QString()}};
        m_window->showRun(test::makeTwoRankTrace(), overview);
    }
    void cleanup() { m_window.reset(); }

    void showsOneLanePerTrack()
    {
        QCOMPARE(view()->model()->laneNames(),
                 (QStringList{"rank 0 compute", "rank 0 comm", "rank 1 compute", "rank 1 comm"}));
        QCOMPARE(view()->zoom()->visibleStart(), view()->model()->startTime());
        QCOMPARE(view()->zoom()->visibleEnd(), view()->model()->endTime());
        QCOMPARE(m_window->projectModel()->runIndex(7).isValid(), true);
    }

    void wheelZoomsAroundCursor_data()
    {
        QTest::addColumn<double>("fraction");  // where along the time axis the cursor is
        QTest::addColumn<int>("delta");
        QTest::addColumn<bool>("ctrl");
        QTest::newRow("in at a third") << 1.0 / 3 << 120 << false;
        QTest::newRow("in fast near the end") << 0.9 << 480 << false;
        QTest::newRow("in at the start") << 0.0 << 240 << false;
        QTest::newRow("ctrl, in at a third") << 1.0 / 3 << 120 << true;
        QTest::newRow("ctrl, in near the end") << 0.8 << 360 << true;
    }
    void wheelZoomsAroundCursor()
    {
        QFETCH(double, fraction);
        QFETCH(int, delta);
        QFETCH(bool, ctrl);
        const Qt::KeyboardModifiers modifiers = ctrl ? Qt::ControlModifier : Qt::NoModifier;
        QSignalSpy spy(view()->zoom(), &ZoomState::visibleRangeChanged);
        const TimeAxis before = view()->axis();
        const QPoint pos(static_cast<int>(before.left + fraction * before.width), view()->laneRect(0).center().y());
        const std::int64_t anchor = before.toTime(pos.x());
        sendWheel(pos, delta, modifiers);
        QCOMPARE(spy.count(), 1);
        const TimeAxis after = view()->axis();
        QVERIFY(after.length() < before.length());
        QVERIFY2(std::abs(after.toX(anchor) - pos.x()) < 1.0, qPrintable(QString::number(after.toX(anchor))));
        // And back out: the whole run again.
        sendWheel(pos, -delta * 4, modifiers);
        QCOMPARE(view()->axis().length(), before.length());
    }

    void rightDragPans_data()
    {
        QTest::addColumn<int>("button");
        QTest::newRow("right") << int(Qt::RightButton);
        QTest::newRow("middle") << int(Qt::MiddleButton);
    }
    void rightDragPans()
    {
        const auto button = static_cast<Qt::MouseButton>(QTest::currentDataTag() == QByteArray("right") ? Qt::RightButton
                                                                                                       : Qt::MiddleButton);
        const TimeAxis full = view()->axis();
        view()->zoom()->zoomAround((full.start + full.end) / 2, 4.0);
        const TimeAxis before = view()->axis();
        QSignalSpy spy(view()->zoom(), &ZoomState::visibleRangeChanged);
        const QPoint from(700, view()->laneRect(1).center().y());
        QTest::mousePress(view()->viewport(), button, Qt::NoModifier, from);
        moveWith(button, from + QPoint(100, 0));
        moveWith(button, from + QPoint(200, 0));
        QTest::mouseRelease(view()->viewport(), button, Qt::NoModifier, from + QPoint(200, 0));
        QVERIFY(spy.count() >= 1);
        const TimeAxis after = view()->axis();
        // Dragging right by 200 px shows earlier time: the view moved 200 px worth of nanoseconds.
        QCOMPARE(after.length(), before.length());
        QVERIFY2(std::abs((before.start - after.start) - std::llround(200 * before.nsPerPixel())) <= 1,
                 qPrintable(QStringLiteral("%1 -> %2").arg(before.start).arg(after.start)));
        QCOMPARE(view()->selectedEvent(), -1);  // a drag is not a click
        QVERIFY(!view()->hasRange());           // nor a range
    }

    // W/S zoom by 1.5 around the centre (the cursor is away), A/D pan by an eighth of the view, F fits the range.
    void keysMoveTheView_data()
    {
        QTest::addColumn<int>("key");
        QTest::addColumn<double>("lengthFactor");  // visible length after / before
        QTest::addColumn<double>("shift");         // (start after - start before) / length before
        QTest::newRow("W zooms in") << int(Qt::Key_W) << 1 / 1.5 << (1 - 1 / 1.5) / 2;
        QTest::newRow("S zooms out") << int(Qt::Key_S) << 1.5 << (1 - 1.5) / 2;
        QTest::newRow("A pans left") << int(Qt::Key_A) << 1.0 << -1.0 / 8;
        QTest::newRow("D pans right") << int(Qt::Key_D) << 1.0 << 1.0 / 8;
    }
    void keysMoveTheView()
    {
        QFETCH(int, key);
        QFETCH(double, lengthFactor);
        QFETCH(double, shift);
        const TimeAxis full = view()->axis();
        // From the middle third, so that every key has room to act.
        view()->zoom()->setVisibleRange(full.start + full.length() / 3, full.start + 2 * full.length() / 3);
        const TimeAxis before = view()->axis();
        QTest::mouseMove(view()->viewport(), QPoint(5, 5));  // over the header: no cursor anchor
        view()->setFocus();
        QTest::keyClick(view(), static_cast<Qt::Key>(key));
        const TimeAxis after = view()->axis();
        QVERIFY2(std::abs(after.length() - lengthFactor * before.length()) <= 2,
                 qPrintable(QStringLiteral("%1 vs %2").arg(after.length()).arg(lengthFactor * before.length())));
        QVERIFY2(std::abs((after.start - before.start) - shift * before.length()) <= 2,
                 qPrintable(QStringLiteral("%1 vs %2").arg(after.start - before.start).arg(shift * before.length())));
    }

    void fFitsTheSelection()
    {
        view()->setFocus();
        view()->selectRange(3'500'000, 5'250'000);
        QTest::keyClick(view(), Qt::Key_F);
        QCOMPARE(view()->zoom()->visibleStart(), qint64(3'500'000));
        QCOMPARE(view()->zoom()->visibleEnd(), qint64(5'250'000));
        QTest::keyClick(view(), Qt::Key_Escape);  // no range, no event: F shows the whole run
        QVERIFY(!view()->hasRange());
        QTest::keyClick(view(), Qt::Key_F);
        QVERIFY(!view()->zoom()->isZoomed());
    }

    // A left drag selects the range under it and fills the table; the dock appears.
    void leftDragSelectsRange()
    {
        QSignalSpy spy(view(), &TimelineView::rangeSelected);
        const TimeAxis a = view()->axis();
        const int y = view()->laneRect(0).center().y();
        const QPoint from(static_cast<int>(a.toX(2'500'000)), y), to(static_cast<int>(a.toX(6'500'000)), y);
        QTest::mousePress(view()->viewport(), Qt::LeftButton, Qt::NoModifier, to);  // right to left works too
        moveWith(Qt::LeftButton, (from + to) / 2);
        moveWith(Qt::LeftButton, from);
        QTest::mouseRelease(view()->viewport(), Qt::LeftButton, Qt::NoModifier, from);
        QCOMPARE(spy.count(), 1);
        QVERIFY(view()->hasRange());
        QVERIFY(std::abs(view()->rangeStart() - 2'500'000) <= a.nsPerPixel());
        QVERIFY(std::abs(view()->rangeEnd() - 6'500'000) <= a.nsPerPixel());
        QVERIFY(!view()->zoom()->isZoomed());  // selecting does not pan
        auto* dock = m_window->findChild<QDockWidget*>(QStringLiteral("rangeStatsDock"));
        QVERIFY(dock && dock->isVisible());
        QVERIFY(m_window->findChild<RangeStatsPanel*>()->model()->rowCount() > 0);
    }

    // [3.5 ms, 5.25 ms) on both ranks, counted by hand from the fixture (every span 1 ms, segments 0.5 ms; an
    // event overlapping the range counts whole): fc4 [3,4), fc4 backward [4,5), fc3 backward [5,6) and
    // fc4.weight's first segment [5,5.5) on each of the two ranks.
    void rangeTableIsHandCounted()
    {
        auto* panel = m_window->findChild<RangeStatsPanel*>();
        QAbstractItemModelTester tester(panel->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        view()->selectRange(3'500'000, 5'250'000);
        const auto& stats = panel->model()->stats();
        const std::vector<std::tuple<QString, qint64, qint64>> expected = {
            {"fc3 backward", 2, 2'000'000}, {"fc4", 2, 2'000'000}, {"fc4 backward", 2, 2'000'000},
            {"allreduce fc4.weight[0]", 2, 1'000'000}};
        QCOMPARE(stats.size(), expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i) {
            QCOMPARE(stats[i].name, std::get<0>(expected[i]));
            QCOMPARE(stats[i].count, std::get<1>(expected[i]));
            QCOMPARE(stats[i].totalNs, std::get<2>(expected[i]));
            QCOMPARE(stats[i].meanNs(), std::get<2>(expected[i]) / 2.0);
        }
        // What the table shows, sorted by total (the view's proxy): names, counts and formatted times.
        QAbstractItemModel* shown = panel->table()->model();
        QCOMPARE(shown->rowCount(), 4);
        QCOMPARE(shown->index(3, RangeStatsModel::NameColumn).data().toString(), QStringLiteral("allreduce fc4.weight[0]"));
        QCOMPARE(shown->index(3, RangeStatsModel::CountColumn).data().toLongLong(), 2);
        QCOMPARE(shown->index(3, RangeStatsModel::TotalColumn).data().toString(), formatDuration(1'000'000));
        QCOMPARE(shown->index(3, RangeStatsModel::MeanColumn).data().toString(), formatDuration(500'000));
        QVERIFY2(panel->summary().contains(QLatin1String("8 events")), qPrintable(panel->summary()));
        view()->selectRange(0, 0);
        QCOMPARE(panel->model()->rowCount(), 0);
    }

    void findByName()
    {
        auto* find = m_window->findChild<QLineEdit*>(QStringLiteral("findField"));
        QVERIFY(find);
        find->setText(QStringLiteral("FC3 BACK"));  // any case, part of the name
        QTest::keyClick(find, Qt::Key_Return);
        const int first = view()->selectedEvent();
        QVERIFY(first >= 0);
        QCOMPARE(view()->model()->eventName(first), QStringLiteral("fc3 backward"));
        const auto& e = view()->model()->trace()->events[static_cast<std::size_t>(first)];
        QVERIFY(view()->zoom()->visibleStart() <= e.start && e.end <= view()->zoom()->visibleEnd());
        QTest::keyClick(find, Qt::Key_Return);  // the next one, later
        const int second = view()->selectedEvent();
        QVERIFY(second != first);
        QVERIFY(view()->model()->trace()->events[static_cast<std::size_t>(second)].start >= e.start);
        find->setText(QStringLiteral("no such layer"));
        QTest::keyClick(find, Qt::Key_Return);
        QCOMPARE(view()->selectedEvent(), second);  // nothing found: nothing changes
        QVERIFY(!find->toolTip().isEmpty());
    }

    // A run too large to hold (opened by the loader's threshold, lowered so that the test stays small) is searched
    // in its project file: Enter goes to the next match, Shift+Enter to the previous, and the match is selected
    // once the window that holds it has been read.
    void findByNameOnALargeRun()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("large.pacer"));
        auto trace = test::makeTwoRankTrace(40);
        QVERIFY(pacer::profiler::writeRun(path.toStdString(), *trace, pacer::profiler::RunInfo{}).ok());
        LargeRunLimits limits;
        limits.wholeRunEvents = 100;
        const ProjectSnapshot snapshot = readProjectSnapshot(path, 0, limits);
        QVERIFY(snapshot.index && snapshot.index->large);
        m_window->showRun(snapshot.index, snapshot.overview);
        QVERIFY(view()->model()->isLarge());
        auto* finder = view()->findChild<TimelineFinder*>();
        auto* find = m_window->findChild<QLineEdit*>(QStringLiteral("findField"));
        QVERIFY(finder && find);
        QSignalSpy finished(finder, &TimelineFinder::finished);
        auto findAndWait = [&](Qt::KeyboardModifiers modifiers) {
            finished.clear();
            QTest::keyClick(find, Qt::Key_Return, modifiers);
            QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 10000);
        };
        find->setText(QStringLiteral("FC3 BACK"));
        findAndWait(Qt::NoModifier);
        QVERIFY(finished.at(0).at(0).toBool());
        const pacer::profiler::TraceEvent first = *finder->match();
        QCOMPARE(first.name, std::string("fc3 backward"));
        QVERIFY(view()->zoom()->visibleStart() <= first.start && first.end <= view()->zoom()->visibleEnd());
        QTRY_VERIFY_WITH_TIMEOUT(view()->selectedEvent() >= 0, 10000);  // a window holding it arrived
        QCOMPARE(view()->model()->eventName(view()->selectedEvent()), QStringLiteral("fc3 backward"));

        findAndWait(Qt::NoModifier);  // the next one, later
        const pacer::profiler::TraceEvent second = *finder->match();
        QVERIFY(second.start > first.start);
        findAndWait(Qt::ShiftModifier);  // and back
        QCOMPARE(finder->match()->start, first.start);

        find->setText(QStringLiteral("no such layer"));
        findAndWait(Qt::NoModifier);
        QVERIFY(!finished.at(0).at(0).toBool());
        QCOMPARE(finder->match()->start, first.start);  // nothing found: nothing changes
        QVERIFY(!find->toolTip().isEmpty());
    }

    // The analysis panel on the hand-timed iteration: the figures worked out in analysis_fixture.h (the same
    // ones tst_analyze reads from pacer-cli analyze --json), and the critical path outlined on the timeline.
    void analysisPanelShowsHandComputedFigures()
    {
        auto* panel = m_window->findChild<AnalysisPanel*>();
        QVERIFY(panel);
        QAbstractItemModelTester tester(panel->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        m_window->findChild<QDockWidget*>(QStringLiteral("analysisDock"))->show();  // a hidden panel analyses nothing
        m_window->showRun(std::make_shared<const pacer::profiler::RunTrace>(pacer::profiler::testing::handTimedIteration()),
                          ProjectOverview{});
        const AnalysisModel* model = panel->model();
        QTRY_COMPARE_WITH_TIMEOUT(model->rowCount(), 2, 10000);  // analysed off the GUI thread
        auto value = [model](int row, int column) { return model->index(row, column).data(AnalysisModel::ValueRole); };
        QCOMPARE(value(0, AnalysisModel::ComputeColumn).toLongLong(), 70'000);
        QCOMPARE(value(0, AnalysisModel::ExposedCommColumn).toLongLong(), 20'000);
        QCOMPARE(value(0, AnalysisModel::IdleColumn).toLongLong(), 10'000);
        QCOMPARE(value(0, AnalysisModel::OverlapColumn).toDouble(), 50.0);
        QCOMPARE(value(1, AnalysisModel::ComputeColumn).toLongLong(), 80'000);
        QCOMPARE(value(1, AnalysisModel::ExposedCommColumn).toLongLong(), 13'000);
        QCOMPARE(value(1, AnalysisModel::IdleColumn).toLongLong(), 17'000);
        QCOMPARE(value(1, AnalysisModel::OverlapColumn).toDouble(), 100.0 * 18 / 31);
        QCOMPARE(value(1, AnalysisModel::LateStartsColumn).toInt(), 2);
        QVERIFY(model->index(1, AnalysisModel::RankColumn).data().toString().contains(QLatin1String("straggler")));
        QVERIFY2(panel->summary().contains(QLatin1String("Straggler: rank 1")), qPrintable(panel->summary()));
        // The path: F0 F1 B1 B0 on rank 1's compute track (2), AR t0 on its comm track (3), then the optimizer.
        const auto& path = view()->path();
        QCOMPARE(path.size(), std::size_t{6});
        QCOMPARE(path[4].track, 3);
        QCOMPARE(path[4].start, qint64(75'000));
        QCOMPARE(path[5].track, 2);
        QCOMPARE(path[5].end, qint64(100'000));
        m_window->showRun(std::shared_ptr<const pacer::profiler::RunTrace>{}, ProjectOverview{});
        QCOMPARE(model->rowCount(), 0);
        QVERIFY(view()->path().empty());
    }

    void everyToolbarIconLoads()
    {
        auto* bar = m_window->findChild<QToolBar*>(QStringLiteral("mainToolBar"));
        QVERIFY(bar);
        int icons = 0;
        for (QAction* action : bar->actions()) {
            if (action->isSeparator() || action->icon().isNull())
                continue;
            QVERIFY2(!action->icon().pixmap(18, 18).isNull(), qPrintable(action->text()));
            ++icons;
        }
        QCOMPARE(icons, 4);  // open, run, cancel, show whole run
        QVERIFY(!m_window->windowIcon().pixmap(32, 32).isNull());
    }

    void keysZoomPanAndReset()
    {
        view()->setFocus();
        const TimeAxis full = view()->axis();
        QTest::keyClick(view(), Qt::Key_Plus);
        QVERIFY(view()->axis().length() < full.length());
        const TimeAxis zoomed = view()->axis();
        QTest::keyClick(view(), Qt::Key_Right);
        QVERIFY(view()->axis().start > zoomed.start);
        QTest::keyClick(view(), Qt::Key_Home);
        QCOMPARE(view()->axis().start, full.start);
        QCOMPARE(view()->axis().end, full.end);
    }

    void hoverShowsEventDetails()
    {
        QSignalSpy spy(view(), &TimelineView::hoveredEventChanged);
        const QPoint pos = pointOf("rank 0 comm", "allreduce fc4.weight[1]");
        QVERIFY(pos.x() > view()->headerWidth());
        QTest::mouseMove(view()->viewport(), pos);
        QTRY_COMPARE_WITH_TIMEOUT(spy.count(), 1, 2000);
        const int event = spy.first().first().toInt();
        QCOMPARE(view()->model()->eventName(event), QStringLiteral("allreduce fc4.weight[1]"));
        const QString tip = view()->toolTipAt(pos);
        QVERIFY2(tip.contains("fc4.weight (#3)") && tip.contains("512.0 KiB") && tip.contains("priority"), qPrintable(tip));
        QTRY_VERIFY_WITH_TIMEOUT(QToolTip::text().contains("allreduce fc4.weight[1]"), 2000);
        // Off every event: no tooltip, hover cleared.
        QTest::mouseMove(view()->viewport(), QPoint(pos.x(), view()->laneRect(1).bottom() + TimelineView::kLaneGap));
        QTRY_COMPARE_WITH_TIMEOUT(view()->hoveredEvent(), -1, 2000);
    }

    void hoverOnFoldedSpansSummarises()
    {
        // Zoomed out, the 40 tiny pieces at the end of rank 1's comm lane are one folded item.
        const int lane = static_cast<int>(view()->model()->laneNames().indexOf("rank 1 comm"));
        const auto& events = view()->model()->trace()->events;
        const auto& first = events[static_cast<std::size_t>(view()->model()->lane(lane).events.back())];
        const QPoint pos(static_cast<int>(view()->axis().toX(first.start)), view()->laneRect(lane).center().y());
        DrawItem item;
        QVERIFY(view()->drawItemAt(pos, &item));
        QCOMPARE(item.count, test::kBurst);
        QVERIFY2(view()->toolTipAt(pos).contains(QStringLiteral("%1 events folded").arg(test::kBurst)),
                 qPrintable(view()->toolTipAt(pos)));
        // Double-click zooms onto them; then they are separate again.
        QTest::mouseDClick(view()->viewport(), Qt::LeftButton, Qt::NoModifier, pos);
        QVERIFY(view()->axis().length() < 100'000);
        const QPoint zoomed(static_cast<int>(view()->axis().toX((first.start + first.end) / 2)), pos.y());
        QVERIFY(view()->drawItemAt(zoomed, &item));
        QCOMPARE(item.count, 1);
    }

    void clickSelects()
    {
        QSignalSpy spy(view(), &TimelineView::selectedEventChanged);
        const QPoint pos = pointOf("rank 1 compute", "fc2 backward");
        QTest::mouseClick(view()->viewport(), Qt::LeftButton, Qt::NoModifier, pos);
        QCOMPARE(spy.count(), 1);
        QCOMPARE(view()->model()->eventName(view()->selectedEvent()), QStringLiteral("fc2 backward"));
    }

    void paintsKindColours()
    {
        const QImage image = view()->viewport()->grab().toImage();
        if (qEnvironmentVariableIsSet("PACER_GUI_SNAPSHOT")) {  // for looking at it: scripts/screenshot is the real one
            view()->selectEvent(view()->model()->eventAt(3, 5'200'000, 0));
            view()->zoom()->setVisibleRange(3'000'000, 10'500'000);
            QTest::mouseMove(view()->viewport(), pointOf("rank 1 comm", "allreduce fc2.weight[1]"));
            m_window->grab().save(qEnvironmentVariable("PACER_GUI_SNAPSHOT"));
            view()->zoom()->resetZoom();
            view()->selectEvent(-1);
        }
        const qreal dpr = image.devicePixelRatio();
        auto pixel = [&](QPoint p) { return image.pixel(QPoint(int(p.x() * dpr), int(p.y() * dpr))); };
        const QPoint forward = pointOf("rank 0 compute", "fc1") + QPoint(0, 5);  // below the label text
        QCOMPARE(pixel(forward), kindColour(pacer::profiler::EventKind::Forward));
        const QPoint backward = pointOf("rank 1 compute", "fc4 backward") + QPoint(0, 5);
        QCOMPARE(pixel(backward), kindColour(pacer::profiler::EventKind::Backward));
        const QPoint urgent = pointOf("rank 0 comm", "allreduce fc1.weight[0]") + QPoint(0, 5);
        const QPoint late = pointOf("rank 0 comm", "allreduce fc4.weight[0]") + QPoint(0, 5);
        QCOMPARE(pixel(urgent), priorityColour(0.0));
        QCOMPARE(pixel(late), priorityColour(1.0));
    }

    void opensProjectFile()
    {
#if !PACER_GUI_HAVE_STORE
        QSKIP("built without the project store");
#else
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("two-runs.pacer"));
        pacer::profiler::RunInfo info;
        info.label = "fifo baseline";
        info.policy = "fifo";
        info.ranks = 2;
        info.iterations = 1;
        auto first = pacer::profiler::writeRun(path.toStdString(), *test::makeTwoRankTrace(1), info, "simulated");
        QVERIFY2(first.ok(), first.message().c_str());
        info.label = "pace 1 MiB";
        info.policy = "pace";
        info.iterations = 2;
        auto second = pacer::profiler::writeRun(path.toStdString(), *test::makeTwoRankTrace(2), info, "simulated");
        QVERIFY2(second.ok(), second.message().c_str());

        pacer::profiler::SavedSchedule schedule;
        schedule.run_id = second.value();
        schedule.name = "pace 256 KiB";
        schedule.policy = "pace";
        schedule.segment_bytes = 256 * 1024;
        QVERIFY(pacer::profiler::saveSchedule(path.toStdString(), schedule).ok());

        QSignalSpy loaded(m_window.get(), &MainWindow::projectLoaded);
        m_window->openProject(path);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 10'000);
        QCOMPARE(m_window->projectModel()->overview().schedules.size(), std::size_t(1));
        QCOMPARE(m_window->projectModel()->overview().schedules.front().name, QStringLiteral("pace 256 KiB"));
        // The latest run is shown, with the lanes the issue asks for.
        QCOMPARE(loaded.first().at(1).toLongLong(), qint64(second.value()));
        // The schedule editor replays the run at once; its lanes come right under the measured ones.
        QTRY_VERIFY_WITH_TIMEOUT(view()->model()->laneNames().contains("replay compute"), 10'000);
        QCOMPARE(view()->model()->laneNames().mid(0, 4),
                 (QStringList{"rank 0 compute", "rank 0 comm", "rank 1 compute", "rank 1 comm"}));
        QCOMPARE(view()->model()->laneNames().mid(4), (QStringList{"replay compute", "replay comm"}));
        QCOMPARE(view()->model()->iterations().size(), std::size_t(2));  // the measured run's
        QCOMPARE(m_window->projectPath(), path);
        QCOMPARE(m_window->projectModel()->overview().runs.size(), std::size_t(2));

        // Choosing the older run in the tree loads it.
        const QModelIndex older = m_window->projectModel()->runIndex(first.value());
        QVERIFY(older.isValid());
        auto* tree = m_window->findChild<QAbstractItemView*>(QStringLiteral("projectTree"));
        QVERIFY(tree);
        emit tree->activated(older);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, 10'000);
        QCOMPARE(loaded.last().at(1).toLongLong(), qint64(first.value()));
        QCOMPARE(view()->model()->iterations().size(), std::size_t(1));
#endif
    }

    void staleLoadIsDropped()
    {
#if !PACER_GUI_HAVE_STORE
        QSKIP("built without the project store");
#else
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString a = dir.filePath(QStringLiteral("a.pacer"));
        const QString b = dir.filePath(QStringLiteral("b.pacer"));
        pacer::profiler::RunInfo info;
        info.policy = "pace";
        info.ranks = 2;
        QVERIFY(pacer::profiler::writeRun(a.toStdString(), *test::makeTwoRankTrace(3), info).ok());
        QVERIFY(pacer::profiler::writeRun(b.toStdString(), *test::makeTwoRankTrace(1), info).ok());
        QSignalSpy loaded(m_window.get(), &MainWindow::projectLoaded);
        m_window->openProject(a);
        m_window->openProject(b);  // the user changed their mind before a finished loading
        QTRY_VERIFY_WITH_TIMEOUT(!m_window->isLoading(), 10'000);
        QCOMPARE(loaded.count(), 1);
        QCOMPARE(loaded.first().at(0).toString(), b);
        QCOMPARE(view()->model()->iterations().size(), std::size_t(1));
#endif
    }

    void runActionCapturesAndShowsTheNewRun()
    {
#if !PACER_GUI_HAVE_LAUNCHER || !PACER_GUI_HAVE_STORE || !defined(PACER_WORKER_PATH)
        QSKIP("built without the run launcher, the store or pacer-worker");
#else
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString project = dir.filePath(QStringLiteral("mlp-2rank.pacer"));
        QSignalSpy failedOpen(m_window.get(), &MainWindow::projectFailed);
        QSignalSpy loaded(m_window.get(), &MainWindow::projectLoaded);
        QSignalSpy finished(m_window.get(), &MainWindow::runFinished);
        QSignalSpy failed(m_window.get(), &MainWindow::runFailed);
        m_window->setExperiment(QStringLiteral(PACER_SAMPLES_DIR "/experiments/mlp-2rank.json"), project);
        m_window->setRunSettings({QString(), 0, 4});  // the experiment's policy, 4 iterations
        QVERIFY(m_window->runAction()->isEnabled());
        m_window->runAction()->trigger();
        auto* progress = m_window->findChild<QProgressBar*>();
        QVERIFY(progress);
        QVERIFY(progress->isVisible());
        QVERIFY(!m_window->runAction()->isEnabled());
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() + failed.count() > 0, 120'000);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 20'000);
        QCOMPARE(loaded.first().at(1).toLongLong(), finished.first().first().toLongLong());
        QCOMPARE(view()->model()->laneNames().mid(0, 2), (QStringList{"rank 0 compute", "rank 0 comm"}));
        QVERIFY(view()->model()->laneNames().contains("rank 1 comm"));
        QVERIFY(!progress->isVisible());
        QVERIFY(m_window->runAction()->isEnabled());
        QCOMPARE(failedOpen.count(), 0);
#endif
    }

    void cancelStopsTheRun()
    {
#if !PACER_GUI_HAVE_LAUNCHER || !PACER_GUI_HAVE_STORE || !defined(PACER_WORKER_PATH)
        QSKIP("built without the run launcher, the store or pacer-worker");
#else
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        m_window->setExperiment(QStringLiteral(PACER_SAMPLES_DIR "/experiments/mlp-2rank.json"),
                                dir.filePath(QStringLiteral("cancelled.pacer")));
        m_window->setRunSettings({QString(), 0, 1000});  // long enough that Cancel comes first
        QSignalSpy finished(m_window.get(), &MainWindow::runFinished);
        QSignalSpy failed(m_window.get(), &MainWindow::runFailed);
        m_window->runAction()->trigger();
        auto* cancel = m_window->findChild<QPushButton*>(QStringLiteral("cancelRunButton"));
        QVERIFY(cancel && cancel->isVisible());
        QTest::mouseClick(cancel, Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 60'000);
        QVERIFY2(failed.first().first().toString().contains("cancel"), qPrintable(failed.first().first().toString()));
        QCOMPARE(finished.count(), 0);
        QVERIFY(!cancel->isVisible());
        QVERIFY(m_window->runAction()->isEnabled());
        QCOMPARE(view()->model()->laneCount(), 4);  // the run on screen stays
#endif
    }

    void unreadableProjectKeepsCurrentRun_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("reason");  // a word the message must contain, so it says why
        QTest::newRow("text file") << "text" << "not an SQLite file";
        QTest::newRow("missing file") << "missing" << "no such file";
        QTest::newRow("foreign SQLite database") << "foreign" << "not a Pacer project";
        QTest::newRow("newer Pacer project") << "newer" << "newer";
    }
    void unreadableProjectKeepsCurrentRun()
    {
#if !PACER_GUI_HAVE_STORE
        QSKIP("built without the project store");
#else
        QFETCH(QString, kind);
        QFETCH(QString, reason);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("project.pacer"));
        const std::string file = path.toStdString();
        if (kind == "text") {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("this is a text file, not an SQLite database\n");
        } else if (kind == "foreign") {
            auto db = pacer::profiler::sql::Db::open(file, pacer::profiler::sql::Db::Mode::Create);
            QVERIFY(db.ok());
            QVERIFY(db.value()->exec("CREATE TABLE photos(id INTEGER PRIMARY KEY, data BLOB)").ok());
        } else if (kind == "newer") {
            pacer::profiler::RunInfo info;
            info.policy = "pace";
            QVERIFY(pacer::profiler::writeRun(file, *test::makeTwoRankTrace(1), info).ok());
            auto db = pacer::profiler::sql::Db::open(file, pacer::profiler::sql::Db::Mode::ReadWrite);
            QVERIFY(db.ok());
            QVERIFY(db.value()->exec("PRAGMA user_version = 999").ok());
        }
        QByteArray before;
        if (QFile f(path); f.open(QIODevice::ReadOnly))
            before = f.readAll();

        QSignalSpy failed(m_window.get(), &MainWindow::projectFailed);
        QSignalSpy loaded(m_window.get(), &MainWindow::projectLoaded);
        m_window->openProject(path);
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 10'000);
        QCOMPARE(failed.first().at(0).toString(), path);
        const QString message = failed.first().at(1).toString();
        QVERIFY(!message.isEmpty());
        QVERIFY2(message.contains(reason, Qt::CaseInsensitive), qPrintable(message));
        QCOMPARE(loaded.count(), 0);
        // The run on screen is still there, the file is as it was, and the user got a message box saying why.
        QCOMPARE(view()->model()->laneCount(), 4);
        if (QFile f(path); f.open(QIODevice::ReadOnly))
            QCOMPARE(f.readAll(), before);
        else
            QCOMPARE(kind, QStringLiteral("missing"));
        auto* box = m_window->findChild<QMessageBox*>(QStringLiteral("projectErrorBox"));
        QVERIFY(box);
        QTRY_VERIFY_WITH_TIMEOUT(box->isVisible(), 2000);
        QCOMPARE(box->informativeText(), message);
        box->close();
#endif
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
