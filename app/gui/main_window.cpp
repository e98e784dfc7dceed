#include "app/gui/main_window.h"

#include "app/gui/compare_dock.h"
#include "app/gui/experiment_editor_dialog.h"
#include "app/gui/file_actions.h"
#include "app/gui/legend_widget.h"
#include "app/gui/prediction_check_dock.h"
#include "app/gui/schedule_editor_dock.h"
#include "app/common/policy_json.h"
#include "app/gui/models/event_style.h"
#include "app/gui/models/large_run.h"
#include "app/gui/models/project_loader.h"
#include "app/gui/models/zoom_state.h"
#include "app/gui/timeline_tools.h"
#include "app/gui/timeline_view.h"

#if PACER_GUI_HAVE_LAUNCHER
#include "app/launcher/run_launcher.h"
#endif

#include <QAction>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QIcon>
#include <QJsonObject>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QStatusBar>
#include <QToolBar>
#include <QTreeView>
#include <QVBoxLayout>

#include <QDateTime>
#include <QDir>
#include <QFile>

#include <algorithm>

// The icons are compiled into the static widgets library, whose resource initialiser the linker drops when
// nothing refers to it ("Cannot open file ':/pacer/icons/run.svg'"): register them before the first icon.
static void initPacerResources() { Q_INIT_RESOURCE(pacer); }

namespace pacer::gui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent)
{
    initPacerResources();
    setObjectName(QStringLiteral("mainWindow"));
    setWindowIcon(QIcon(QStringLiteral(":/pacer/icons/pacer.svg")));

    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    m_timeline = new TimelineView(central);
    m_timeline->setEmptyText(PACER_GUI_HAVE_LAUNCHER
                                 ? tr("No run to show yet.\nPress Run (Ctrl+R) to capture the experiment.")
                                 : tr("No run to show yet.\nOpen a project (Ctrl+O)."));
    m_legend = new LegendWidget(central);
    layout->addWidget(m_timeline, 1);
    layout->addWidget(m_legend);
    m_legend->hide();  // until there is a run to explain
    setCentralWidget(central);

    m_projectModel = new ProjectTreeModel(this);
    m_projectTree = new QTreeView;
    m_projectTree->setObjectName(QStringLiteral("projectTree"));
    m_projectTree->setModel(m_projectModel);
    m_projectTree->setHeaderHidden(true);
    m_projectTree->setUniformRowHeights(true);
    m_projectTree->setFrameShape(QFrame::NoFrame);
    auto* treeDock = new QDockWidget(tr("Project"), this);
    treeDock->setObjectName(QStringLiteral("projectDock"));
    treeDock->setWidget(m_projectTree);
    treeDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetClosable);
    addDockWidget(Qt::LeftDockWidgetArea, treeDock);
    resizeDocks({treeDock}, {220}, Qt::Horizontal);
    connect(m_projectTree, &QTreeView::activated, this, [this](const QModelIndex& index) {
        const auto kind = static_cast<ProjectTreeModel::NodeKind>(index.data(ProjectTreeModel::NodeKindRole).toInt());
        if (kind == ProjectTreeModel::NodeKind::Run && !m_projectPath.isEmpty())
            openProject(m_projectPath, index.data(ProjectTreeModel::RunIdRole).toLongLong());
        if (kind == ProjectTreeModel::NodeKind::Schedule)
            loadSchedule(index.data(ProjectTreeModel::ScheduleIdRole).toLongLong());
    });

    // The selected event's one-line summary stays in the status bar while the tooltip comes and goes.
    connect(m_timeline, &TimelineView::selectedEventChanged, this, [this](int event) {
        const profiler::RunTrace* trace = m_timeline->model()->trace();
        if (event < 0 || !trace)
            return;
        const auto& e = trace->events[static_cast<std::size_t>(event)];
        m_statusLabel->setText(tr("%1 — %2, starts at %3, lasts %4")
                                   .arg(m_timeline->model()->eventName(event), eventKindLabel(e.kind),
                                        formatDuration(e.start - m_timeline->model()->startTime()),
                                        formatDuration(e.end - e.start)));
    });

    m_loader = new ProjectLoader(this);
    connect(m_loader, &ProjectLoader::loaded, this, &MainWindow::onLoaded);
    connect(m_loader, &ProjectLoader::failed, this, &MainWindow::onLoadFailed);

    m_statusLabel = new QLabel(this);
    m_progress = new QProgressBar(this);
    m_progress->setMaximumWidth(220);
    m_progress->setMaximumHeight(16);
    m_progress->setTextVisible(true);
    m_progress->hide();
    m_cancelButton = new QPushButton(tr("Cancel"), this);
    m_cancelButton->setObjectName(QStringLiteral("cancelRunButton"));
    m_cancelButton->setFlat(true);
    m_cancelButton->hide();
    connect(m_cancelButton, &QPushButton::clicked, this, &MainWindow::cancelRun);
    statusBar()->addWidget(m_statusLabel, 1);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancelButton);

    createActions();
    QMenu* viewMenu = menuBar()->addMenu(tr("&View"));
    viewMenu->addAction(treeDock->toggleViewAction());
    createScheduleDock(viewMenu);
    m_compareDock = addCompareDock(this, viewMenu);

