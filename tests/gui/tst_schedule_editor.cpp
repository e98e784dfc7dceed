// The schedule editor in real (offscreen) windows: the replay worker (newest wins, last delivered), the slider
// moving the figures and the replay lanes, dragging a tensor to the top changing the prediction, undo restoring
// both, a schedule saved into the project and loaded back, and the main window drawing the replay under the
// measured run, and "Run this schedule" checked against a real run. Inputs: the zoo's BERT-base (199 tensors) and the sample Pacer trace imported into a project.
#include "app/common/policy_json.h"
#include "app/common/tuned_settings.h"
#include "app/gui/models/project_tree_model.h"
#include "app/gui/main_window.h"
#include "app/gui/prediction_check_dock.h"
#include "app/gui/models/schedule_editor_model.h"
#include "app/gui/models/tensor_priority_model.h"
#include "app/gui/schedule_editor_dock.h"
#include "app/gui/timeline_view.h"
#include "engine/replay/zoo.h"
#include "pacer/config.h"
#include "profiler/import_chrome.h"

#include <QAbstractItemModelTester>
#include <QLabel>
#include <QMimeData>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <string>

using namespace pacer;
using namespace pacer::gui;

namespace {

std::shared_ptr<const app::ReplayInput> bertInput() {
    auto in = app::loadModelInput("bert_base", 0, {PACER_SOURCE_DIR "/samples/zoo"});
    if (!in.ok()) qFatal("bert_base: %s", in.message().c_str());
    return std::make_shared<const app::ReplayInput>(std::move(in).value());
}

// The tensor of each all-reduce in the replay, in time order: what a priority change moves.
std::vector<int> commOrder(const ReplayOutcome& o) {
    std::vector<std::pair<std::int64_t, int>> units;
    for (const auto& e : o.replay->events)
        if (e.kind == profiler::EventKind::AllReduce && e.iteration == 1) units.push_back({e.start, e.tensor});
    std::sort(units.begin(), units.end());
    std::vector<int> out;
    for (const auto& u : units) out.push_back(u.second);
    return out;
}

bool waitIdle(ScheduleEditorModel& editor) {
    return QTest::qWaitFor([&] {
        return !editor.worker()->isBusy() && editor.latest() && editor.latest()->generation == editor.worker()->generation();
    }, 10000);
}

// Shows the window and opens a project in it; true once it has loaded.
bool openShown(MainWindow& window, const QString& project) {
    window.resize(1200, 700);
    window.show();
    QSignalSpy loaded(&window, &MainWindow::projectLoaded);
    window.openProject(project);
    return QTest::qWaitFor([&] { return loaded.count() == 1; }, 10000);
}

}  // namespace

