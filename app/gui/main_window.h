// Pacer's main window: the project tree on the left, the timeline with its legend in the middle, and the Run
// action with a progress bar and Cancel in the status bar.
//
// Projects load off the GUI thread through ProjectLoader; a project that cannot be read (corrupt, foreign,
// from a newer Pacer) leaves the current one on screen, shows a message box with the reason and emits
// projectFailed so that tests can observe it without clicking. The schedule editor and compare panel will
// join as docks next to the project tree.
#pragma once

#include "app/gui/models/project_tree_model.h"
#include "app/gui/models/replay_worker.h"
#include "profiler/trace_model.h"

#include <QMainWindow>

#include <memory>
#include <optional>
#include <vector>

class QAction;
class QMenu;
class QLabel;
class QProgressBar;
class QPushButton;
class QTreeView;

namespace pacer::app {
class RunLauncher;
}

namespace pacer::gui {

class CompareDock;
class LegendWidget;
class ScheduleEditorDock;
class PredictionCheckDock;
class ProjectLoader;
class TimelineView;
struct ProjectSnapshot;
struct TimelineIndex;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // What the Run action changes from the experiment's own settings (empty/0 = the experiment's). The
    // schedule editor will set policy and segment size here.
    struct RunSettings {
        QString policy;
        qint64 segmentBytes = 0;
        int iterations = 0;
    };

    // The experiment the Run action launches, and the project its runs go to.
    void setExperiment(const QString& experimentPath, const QString& projectPath);
    void setRunSettings(const RunSettings& settings) { m_runSettings = settings; }
    // Starts loading a project (runId 0 = its latest run). The result arrives as projectLoaded/projectFailed.
    void openProject(const QString& path, qint64 runId = 0);
    // Shows a run directly (a replayed schedule, or a trace built in memory).
    void showRun(std::shared_ptr<const profiler::RunTrace> trace, const ProjectOverview& overview);
    void showRun(std::shared_ptr<const TimelineIndex> index, const ProjectOverview& overview);

    QString projectPath() const { return m_projectPath; }
    TimelineView* timeline() const { return m_timeline; }
    ScheduleEditorDock* scheduleDock() const { return m_scheduleDock; }
    PredictionCheckDock* predictionCheckDock() const { return m_checkDock; }
    CompareDock* compareDock() const { return m_compareDock; }
    ProjectTreeModel* projectModel() const { return m_projectModel; }
    QAction* runAction() const { return m_runAction; }
    bool isLoading() const;

public slots:
    void startRun();
    // A real run of the shown run's experiment with the schedule editor's settings, checked against its prediction.
    void runSchedule();
    void cancelRun();

signals:
    void projectLoaded(const QString& path, qint64 runId);
    void projectFailed(const QString& path, const QString& message);
    void runFinished(qint64 runId);
    void runFailed(const QString& message);

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void createActions();
    void onLoaded(const ProjectSnapshot& snapshot);
    void onLoadFailed(const QString& path, const QString& message);
    void onRunProgress(int rank, int iteration, int total);
    void onRunFinished(qint64 runId);
    void onRunFailed(const QString& message);
    void setRunning(bool running);
    void openFileDialog();
    void updateTitle();
    void createScheduleDock(QMenu* viewMenu);
    void loadSchedule(qint64 scheduleId);
    void startRunOf(const QString& experimentPath);

    TimelineView* m_timeline = nullptr;
    LegendWidget* m_legend = nullptr;
    ScheduleEditorDock* m_scheduleDock = nullptr;
    PredictionCheckDock* m_checkDock = nullptr;
    CompareDock* m_compareDock = nullptr;
    std::optional<ScheduleSettings> m_runningSchedule;  // the editor's settings while their run is in flight
    qint64 m_checkRun = 0;                              // the run to check against the prediction once loaded
    std::vector<int> m_rankIterations;                  // progress per rank of the run in flight
    QTreeView* m_projectTree = nullptr;
    ProjectTreeModel* m_projectModel = nullptr;
    ProjectLoader* m_loader = nullptr;
    app::RunLauncher* m_launcher = nullptr;

    QAction* m_openAction = nullptr;
    QAction* m_runAction = nullptr;
    QAction* m_cancelAction = nullptr;
    QAction* m_zoomFitAction = nullptr;
    QLabel* m_statusLabel = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancelButton = nullptr;

    QString m_projectPath;      // the project on screen (or the one the experiment writes to)
    QString m_experimentPath;
    RunSettings m_runSettings;
    qint64 m_shownRun = 0;
};

}  // namespace pacer::gui