#if PACER_GUI_HAVE_LAUNCHER
    m_launcher = new app::RunLauncher(this);
    connect(m_launcher, &app::RunLauncher::progress, this, &MainWindow::onRunProgress);
    connect(m_launcher, &app::RunLauncher::message, this, [this](const QString& text) {
        if (m_launcher->isRunning())
            m_statusLabel->setText(text);
    });
    connect(m_launcher, &app::RunLauncher::finished, this, [this](qint64 runId, const QJsonObject&) { onRunFinished(runId); });
    // Lambdas take only the arguments the window uses, so extra signal arguments (an exit code) do not matter.
    connect(m_launcher, &app::RunLauncher::failed, this, [this](const QString& message) { onRunFailed(message); });
#endif
    setRunning(false);
    updateTitle();
    resize(1280, 640);
}

MainWindow::~MainWindow() = default;

void MainWindow::createActions()
{
    m_openAction = new QAction(QIcon(QStringLiteral(":/pacer/icons/open.svg")), tr("&Open Project…"), this);
    m_openAction->setShortcut(QKeySequence::Open);
    connect(m_openAction, &QAction::triggered, this, &MainWindow::openFileDialog);

    m_runAction = new QAction(QIcon(QStringLiteral(":/pacer/icons/run.svg")), tr("&Run Experiment"), this);
    m_runAction->setObjectName(QStringLiteral("runAction"));
    m_runAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    m_runAction->setToolTip(tr("Run the experiment and show the new run (Ctrl+R)"));
    connect(m_runAction, &QAction::triggered, this, &MainWindow::startRun);

    m_cancelAction = new QAction(QIcon(QStringLiteral(":/pacer/icons/stop.svg")), tr("&Cancel Run"), this);
    m_cancelAction->setShortcut(QKeySequence(Qt::Key_Escape | Qt::SHIFT));
    connect(m_cancelAction, &QAction::triggered, this, &MainWindow::cancelRun);

    m_zoomFitAction = new QAction(QIcon(QStringLiteral(":/pacer/icons/zoom-fit.svg")), tr("Show &Whole Run"), this);
    m_zoomFitAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    connect(m_zoomFitAction, &QAction::triggered, m_timeline->zoom(), &ZoomState::resetZoom);

    auto* quit = new QAction(tr("&Quit"), this);
    quit->setShortcut(QKeySequence::Quit);
    connect(quit, &QAction::triggered, this, &QWidget::close);

    QMenu* file = menuBar()->addMenu(tr("&File"));
    new FileActions(this, file, m_openAction);  // New, Open, Recent, Import, Export
    file->addSeparator();
    file->addAction(quit);
    QMenu* run = menuBar()->addMenu(tr("&Run"));
    run->addAction(m_runAction);
    run->addAction(m_cancelAction);
    run->addSeparator();
    addExperimentEditor(this, run);
    QMenu* view = menuBar()->addMenu(tr("&Timeline"));
    view->addAction(m_zoomFitAction);

    QToolBar* bar = addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("mainToolBar"));
    bar->setMovable(false);
    bar->setIconSize(QSize(18, 18));
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    bar->addAction(m_openAction);
    bar->addSeparator();
    bar->addAction(m_runAction);
    bar->addAction(m_cancelAction);
    bar->addSeparator();
    bar->addAction(m_zoomFitAction);
    addTimelineTools(this, m_timeline, bar, view);
    addAnalysisPanel(this, m_timeline, view);
}

