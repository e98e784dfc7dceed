// The analysis panel does its work only while it can be seen, and never on the GUI thread: the shown run changes
// at every replay the schedule editor draws, so a hidden panel only notes that it is stale, and a visible one
// analyses the newest run off the GUI thread (an older run's result that arrives late is not shown). A run too
// large to hold (opened by the threshold the loader uses, lowered for a fast test) is analysed from its project
// file, and its figures are `pacer-cli analyze`'s.
#include "app/gui/analysis_panel.h"
#include "app/gui/main_window.h"
#include "app/gui/models/analysis_model.h"
#include "app/gui/models/project_loader.h"
#include "app/gui/timeline_view.h"
#include "profiler/project.h"
#include "tests/app/process_helpers.h"
#include "tests/profiler/analysis_fixture.h"

#include <QDockWidget>
#include <QTemporaryDir>
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

    void largeRunIsAnalysedFromItsProjectAsTheCliDoes() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("large.pacer"));
        const pacer::profiler::RunTrace run = pacer::profiler::testing::syntheticRun(4, 30, true, true, 7);
        QVERIFY(pacer::profiler::writeRun(path.toStdString(), run, pacer::profiler::RunInfo{}).ok());
        LargeRunLimits limits;
        limits.wholeRunEvents = 100;  // the loader's threshold, lowered: this run takes the large-run path
        const ProjectSnapshot snapshot = readProjectSnapshot(path, 0, limits);
        QVERIFY2(snapshot.error.isEmpty(), qPrintable(snapshot.error));
        QVERIFY(snapshot.index && snapshot.index->large);
        QVERIFY(run.events.size() > 10 * static_cast<std::size_t>(limits.wholeRunEvents));

        MainWindow window;
        window.resize(1200, 700);
        window.show();
        auto* panel = window.findChild<AnalysisPanel*>();
        window.findChild<QDockWidget*>(QStringLiteral("analysisDock"))->show();
        window.showRun(snapshot.index, snapshot.overview);
        QVERIFY(window.timeline()->model()->isLarge());
        QTRY_COMPARE_WITH_TIMEOUT(panel->model()->rowCount(), 4, 10000);
        QVERIFY(panel->lastAnalysisThread() != QThread::currentThread());
        const auto& a = panel->model()->analysis();

        const auto cli = pacer::testing::runCli({"analyze", "--project", path, "--json"});
        QVERIFY2(cli.exitCode == 0, cli.err.constData());
        const auto j = nlohmann::json::parse(cli.out.toStdString());
        QCOMPARE(j["ranks"].size(), a.ranks.size());
        for (std::size_t r = 0; r < a.ranks.size(); ++r) {
            const auto& want = j["ranks"][r];
            QCOMPARE(a.ranks[r].compute_ns, want["compute_ns"].get<std::int64_t>());
            QCOMPARE(a.ranks[r].exposed_comm_ns, want["exposed_comm_ns"].get<std::int64_t>());
            QCOMPARE(a.ranks[r].idle_ns, want["idle_ns"].get<std::int64_t>());
            QCOMPARE(a.ranks[r].overlapPercent(), want["overlap_percent"].get<double>());
            QCOMPARE(a.ranks[r].mean_lateness_ns, want["mean_lateness_ns"].get<double>());
        }
        QCOMPARE(a.straggler_rank, j["straggler_rank"].get<int>());
        QVERIFY(a.straggler_rank >= 0);
        const auto& cp = j["critical_path"];
        QCOMPARE(a.critical_path.iteration, cp["iteration"].get<int>());
        QCOMPARE(a.critical_path.rank, cp["rank"].get<int>());
        QCOMPARE(a.critical_path.length_ns, cp["length_ns"].get<std::int64_t>());
        QCOMPARE(a.critical_path.steps.size(), cp["steps"].size());
        // The figures are also those of the run read whole and analysed in memory (the small-run path).
        const auto whole = pacer::profiler::analysis::analyzeRun(run);
        for (std::size_t r = 0; r < a.ranks.size(); ++r) QCOMPARE(a.ranks[r].compute_ns, whole.ranks[r].compute_ns);
        QCOMPARE(a.critical_path.length_ns, whole.critical_path.length_ns);
        // The critical path is outlined on the large run's timeline, step for step.
        const auto& path_ = window.timeline()->path();
        QCOMPARE(path_.size(), a.critical_path.steps.size());
        QCOMPARE(path_.front().start, a.critical_path.steps.front().start);
        QVERIFY(panel->summary().contains(QStringLiteral("Critical path of iteration %1").arg(a.critical_path.iteration)));
    }
};

QTEST_MAIN(TestAnalysisPanel)
#include "tst_analysis_panel.moc"
