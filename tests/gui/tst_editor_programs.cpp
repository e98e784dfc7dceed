// The schedule editor against the real programs, on a run of the CNN sample captured by pacer-cli:
//  - "Optimize" applies what `pacer-cli sweep` finds best on the same run (and for pace the fusion groups of
//    `pacer-cli replay --fusion-search` at that size), as one undoable edit;
//  - "Run this schedule" cancelled while its workers run leaves no worker process behind (real processes, read
//    from /proc; every wait bounded).
#include "app/gui/main_window.h"
#include "app/gui/models/schedule_editor_model.h"
#include "app/gui/prediction_check_dock.h"
#include "app/gui/schedule_editor_dock.h"
#include "pacer/config.h"
#include "tests/app/process_helpers.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <unistd.h>

using namespace pacer;
using namespace pacer::gui;

namespace {

// This process's children running pacer-worker (zombies included: a worker not yet reaped is not gone).
QList<int> workerChildren() {
    QList<int> out;
    const QString self = QString::number(::getpid());
    for (const QString& entry : QDir("/proc").entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        bool numeric = false;
        const int pid = entry.toInt(&numeric);
        if (!numeric) continue;
        QFile stat("/proc/" + entry + "/stat");
        if (!stat.open(QIODevice::ReadOnly)) continue;
        // pid (comm) state ppid ...: comm may hold spaces, so read after its closing parenthesis.
        const QByteArray line = stat.readAll();
        const int close = line.lastIndexOf(')');
        const int open = line.indexOf('(');
        if (open < 0 || close < 0) continue;
        const QList<QByteArray> rest = line.mid(close + 2).split(' ');
        if (rest.size() < 2 || rest[1] != self.toLatin1()) continue;
        if (line.mid(open + 1, close - open - 1) == "pacer-worker") out << pid;
    }
    return out;
}

}  // namespace

class TestEditorPrograms : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        qputenv("PACER_WORKER", PACER_WORKER_PATH);
        m_project = m_dir.filePath("cnn.pacer");
        const auto r = testing::runCli({"capture", "--experiment", PACER_SOURCE_DIR "/samples/experiments/cnn-2rank.json",
                                        "--out", m_project, "--iterations", "8", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        auto input = app::loadRunInput(m_project.toStdString(), 1);
        QVERIFY2(input.ok(), input.message().c_str());
        m_input = std::make_shared<const app::ReplayInput>(std::move(input).value());
    }

    void optimizeAppliesTheCliSweepsBest_data() {
        QTest::addColumn<QString>("policy");
        QTest::newRow("pace") << "pace";
        QTest::newRow("bytescheduler") << "bytescheduler";
        QTest::newRow("manual") << "manual";
    }
    void optimizeAppliesTheCliSweepsBest() {
        QFETCH(QString, policy);
        ScheduleEditorDock dock;
        dock.show();
        ScheduleEditorModel& editor = *dock.editor();
        editor.setInput(m_input);
        editor.setPolicy(policy);
        const ScheduleSettings before = editor.settings();
        auto* optimize = dock.findChild<QPushButton*>(QStringLiteral("optimizeButton"));
        QVERIFY(optimize && optimize->isEnabled());
        optimize->click();
        QCOMPARE(editor.undoStack()->undoText(), QString("Optimize"));

        const auto sweep = testing::runCli({"sweep", "--project", m_project, "--run", "1", "--policy", policy,
                                            "--segment-bytes", "4KiB:256MiB", "--json"});
        QVERIFY2(sweep.exitCode == 0, sweep.err.constData());
        const qint64 best = sweep.json()["best"].toObject()["segment_bytes"].toInteger();
        QVERIFY(best >= 4096);
        QCOMPARE(qint64(editor.settings().config.segment_bytes), best);
        if (policy == "pace") {
            const auto fusion = testing::runCli({"replay", "--project", m_project, "--run", "1", "--policy", "pace",
                                                 "--segment-bytes", QString::number(best) + "B", "--fusion-search", "--json"});
            QVERIFY2(fusion.exitCode == 0, fusion.err.constData());
            std::vector<std::vector<int>> groups;
            for (const auto& g : fusion.json()["fusion"].toObject()["groups"].toArray()) {
                groups.emplace_back();
                for (const auto& t : g.toArray()) groups.back().push_back(t.toInt());
            }
            QCOMPARE(editor.settings().config.fusion_groups, groups);
        }
        editor.undoStack()->undo();
        QVERIFY(sameSettings(editor.settings(), before));
    }

    void cancelledRunLeavesNoWorker() {
        MainWindow window;
        window.resize(1200, 700);
        window.show();
        window.setExperiment(PACER_SOURCE_DIR "/samples/experiments/cnn-2rank.json", m_project);
        window.setRunSettings({QString(), 0, 100000});  // far more iterations than the test waits for
        QSignalSpy loaded(&window, &MainWindow::projectLoaded);
        QSignalSpy failed(&window, &MainWindow::runFailed);
        QSignalSpy finished(&window, &MainWindow::runFinished);
        window.openProject(m_project, 1);
        QTRY_VERIFY_WITH_TIMEOUT(loaded.count() == 1 && window.scheduleDock()->editor()->input(), 30000);
        QVERIFY(workerChildren().isEmpty());

        window.scheduleDock()->editor()->setPolicy("pace");
        window.scheduleDock()->editor()->setSegmentBytes(64 << 10);
        QVERIFY(window.scheduleDock()->runButton()->isEnabled());
        window.scheduleDock()->runButton()->click();
        QVERIFY(window.predictionCheckDock()->isWaiting());
        // Both ranks started (their processes exist), then Cancel as the user presses it.
        QTRY_VERIFY_WITH_TIMEOUT(workerChildren().size() == 2, 30000);
        auto* cancel = window.findChild<QPushButton*>(QStringLiteral("cancelRunButton"));
        QVERIFY(cancel && cancel->isVisible());
        cancel->click();
        QTRY_VERIFY_WITH_TIMEOUT(failed.count() == 1, 30000);
        QVERIFY2(failed.first().first().toString().contains("cancelled"), qPrintable(failed.first().first().toString()));
        QCOMPARE(finished.count(), 0);
        QTRY_VERIFY_WITH_TIMEOUT(workerChildren().isEmpty(), 15000);
        QVERIFY(!window.predictionCheckDock()->isWaiting());
        QVERIFY(!cancel->isVisible());
        QVERIFY(window.scheduleDock()->runButton()->isEnabled());  // another run can start
    }

private:
    QTemporaryDir m_dir;
    QString m_project;
    std::shared_ptr<const app::ReplayInput> m_input;
};

QTEST_MAIN(TestEditorPrograms)
#include "tst_editor_programs.moc"