void MainWindow::setExperiment(const QString& experimentPath, const QString& projectPath)
{
    m_experimentPath = experimentPath;
    if (m_projectPath.isEmpty())
        m_projectPath = projectPath;
    setRunning(false);
}

bool MainWindow::isLoading() const
{
    return m_loader->isLoading();
}

void MainWindow::openProject(const QString& path, qint64 runId)
{
    m_statusLabel->setText(tr("Loading %1…").arg(QFileInfo(path).fileName()));
    m_loader->load(path, runId);
}

void MainWindow::showRun(std::shared_ptr<const profiler::RunTrace> trace, const ProjectOverview& overview)
{
    showRun(buildTimelineIndex(std::move(trace)), overview);
}

void MainWindow::showRun(std::shared_ptr<const TimelineIndex> index, const ProjectOverview& overview)
{
    m_projectModel->setOverview(overview);
    m_projectTree->expandAll();
    m_shownRun = index && index->trace ? index->trace->run_id : 0;
    m_timeline->setIndex(std::move(index));
    m_legend->setVisible(m_timeline->model()->trace() != nullptr);
    if (m_timeline->model()->trace())
        m_legend->setContents(LegendWidget::kindsIn(*m_timeline->model()->trace()), m_timeline->model()->minPriority(),
                              m_timeline->model()->maxPriority());
    const QModelIndex current = m_projectModel->runIndex(m_shownRun);
    if (current.isValid())
        m_projectTree->setCurrentIndex(current);
    updateTitle();
}

void MainWindow::onLoaded(const ProjectSnapshot& snapshot)
{
    const bool sameRun = m_projectPath == snapshot.path && m_shownRun == snapshot.runId && snapshot.runId != 0;
    m_projectPath = snapshot.path;
    showRun(snapshot.index, snapshot.overview);
    m_scheduleDock->setProject(snapshot.path);
    if (!sameRun || !m_scheduleDock->editor()->input())
        m_scheduleDock->editor()->setInput(snapshot.replayInput);  // null: nothing to replay (replayError says why)
    else if (const ReplayOutcome* latest = m_scheduleDock->editor()->latest())
        m_timeline->setIndex(latest->index);  // the same run read again (a schedule was saved): keep the replay
    if (m_checkDock->isWaiting() && snapshot.trace && snapshot.runId == m_checkRun) {
        // The run of "Run this schedule": the prediction beside the measurement, and the editor keeps the settings
        // it ran with (priorities and fusion groups are not visible in the run's own policy fields).
        m_checkDock->showMeasured(*snapshot.trace, snapshot.replayInput ? snapshot.replayInput->measuredIterMs : 0);
        if (m_runningSchedule && snapshot.replayInput)
            m_scheduleDock->editor()->edit(*m_runningSchedule, tr("Run this schedule"));
        m_runningSchedule.reset();
    }
    if (snapshot.trace) {
        const auto& t = *snapshot.trace;
        // A large run's trace holds its iteration markers only: its event count is the outline's.
        const auto events = snapshot.index && snapshot.index->large ? snapshot.index->large->outline.events
                                                                    : static_cast<std::int64_t>(t.events.size());
        m_statusLabel->setText(tr("Run %1: %2, %3 ranks, %4 events")
                                   .arg(t.run_id)
                                   .arg(QString::fromStdString(t.policy))
                                   .arg(t.ranks)
                                   .arg(events));
    } else {
        m_statusLabel->setText(tr("%1 has no runs yet").arg(QFileInfo(snapshot.path).fileName()));
    }
    emit projectLoaded(snapshot.path, snapshot.runId);
}

