// The compare view in a real (offscreen) main window: two runs and a saved schedule pinned from the project tree
// give a table whose differences against the baseline are `pacer-cli compare --baseline N`'s, stacked lanes and
// bars of the same figures; clicking a point of the sweep chart applies that policy and segment size in the
// schedule editor as one undoable edit; where two pinned runs found the machine at different speeds, the line
// beside the baseline box says what the table's marks mean.
#include "app/gui/compare_charts.h"
#include "app/gui/compare_dock.h"
#include "app/gui/main_window.h"
#include "app/gui/models/schedule_editor_model.h"
#include "app/gui/schedule_editor_dock.h"
#include "app/gui/timeline_view.h"
#include "tests/app/compare_fixture.h"
#include "tests/app/process_helpers.h"

#include <QAction>
#include <QComboBox>
#include <QJsonArray>
#include <QLabel>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <QUndoStack>

using namespace pacer;
using namespace pacer::gui;

class TestCompareView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_project = m_dir.filePath("compare.pacer");
        const std::string error = testing::writeCompareProject(
            m_project.toStdString(), {testing::compareExperiment("small", 8), testing::compareExperiment("small", 8)});
        QVERIFY2(error.empty(), error.c_str());
        m_window = std::make_unique<MainWindow>();
        m_window->resize(1400, 900);
        m_window->show();
        QSignalSpy loaded(m_window.get(), &MainWindow::projectLoaded);
        m_window->openProject(m_project);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 15000);
        QVERIFY(m_window->scheduleDock()->editor()->input());
    }

    void pinnedRowsMatchTheCli() {
        CompareDock* dock = m_window->compareDock();
        auto* tree = m_window->findChild<QTreeView*>(QStringLiteral("projectTree"));
        auto* pin = tree->findChild<QAction*>(QStringLiteral("pinToCompareAction"));
        QVERIFY(pin);
        ProjectTreeModel* projects = m_window->projectModel();
        // Pin as a user does: select the node, "Pin to Compare".
        for (qint64 run : {1, 2}) {
            tree->setCurrentIndex(projects->runIndex(run));
            pin->trigger();
        }
        QModelIndex schedule;
        for (int g = 0; g < projects->rowCount(projects->index(0, 0)); ++g) {
            const QModelIndex group = projects->index(g, 0, projects->index(0, 0));
            for (int r = 0; r < projects->rowCount(group); ++r)
                if (projects->index(r, 0, group).data(ProjectTreeModel::NodeKindRole).toInt() ==
                    int(ProjectTreeModel::NodeKind::Schedule))
                    schedule = projects->index(r, 0, group);
        }
        QVERIFY(schedule.isValid());
        tree->setCurrentIndex(schedule);
        pin->trigger();
        QVERIFY(dock->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(!dock->session()->isBusy() && dock->model()->rowCount() == 3, 30000);
        CompareModel* model = dock->model();

        for (int baseline : {1, 2}) {
            dock->baselineBox()->setCurrentIndex(baseline - 1);
            QCOMPARE(model->baseline(), baseline - 1);
            const auto r = testing::runCli({"compare", "--project", m_project, "1", "2", "fine", "--baseline",
                                            QString::number(baseline), "--json"});
            QVERIFY2(r.exitCode == 0, r.err.constData());
            const QJsonArray items = r.json()["items"].toArray();
            QCOMPARE(items.size(), 3);
            for (int i = 0; i < 3; ++i) {
                const QJsonObject row = items[i].toObject();
                QCOMPARE(model->index(i, CompareModel::PredictedMs).data(CompareModel::ValueRole).toDouble(),
                         row["predicted_iter_ms"].toDouble());
                QCOMPARE(model->index(i, CompareModel::ExposedMs).data(CompareModel::ValueRole).toDouble(),
                         row["exposed_comm_ms"].toDouble());
                QVERIFY(row.contains("change_vs_baseline"));
                QCOMPARE(model->index(i, CompareModel::Change).data(CompareModel::ValueRole).toDouble(),
                         row["change_vs_baseline"].toDouble());
            }
        }
        // The rows' lanes are stacked in the compare view's own timeline, the bars show the table's split.
        const QStringList lanes = dock->timeline()->model()->laneNames();
        QVERIFY2(lanes.contains("#3 fine: replay comm") && lanes.contains("#1 run 1: rank 0 compute") &&
                     lanes.contains("#2 run 2: rank 1 comm"),
                 qPrintable(lanes.join(", ")));
        const auto bars = dock->breakdownChart()->drawnValues();
        QCOMPARE(bars.size(), 3);
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(bars[i][0], model->index(i, CompareModel::ComputeMs).data(CompareModel::ValueRole).toDouble());
            QCOMPARE(bars[i][1], model->index(i, CompareModel::ExposedMs).data(CompareModel::ValueRole).toDouble());
            QCOMPARE(bars[i][2], model->index(i, CompareModel::IdleMs).data(CompareModel::ValueRole).toDouble());
        }
    }

    void clickingASweepPointEditsTheSchedule() {
        CompareDock* dock = m_window->compareDock();
        dock->show();
        SweepModel* sweep = dock->sweepModel();
        QTRY_VERIFY_WITH_TIMEOUT(!sweep->isBusy() && sweep->rowCount() == 17, 30000);
        ScheduleEditorModel* editor = m_window->scheduleDock()->editor();
        SweepChart* chart = dock->sweepChart();
        QTRY_VERIFY(chart->isVisible() && chart->width() > 100);
        // A point no later curve covers (curves of policies that tie overlap; the last drawn takes the click), at
        // a segment size other than the editor's.
        int row = -1, column = -1;
        for (int c = sweep->columnCount() - 1; c >= 1 && column < 0; --c) {
            for (int r = 0; r < sweep->rowCount() && column < 0; ++r) {
                if (sweep->settingsAt(r, c).config.segment_bytes == editor->settings().config.segment_bytes) continue;
                bool covered = false;
                for (int later = c + 1; later < sweep->columnCount(); ++later)
                    covered |= (chart->pointPosition(r, later) - chart->pointPosition(r, c)).manhattanLength() < 12;
                if (!covered) {
                    row = r;
                    column = c;
                }
            }
        }
        QVERIFY(column > 0);
        const std::size_t bytes = std::size_t(4096) << row;
        const int undoBefore = editor->undoStack()->count();
        const QPoint at = chart->pointPosition(row, column);
        QVERIFY2(chart->viewport()->rect().contains(at), qPrintable(QStringLiteral("%1,%2").arg(at.x()).arg(at.y())));
        QTest::mouseClick(chart->viewport(), Qt::LeftButton, {}, at);
        QTRY_COMPARE_WITH_TIMEOUT(editor->settings().config.segment_bytes, bytes, 5000);
        QCOMPARE(editor->settings().config.name, sweep->policyOf(column));
        QCOMPARE(editor->undoStack()->count(), undoBefore + 1);
        QVERIFY2(editor->undoStack()->undoText().startsWith("Sweep point"), qPrintable(editor->undoStack()->undoText()));
        editor->undoStack()->undo();
        QVERIFY(editor->settings().config.segment_bytes != bytes);
    }

    // What was pinned above, and the baseline chosen last (row 2), are back in a window that opens the project
    // again, compared and shown as they were.
    void pinsComeBackWhenTheProjectIsReopened() {
        m_window->compareDock()->baselineBox()->setCurrentIndex(1);
        m_window.reset();
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        window.openProject(m_project);
        CompareDock* dock = window.compareDock();
        QTRY_VERIFY_WITH_TIMEOUT(!dock->session()->isBusy() && dock->model()->rowCount() == 3, 30000);
        QCOMPARE(dock->model()->baseline(), 1);
        QCOMPARE(dock->baselineBox()->currentIndex(), 1);
        QCOMPARE(dock->model()->index(1, CompareModel::Change).data().toString(), QString("baseline"));
        QStringList labels;
        for (int r = 0; r < 3; ++r) labels << dock->model()->index(r, CompareModel::Item).data().toString();
        QVERIFY2(labels[0].contains("1") && labels[1].contains("2") && labels[2].contains("fine"),
                 qPrintable(labels.join(", ")));
    }

    // Two runs that found the machine 20% apart in speed: the line beside the baseline box says what the table's " *"
    // means, against whichever run is the baseline, and says nothing once the marked row is unpinned.
    void theLineBesideTheTableExplainsTheMarks() {
        const QString project = m_dir.filePath("machine-speed.pacer");
        const std::string error = testing::writeTwoSpeedsProject(project.toStdString(), 2.0, 2.4);
        QVERIFY2(error.empty(), error.c_str());
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        QSignalSpy loaded(&window, &MainWindow::projectLoaded);
        window.openProject(project);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 15000);
        CompareDock* dock = window.compareDock();
        auto* status = dock->findChild<QLabel*>(QStringLiteral("compareStatus"));
        QVERIFY(status);
        dock->session()->pinRun(1);
        dock->session()->pinRun(2);
        QTRY_VERIFY_WITH_TIMEOUT(!dock->session()->isBusy() && dock->model()->rowCount() == 2, 30000);
        QTRY_VERIFY2_WITH_TIMEOUT(status->text().startsWith("* The machine computed 20% slower during run 2 than "
                                                            "during run 1"),
                                  qPrintable(status->text()), 5000);
        QCOMPARE(status->toolTip(), status->text());  // whole, where the dock cuts the line
        dock->baselineBox()->setCurrentIndex(1);
        QVERIFY2(status->text().startsWith("* The machine computed 17% faster during run 1 than during run 2"),
                 qPrintable(status->text()));
        dock->session()->unpin(0);
        QTRY_VERIFY_WITH_TIMEOUT(!dock->session()->isBusy() && dock->model()->rowCount() == 1, 30000);
        QTRY_VERIFY2_WITH_TIMEOUT(status->text().isEmpty(), qPrintable(status->text()), 5000);
    }

    void cleanupTestCase() { m_window.reset(); }

private:
    QTemporaryDir m_dir;
    QString m_project;
    std::unique_ptr<MainWindow> m_window;
};

QTEST_MAIN(TestCompareView)
#include "tst_compare_view.moc"
