// The analysis panel does its work only while it can be seen, and never on the GUI thread: the shown run changes
// at every replay the schedule editor draws, so a hidden panel only notes that it is stale, and a visible one
// analyses the newest run off the GUI thread (an older run's result that arrives late is not shown).
#include "app/gui/analysis_panel.h"
#include "app/gui/main_window.h"
#include "app/gui/models/analysis_model.h"
#include "app/gui/timeline_view.h"
#include "tests/profiler/analysis_fixture.h"

#include <QDockWidget>
#include <QTest>
#include <QThread>

using namespace pacer::gui;

class TestAnalysisPanel : public QObject {
    Q_OBJECT
private slots:
    void analysesOnlyWhileVisibleAndOffTheGuiThread() {
        MainWindow window;
        window.resize(1200, 700);
        window.show();
        auto* panel = window.findChild<AnalysisPanel*>();
        auto* dock = window.findChild<QDockWidget*>(QStringLiteral("analysisDock"));
        QVERIFY(panel && dock && !dock->isVisible());
        const auto trace = std::make_shared<const pacer::profiler::RunTrace>(pacer::profiler::testing::handTimedIteration());
        for (int i = 0; i < 5; ++i) window.showRun(trace, ProjectOverview{});  // what replays do while a slider moves
        QTest::qWait(50);
        QCOMPARE(panel->analysesRun(), 0);
        QCOMPARE(panel->model()->rowCount(), 0);
        // An export asks for the figures all the same: computed then, for the run shown.
        QCOMPARE(panel->analysisNow().ranks.size(), std::size_t(2));
        QCOMPARE(panel->analysesRun(), 0);

        dock->show();  // shown: the run it missed is analysed once
        QTRY_COMPARE_WITH_TIMEOUT(panel->model()->rowCount(), 2, 10000);
        QCOMPARE(panel->analysesRun(), 1);
        QVERIFY(panel->lastAnalysisThread() && panel->lastAnalysisThread() != QThread::currentThread());
        QVERIFY(!window.timeline()->path().empty());

        // Visible: each new run is analysed, newest wins; the last run shown is the one whose figures stay.
        for (int i = 0; i < 5; ++i) window.showRun(trace, ProjectOverview{});
        QTRY_VERIFY_WITH_TIMEOUT(!panel->isBusy(), 10000);
        QVERIFY(panel->analysesRun() >= 2 && panel->analysesRun() <= 6);
        QCOMPARE(panel->model()->rowCount(), 2);
        QVERIFY(!window.timeline()->path().empty());

        // Hidden again: no more work, and the outline of a run no longer analysed goes with it.
        dock->hide();
        const int before = panel->analysesRun();
        window.showRun(trace, ProjectOverview{});
        QTest::qWait(50);
        QCOMPARE(panel->analysesRun(), before);
        QVERIFY(window.timeline()->path().empty());
    }
};

QTEST_MAIN(TestAnalysisPanel)
#include "tst_analysis_panel.moc"