void MainWindow::onLoadFailed(const QString& path, const QString& message)
{
    // The project on screen stays as it was: a failed open loses nothing.
    m_statusLabel->setText(tr("Could not open %1").arg(QFileInfo(path).fileName()));
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Cannot open project"),
                                tr("Pacer cannot open %1.").arg(QDir::toNativeSeparators(path)), QMessageBox::Ok, this);
    box->setObjectName(QStringLiteral("projectErrorBox"));
    box->setInformativeText(message);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();  // window-modal and non-blocking, so no nested event loop
    emit projectFailed(path, message);
}

void MainWindow::startRun()
{
    startRunOf(m_experimentPath);
}

void MainWindow::runSchedule()
{
    ScheduleEditorModel* editor = m_scheduleDock->editor();
    if (!editor->input() || m_projectPath.isEmpty())
        return;
    const ScheduleSettings settings = editor->settings();
    nlohmann::json experiment;
    std::string error;
    if (!app::experimentWithSchedule(nlohmann::json::parse(editor->input()->experimentJson, nullptr, false),
                                     settings.config, settings.whatIf, &experiment, &error)) {
        onRunFailed(QString::fromStdString(error));
        return;
    }
    // The prediction of exactly these settings (the worker's latest may still be an older edit's), unit by unit:
    // the check compares every unit's predicted and measured times.
    const ReplayOutcome prediction = computeReplay(*editor->input(), settings, 0, ReplayDetail::EveryUnit);
    if (!prediction.error.isEmpty()) {
        onRunFailed(prediction.error);
        return;
    }
    const QString dir = m_projectPath + QStringLiteral(".runs");
    QDir().mkpath(dir);
    const QString path = dir + QStringLiteral("/schedule-%1.json").arg(QDateTime::currentMSecsSinceEpoch());
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(QByteArray::fromStdString(experiment.dump(2))) < 0) {
        onRunFailed(tr("cannot write %1").arg(path));
        return;
    }
    file.close();
    m_checkDock->expect(prediction);
    m_runningSchedule = settings;
    startRunOf(path);
}

void MainWindow::startRunOf(const QString& experimentPath)
{
#if PACER_GUI_HAVE_LAUNCHER
    if (m_launcher->isRunning() || experimentPath.isEmpty() || m_projectPath.isEmpty())
        return;
    m_rankIterations.clear();
    app::RunLauncher::Request request;
    request.experimentPath = experimentPath;
    request.projectPath = m_projectPath;
    if (!m_runningSchedule) {  // a schedule's experiment file already holds its settings
        request.policy = m_runSettings.policy;
        request.segmentBytes = m_runSettings.segmentBytes;
    }
    request.iterations = m_runSettings.iterations;
    m_progress->setRange(0, 0);
    m_progress->setFormat(tr("starting…"));
    m_statusLabel->setText(tr("Running %1…").arg(QFileInfo(experimentPath).completeBaseName()));
    setRunning(true);
    m_launcher->start(request);
#else
    (void)experimentPath;
    onRunFailed(tr("this build of pacer has no run launcher"));
#endif
}

void MainWindow::cancelRun()
{
#if PACER_GUI_HAVE_LAUNCHER
    if (m_launcher->isRunning())
        m_launcher->cancel();
#endif
}

void MainWindow::onRunProgress(int rank, int iteration, int total)
{
    if (total <= 0 || rank < 0)
        return;
    // The bar follows the slowest rank; the text says where each one is.
    if (static_cast<int>(m_rankIterations.size()) <= rank)
        m_rankIterations.resize(static_cast<std::size_t>(rank) + 1, 0);
    m_rankIterations[static_cast<std::size_t>(rank)] = std::clamp(iteration, 0, total);
    QStringList ranks;
    for (std::size_t r = 0; r < m_rankIterations.size(); ++r)
        ranks << tr("r%1 %2").arg(r).arg(m_rankIterations[r]);
    m_progress->setRange(0, total);
    m_progress->setValue(*std::min_element(m_rankIterations.begin(), m_rankIterations.end()));
    m_progress->setFormat(tr("%1 of %m").arg(ranks.join(QStringLiteral(" · "))));
}