class TestScheduleEditor : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_project = m_dir.filePath("sample.pacer");
        profiler::RunInfo info;
        auto trace = profiler::parseChromeTrace({PACER_SOURCE_DIR "/samples/traces/pacer_export.json"}, &info);
        QVERIFY(trace.ok());
        info.experiment_json = R"({"name":"sample","model":{"layers":[8]}})";
        QVERIFY(profiler::writeRun(m_project.toStdString(), trace.value(), info, "capture").ok());
    }

    void workerDeliversTheNewestLast() {
        ReplayWorker worker;
        worker.setInput(bertInput());
        std::vector<quint64> delivered;
        connect(&worker, &ReplayWorker::replayed, this, [&](const ReplayOutcome& o) { delivered.push_back(o.generation); });
        ScheduleSettings s;
        s.config.name = "pace";
        quint64 last = 0;
        for (int i = 0; i < 20; ++i) {
            s.config.segment_bytes = std::size_t(4096) << (i % 12);
            last = worker.request(s);
        }
        QTRY_VERIFY_WITH_TIMEOUT(!delivered.empty() && delivered.back() == last, 10000);
        QVERIFY(std::is_sorted(delivered.begin(), delivered.end()));
        QVERIFY2(worker.computed() < 20, "superseded requests were replayed anyway");
    }

    void sliderMovesFiguresAndLanes() {
        ScheduleEditorDock dock;
        dock.show();
        ScheduleEditorModel& editor = *dock.editor();
        editor.setInput(bertInput());
        editor.setPolicy("pace");
        QVERIFY(waitIdle(editor));
        const QString before = dock.figuresLabel()->text();
        const double iterBefore = editor.latest()->figures.iter_ms;
        const auto lanesBefore = editor.latest()->replay->events.size();

        // A drag: press, move through several positions, release; the figures follow each step.
        QSlider* slider = dock.segmentSlider();
        QVERIFY(slider->isEnabled());
        slider->setSliderDown(true);
        emit slider->sliderPressed();
        const int undoBefore = editor.undoStack()->count();
        for (int pos = ScheduleEditorDock::sliderPosition(4 << 20); pos >= ScheduleEditorDock::sliderPosition(16 << 10); pos -= 4)
            slider->setValue(pos);
        slider->setSliderDown(false);
        QCOMPARE(editor.settings().config.segment_bytes, std::size_t(16 << 10));
        QCOMPARE(editor.undoStack()->count(), undoBefore + 1);  // one drag, one undo step
        QVERIFY(waitIdle(editor));
        QVERIFY(dock.figuresLabel()->text() != before);
        QVERIFY(editor.latest()->figures.iter_ms != iterBefore);
        QVERIFY(editor.latest()->replay->events.size() > lanesBefore);  // 16 KiB segments: more units drawn

        editor.undoStack()->undo();
        QCOMPARE(slider->value(), ScheduleEditorDock::sliderPosition(4 << 20));
        QVERIFY(waitIdle(editor));
        QCOMPARE(editor.latest()->figures.iter_ms, iterBefore);
        QCOMPARE(dock.figuresLabel()->text(), before);
    }

    void draggingATensorToTheTopRaisesItsPriority() {
        ScheduleEditorDock dock;
        dock.show();
        ScheduleEditorModel& editor = *dock.editor();
        editor.setInput(bertInput());
        QAbstractItemModelTester tester(dock.tensorModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        editor.setPolicy("manual");
        QVERIFY(waitIdle(editor));
        const std::vector<int> orderBefore = commOrder(*editor.latest());
        TensorPriorityModel* model = dock.tensorModel();
        QCOMPARE(model->rowCount(), 199);
        const int from = 150;
        const QString moved = model->index(from, TensorPriorityModel::Name).data().toString();

        // What the view does on a drop: the model's own mime data, dropped before row 0.
        std::unique_ptr<QMimeData> mime(model->mimeData({model->index(from, 0)}));
        QVERIFY(!model->dropMimeData(mime.get(), Qt::MoveAction, 0, 0, {}));  // false: the view removes nothing
        QCOMPARE(model->index(0, TensorPriorityModel::Name).data().toString(), moved);
        QCOMPARE(model->index(0, TensorPriorityModel::Priority).data().toInt(), 0);
        QCOMPARE(editor.settings().config.name, std::string("manual"));
        QVERIFY(waitIdle(editor));
        const std::vector<int> orderAfter = commOrder(*editor.latest());
        QVERIFY(orderAfter != orderBefore);

        editor.undoStack()->undo();
        QVERIFY(model->index(0, TensorPriorityModel::Name).data().toString() != moved);
        QVERIFY(waitIdle(editor));
        QVERIFY(commOrder(*editor.latest()) == orderBefore);
    }

    void savedScheduleLoadsBack() {
        const std::string project = m_project.toStdString();
        ScheduleSettings saved;
        {
            ScheduleEditorModel editor;
            auto input = app::loadRunInput(project, 0);
            QVERIFY2(input.ok(), input.message().c_str());
            editor.setInput(std::make_shared<const app::ReplayInput>(std::move(input).value()));
            editor.setPolicy("bytescheduler");
            editor.setSegmentBytes(64 << 10);
            engine::WhatIf w;
            w.link_gbps = 25;
            editor.setWhatIf(w);
            saved = editor.settings();
            auto id = editor.save(m_project, "bs 64k");
            QVERIFY2(id.ok(), id.message().c_str());
        }
        auto list = profiler::listSchedules(project);
        QVERIFY(list.ok());
        QCOMPARE(list.value().size(), std::size_t(1));
        QCOMPARE(list.value()[0].name, std::string("bs 64k"));
        QCOMPARE(list.value()[0].run_id, std::int64_t(1));
        ScheduleEditorModel reopened;
        reopened.setInput(bertInput());
        QVERIFY(reopened.load(list.value()[0]).ok());
        QVERIFY(sameSettings(reopened.settings(), saved));
        reopened.undoStack()->undo();
        QVERIFY(!sameSettings(reopened.settings(), saved));
    }

    void mainWindowDrawsTheReplayUnderTheRun() {
        MainWindow window;
        QVERIFY(openShown(window, m_project));
        ScheduleEditorModel& editor = *window.scheduleDock()->editor();
        QVERIFY(editor.input());
        QCOMPARE(editor.input()->runId, std::int64_t(1));
        QVERIFY(waitIdle(editor));
        QTRY_VERIFY_WITH_TIMEOUT(window.timeline()->model()->laneNames().contains("replay comm"), 5000);
        const QStringList lanes = window.timeline()->model()->laneNames();
        // The measured lanes first, the replay's right under them.
        QCOMPARE(lanes.indexOf("replay compute"), lanes.size() - 2);
        QVERIFY(lanes.indexOf("replay compute") > 0);
        // The project tree shows a saved schedule after the save.
        QVERIFY(editor.save(m_project, "from window").ok());
        emit window.scheduleDock()->scheduleSaved(m_project, 0);
        QTRY_VERIFY_WITH_TIMEOUT(!window.projectModel()->overview().schedules.empty(), 10000);
        QVERIFY(window.timeline()->model()->laneNames().contains("replay comm"));
    }

    // A self-tuned pace run (the CNN sample, captured for real) opens with what it chose: segment size, fusion
    // groups, order and channels, so the editor's first replay is the run's own replay, not a default pace.
    void selfTunedRunOpensWithItsChoice() {
        const QString project = m_dir.filePath("tuned.pacer");
        QProcess cli;
        cli.start(PACER_CLI_PATH, {"capture", "--experiment", PACER_SOURCE_DIR "/samples/experiments/cnn-2rank.json",
                                   "--out", project, "--policy", "pace", "--iterations", "8"});
        QVERIFY(cli.waitForFinished(120000));
        QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
        MainWindow window;
        QVERIFY(openShown(window, project));
        ScheduleEditorModel& editor = *window.scheduleDock()->editor();
        QVERIFY(editor.input() && editor.input()->tuned);
        const engine::Schedule& tuned = *editor.input()->tuned;
        QVERIFY(waitIdle(editor));
        const ScheduleSettings& opened = editor.settings();
        QCOMPARE(opened.config.name, std::string("pace"));
        QCOMPARE(opened.config.segment_bytes, tuned.policy.segment_bytes);
        QCOMPARE(opened.config.fusion_groups, tuned.policy.fusion_groups);
        // The first replay is the run replayed as it ran (its workload carries the order and channels it chose; in
        // plan order it follows the plan the run recorded).
        engine::PolicyConfig asRan = tuned.policy;
        asRan.plan = editor.input()->plan;
        QCOMPARE(editor.latest()->followedPlanUnits, asRan.plan.size());
        auto self = engine::replay(editor.input()->workload, editor.input()->cost, asRan, {}, {},
                                   editor.input()->iterations);
        QVERIFY2(self.ok(), self.message().c_str());
        QCOMPARE(editor.latest()->figures.iter_ms, self.value().sim.figures.iter_ms);
        QCOMPARE(editor.undoStack()->count(), 0);  // opening is not an edit

        // The choice is shown: in the dock, in the tensor list (each tensor's fused unit), and in the project tree.
        ScheduleEditorDock& dock = *window.scheduleDock();
        QVERIFY(dock.tunedLabel()->isVisible());
        QVERIFY2(dock.tunedLabel()->text().contains(QString::fromStdString(app::describeSettings(tuned))),
                 qPrintable(dock.tunedLabel()->text()));
        // With its prediction and the prediction's band (or why it has none), the band written as the dock writes
        // the replay's: "band 4.360 – 16.718 ms", kept on one line.
        QVERIFY2(dock.tunedLabel()->text().contains(
                     QString::fromStdString(app::describeWarmupPrediction(tuned, "\u00a0–\u2060\u00a0"))),
                 qPrintable(dock.tunedLabel()->text()));
        if (tuned.predicted_high_ms > 0) {
            static const QRegularExpression asTheReplays(
                QStringLiteral("\\(band \\d+\\.\\d{3}\\x{00a0}–\\x{2060}\\x{00a0}\\d+\\.\\d{3} ms\\)"));
            QVERIFY2(dock.tunedLabel()->text().contains(asTheReplays), qPrintable(dock.tunedLabel()->text()));
        }
        QVERIFY(tuned.predicted_high_ms >= 0 && tuned.predicted_low_ms <= tuned.predicted_ms);
        // A run recorded before predictions had a band shows the prediction alone, with no reason for a band it
        // never had.
        const auto metrics = app::tuningMetrics(tuned);
        std::map<std::string, double> recordedBefore(metrics.begin(), metrics.end());
        QCOMPARE(recordedBefore.erase("tuned_predicted_low_ms") + recordedBefore.erase("tuned_predicted_high_ms"),
                 std::size_t{2});
        const auto before = app::tuningFromMetrics(recordedBefore, tuned.policy);
        QVERIFY(before);
        QCOMPARE(QString::fromStdString(app::describeWarmupPrediction(*before)),
                 QStringLiteral("predicted %1 ms/iter at warm-up").arg(tuned.predicted_ms, 0, 'f', 3));
        TensorPriorityModel* tensors = dock.tensorModel();
        QAbstractItemModelTester tester(tensors, QAbstractItemModelTester::FailureReportingMode::QtTest);
        std::map<int, QString> unitOf;  // tensor id -> "unit k", groups numbered in tensor order
        for (std::size_t g = 0; g < tuned.policy.fusion_groups.size(); ++g)
            for (int id : tuned.policy.fusion_groups[g]) unitOf[id] = QStringLiteral("unit %1").arg(g + 1);
        for (int row = 0; row < tensors->rowCount(); ++row) {
            const int id = editor.priorityOrder()[static_cast<std::size_t>(row)];
            QCOMPARE(tensors->index(row, TensorPriorityModel::Fusion).data().toString(), unitOf[id]);
        }
        const QModelIndex run = window.projectModel()->runIndex(editor.input()->runId);
        QCOMPARE(run.data(ProjectTreeModel::TunedRole).toString(), QString::fromStdString(app::describeSettings(tuned)));
        QVERIFY(run.data(Qt::ToolTipRole).toString().contains(QStringLiteral("tuned itself")));

        // A fusion threshold typed in replaces the explicit groups (pace's greedy fusion then decides).
        auto* fuseBelow = dock.findChild<QSpinBox*>(QStringLiteral("fuseBelowBox"));
        QVERIFY(fuseBelow);
        fuseBelow->setValue(fuseBelow->value() + 1);
        QVERIFY(editor.settings().config.fusion_groups.empty());
        editor.undoStack()->undo();
        QCOMPARE(editor.settings().config.fusion_groups, tuned.policy.fusion_groups);
    }

    // A plan-order run (mlp-2rank, pace at 64 KiB in plan order, captured for real): its own schedule replays the
    // plan it followed, and the readout says so; a schedule edited away from it decides its order, and says that.
    void planOrderRunSaysWhichOrderItReplays() {
        const QString project = m_dir.filePath("plan.pacer");
        QProcess cli;
        cli.start(PACER_CLI_PATH, {"capture", "--experiment", PACER_SOURCE_DIR "/samples/experiments/mlp-2rank.json",
                                   "--out", project, "--policy", "pace", "--segment-bytes", "64KiB", "--order", "plan",
                                   "--iterations", "8"});
        QVERIFY(cli.waitForFinished(120000));
        QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
        MainWindow window;
        QVERIFY(openShown(window, project));
        ScheduleEditorModel& editor = *window.scheduleDock()->editor();
        QVERIFY(editor.input());
        const std::size_t planUnits = editor.input()->plan.size();
        const QString tuning = editor.input()->tuned
                                   ? QString::fromStdString(app::describeSettings(*editor.input()->tuned))
                                   : QStringLiteral("not tuned");
        QVERIFY2(planUnits > 0, qPrintable(QStringLiteral("no plan read back from the plan-order run: %1, %2")
                                              .arg(QString::fromStdString(editor.input()->description), tuning)));
        QVERIFY(waitIdle(editor));
        QCOMPARE(editor.latest()->followedPlanUnits, planUnits);
        QLabel* figures = window.scheduleDock()->figuresLabel();
        const QString followed = QStringLiteral("order: the plan the run followed (%1 units").arg(planUnits);
        QVERIFY2(figures->text().contains(followed), qPrintable(figures->text()));

        ScheduleSettings other = editor.settings();
        other.config.segment_bytes *= 4;
        editor.edit(other, QStringLiteral("bigger segments"));
        QVERIFY(waitIdle(editor));
        QCOMPARE(editor.latest()->followedPlanUnits, std::size_t{0});
        QVERIFY2(figures->text().contains(QStringLiteral("order: decided by the policy")), qPrintable(figures->text()));
        QVERIFY2(!figures->text().contains(followed), qPrintable(figures->text()));

        editor.undoStack()->undo();  // back at the run's own schedule: its plan again
        QVERIFY(waitIdle(editor));
        QCOMPARE(editor.latest()->followedPlanUnits, planUnits);
        QVERIFY2(figures->text().contains(followed), qPrintable(figures->text()));
    }

    // A real run of mlp-2rank (4 iterations), then "Run this schedule" with pace at 64 KiB: the new run's measured
    // time sits beside its prediction, and the unit diff pairs predicted with measured units.
    void runThisScheduleChecksThePrediction() {
#ifdef PACER_WORKER_PATH
        qputenv("PACER_WORKER", PACER_WORKER_PATH);
#endif
        MainWindow window;
        window.resize(1200, 700);
        window.show();
        const QString project = m_dir.filePath("run.pacer");
        window.setExperiment(PACER_SOURCE_DIR "/samples/experiments/mlp-2rank.json", project);
        window.setRunSettings({QString(), 0, 4});
        QSignalSpy finished(&window, &MainWindow::runFinished);
        QSignalSpy failed(&window, &MainWindow::runFailed);
        QSignalSpy loaded(&window, &MainWindow::projectLoaded);
        window.startRun();
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() + failed.count() == 1, 120000);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
        QTRY_VERIFY_WITH_TIMEOUT(loaded.count() == 1 && window.scheduleDock()->editor()->input(), 30000);

        ScheduleEditorModel& editor = *window.scheduleDock()->editor();
        QVERIFY(window.scheduleDock()->runButton()->isEnabled());
        editor.setPolicy("pace");
        editor.setSegmentBytes(64 << 10);
        const ScheduleSettings ran = editor.settings();
        window.scheduleDock()->runButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() + failed.count() == 2, 120000);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
        PredictionCheckDock* check = window.predictionCheckDock();
        QTRY_VERIFY_WITH_TIMEOUT(!check->isWaiting(), 30000);
        QCOMPARE(editor.input()->runId, finished.last().first().toLongLong());
        QCOMPARE(editor.input()->observedConfig.name, std::string("pace"));
        QCOMPARE(editor.input()->observedConfig.segment_bytes, std::size_t(64 << 10));
        QVERIFY(sameSettings(editor.settings(), ran));  // the editor keeps what was run
        QVERIFY(check->prediction().figures.iter_ms > 0);
        QVERIFY(std::isfinite(check->errorPercent()) && check->errorPercent() != 0);
        QVERIFY2(check->summaryLabel()->text().contains("measured"), qPrintable(check->summaryLabel()->text()));
        UnitDiffModel* units = check->unitModel();
        QAbstractItemModelTester tester(units, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(units->rowCount() > 0);
        int matched = 0, highlighted = 0;
        for (int r = 0; r < units->rowCount(); ++r) {
            matched += units->units()[static_cast<std::size_t>(r)].measuredStart >= 0;
            highlighted += units->isHighlighted(r);
        }
        QCOMPARE(matched, units->rowCount());  // every predicted unit has its measured counterpart
        QVERIFY(highlighted >= 1 && highlighted <= UnitDiffModel::kHighlighted + 2);
    }

private:
    QTemporaryDir m_dir;
    QString m_project;
};

QTEST_MAIN(TestScheduleEditor)
#include "tst_schedule_editor.moc"