void MainWindow::onRunFinished(qint64 runId)
{
    setRunning(false);
    if (m_checkDock->isWaiting())
        m_checkRun = runId;
    m_statusLabel->setText(tr("Run %1 finished").arg(runId));
    emit runFinished(runId);
    openProject(m_projectPath, runId);
}

void MainWindow::onRunFailed(const QString& message)
{
    setRunning(false);
    m_checkDock->cancelWaiting();
    m_runningSchedule.reset();
    m_statusLabel->setText(tr("Run failed: %1").arg(message));
    emit runFailed(message);
}

void MainWindow::setRunning(bool running)
{
    m_progress->setVisible(running);
    m_cancelButton->setVisible(running);
    m_cancelAction->setEnabled(running);
#if PACER_GUI_HAVE_LAUNCHER
    m_runAction->setEnabled(!running && !m_experimentPath.isEmpty());
#else
    m_runAction->setEnabled(false);
#endif
    m_openAction->setEnabled(!running);
}

void MainWindow::openFileDialog()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Pacer Project"), QFileInfo(m_projectPath).absolutePath(),
                                                      tr("Pacer projects (*.pacer);;All files (*)"));
    if (!path.isEmpty())
        openProject(path);
}

void MainWindow::updateTitle()
{
    const QString project = m_projectPath.isEmpty() ? tr("no project") : QFileInfo(m_projectPath).fileName();
    setWindowTitle(m_shownRun > 0 ? tr("%1 — run %2 — Pacer").arg(project).arg(m_shownRun) : tr("%1 — Pacer").arg(project));
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    cancelRun();
    QMainWindow::closeEvent(event);
}

void MainWindow::createScheduleDock(QMenu* viewMenu)
{
    m_scheduleDock = new ScheduleEditorDock(this);
    addDockWidget(Qt::RightDockWidgetArea, m_scheduleDock);
    viewMenu->addAction(m_scheduleDock->toggleViewAction());
    // Each replay brings the measured run with the replay's lanes under it; the zoom the user chose stays.
    connect(m_scheduleDock->editor(), &ScheduleEditorModel::replayed, this, [this](const ReplayOutcome& outcome) {
        ZoomState* zoom = m_timeline->zoom();
        const bool zoomed = zoom->isZoomed();
        const qint64 start = zoom->visibleStart(), end = zoom->visibleEnd();
        m_timeline->setIndex(outcome.index);
        if (zoomed)
            zoom->setVisibleRange(start, end);
    });
    connect(m_scheduleDock, &ScheduleEditorDock::message, m_statusLabel, &QLabel::setText);
    connect(m_scheduleDock, &ScheduleEditorDock::runRequested, this, &MainWindow::runSchedule);
    m_checkDock = new PredictionCheckDock(this);
    addDockWidget(Qt::BottomDockWidgetArea, m_checkDock);
    viewMenu->addAction(m_checkDock->toggleViewAction());
    m_checkDock->hide();  // until a schedule has been run
    connect(m_scheduleDock, &ScheduleEditorDock::scheduleSaved, this, [this](const QString&, qint64) {
        openProject(m_projectPath, m_shownRun);  // the tree reads the saved schedule back from the file
        m_statusLabel->setText(tr("Schedule saved"));
    });
}

void MainWindow::loadSchedule(qint64 scheduleId)
{
    auto saved = profiler::listSchedules(m_projectPath.toStdString());
    if (!saved.ok()) {
        m_statusLabel->setText(QString::fromStdString(saved.message()));
        return;
    }
    for (const profiler::SavedSchedule& s : saved.value()) {
        if (s.id != scheduleId)
            continue;
        const engine::Status st = m_scheduleDock->editor()->load(s);
        m_statusLabel->setText(st.ok() ? tr("Schedule %1 loaded").arg(QString::fromStdString(s.name))
                                       : QString::fromStdString(st.message()));
        return;
    }
}

}  // namespace pacer::gui
