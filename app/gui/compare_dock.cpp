#include "app/gui/compare_dock.h"

#include "app/common/units.h"
#include "app/gui/compare_charts.h"
#include "app/gui/main_window.h"
#include "app/gui/models/schedule_editor_model.h"
#include "app/gui/models/zoom_state.h"
#include "app/gui/schedule_editor_dock.h"
#include "app/gui/timeline_view.h"

#include <QAction>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSplitter>
#include <QStatusBar>
#include <QTableView>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>

namespace pacer::gui {

namespace {

// The settings a sweep depends on: all but the policy name and the segment size it sweeps.
ScheduleSettings sweepBase(ScheduleSettings s) {
    s.config.name = "pace";
    s.config.segment_bytes = 0;
    return s;
}

}  // namespace

CompareDock::CompareDock(ScheduleEditorModel* editor, QWidget* parent)
    : QDockWidget(tr("Compare"), parent), m_editor(editor) {
    setObjectName(QStringLiteral("compareDock"));
    auto* body = new QWidget(this);
    auto* layout = new QVBoxLayout(body);
    layout->setContentsMargins(4, 4, 4, 4);

    auto* bar = new QHBoxLayout;
    auto* pinRun = new QPushButton(tr("Pin shown run"), body);
    pinRun->setObjectName(QStringLiteral("pinRunButton"));
    auto* pinSchedule = new QPushButton(tr("Pin editor's schedule"), body);
    pinSchedule->setObjectName(QStringLiteral("pinScheduleButton"));
    auto* unpin = new QPushButton(tr("Unpin"), body);
    unpin->setObjectName(QStringLiteral("unpinButton"));
    m_baseline = new QComboBox(body);
    m_baseline->setObjectName(QStringLiteral("baselineBox"));
    m_baseline->setToolTip(tr("The row differences are taken against"));
    m_status = new QLabel(body);
    m_status->setObjectName(QStringLiteral("compareStatus"));
    // A long line (the machine's note) is cut at the dock's edge rather than widening it; its tooltip holds it whole.
    m_status->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    bar->addWidget(pinRun);
    bar->addWidget(pinSchedule);
    bar->addWidget(unpin);
    bar->addSpacing(12);
    bar->addWidget(new QLabel(tr("Baseline:"), body));
    bar->addWidget(m_baseline);
    bar->addWidget(m_status, 1);
    layout->addLayout(bar);

    m_timeline = new TimelineView(body);
    m_timeline->setObjectName(QStringLiteral("compareTimeline"));
    m_timeline->setEmptyText(tr("Pin runs and schedules to see them on one time axis,\n"
                                "each aligned at the start of its first steady iteration."));
    m_table = new QTableView(body);
    m_table->setObjectName(QStringLiteral("compareTable"));
    m_table->setModel(&m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_breakdown = new BreakdownChart(&m_model, body);
    m_sweepChart = new SweepChart(&m_sweep, body);

    auto* lower = new QSplitter(Qt::Horizontal, body);
    lower->addWidget(m_table);
    lower->addWidget(m_breakdown);
    lower->addWidget(m_sweepChart);
    lower->setStretchFactor(0, 3);
    lower->setStretchFactor(1, 1);
    lower->setStretchFactor(2, 2);
    auto* split = new QSplitter(Qt::Vertical, body);
    split->addWidget(m_timeline);
    split->addWidget(lower);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);
    setWidget(body);

    connect(pinRun, &QPushButton::clicked, this, &CompareDock::pinShownRun);
    connect(pinSchedule, &QPushButton::clicked, this, &CompareDock::pinEditorSchedule);
    connect(unpin, &QPushButton::clicked, this, [this] {
        const QModelIndex current = m_table->currentIndex();
        m_session.unpin(current.isValid() ? current.row() : m_model.rowCount() - 1);
    });
    connect(m_baseline, &QComboBox::currentIndexChanged, this, [this](int row) {
        if (row >= 0) m_model.setBaseline(row);
    });
    // The chosen baseline is kept with the pins in the project.
    connect(&m_model, &CompareModel::baselineChanged, &m_session, &CompareSession::setBaseline);
    connect(&m_model, &CompareModel::baselineChanged, this, &CompareDock::showStatus);  // the marks move with it
    connect(&m_session, &CompareSession::computed, this, &CompareDock::showOutcome);
    connect(&m_session, &CompareSession::pinsProblem, this, [this](const QString& why) {
        setStatus(why);
        emit message(why);
    });
    connect(&m_sweep, &SweepModel::sweepFailed, this, [this](const QString& why) { emit message(tr("Sweep: %1").arg(why)); });
    connect(m_sweepChart, &SweepChart::pointClicked, this, &CompareDock::applySweepPoint);
    connect(m_editor, &ScheduleEditorModel::settingsChanged, this, [this] {
        if (isVisible()) refreshSweep();
    });
}

void CompareDock::showEvent(QShowEvent* event) {
    QDockWidget::showEvent(event);
    refreshSweep();
}

void CompareDock::refreshSweep() {
    const app::ReplayInput* input = m_editor->input();
    const ScheduleSettings base = sweepBase(m_editor->settings());
    if (input == m_sweptInput && sameSettings(base, m_sweptBase)) return;
    m_sweptInput = input;
    m_sweptBase = base;
    m_sweep.request(m_editor->worker()->sharedInput(), m_editor->settings());
}

void CompareDock::pinShownRun() {
    const app::ReplayInput* input = m_editor->input();
    if (!input || input->runId <= 0) {
        emit message(tr("No stored run is shown to pin"));
        return;
    }
    m_session.offerInput(m_editor->worker()->sharedInput());
    m_session.pinRun(input->runId);
}

void CompareDock::pinEditorSchedule() {
    const app::ReplayInput* input = m_editor->input();
    if (!input || input->runId <= 0) {
        emit message(tr("The editor has no stored run to replay its schedule on"));
        return;
    }
    app::CompareItem item;
    item.runId = input->runId;
    item.config = m_editor->settings().config;
    item.whatIf = m_editor->settings().whatIf;
    item.label = app::describeSchedule(item.config);
    m_session.offerInput(m_editor->worker()->sharedInput());
    m_session.pinSchedule(std::move(item));
}

void CompareDock::applySweepPoint(int row, int column) {
    if (row < 0 || m_sweep.policyOf(column).empty() || !m_editor->input()) return;
    const ScheduleSettings next = m_sweep.settingsAt(row, column);
    m_editor->edit(next, tr("Sweep point %1 %2")
                             .arg(QString::fromStdString(next.config.name),
                                  QString::fromStdString(app::formatSize(static_cast<std::int64_t>(next.config.segment_bytes)))));
    emit message(tr("Applied %1 at %2 segments from the sweep")
                     .arg(QString::fromStdString(next.config.name),
                          QString::fromStdString(app::formatSize(static_cast<std::int64_t>(next.config.segment_bytes)))));
}

void CompareDock::showOutcome(const CompareOutcome& outcome) {
    if (!outcome.error.isEmpty()) {
        setStatus(tr("Cannot compare: %1").arg(outcome.error));
        emit message(m_status->text());
        return;  // the last good comparison stays on screen
    }
    m_model.setComparison(outcome.comparison);
    m_model.setBaseline(m_session.baseline());  // as restored with the pins, or as chosen
    m_timeline->setIndex(outcome.stack ? outcome.stack : buildTimelineIndex(nullptr));
    // Two iterations from where the rows are aligned: the part of the axis where they can be told apart.
    double longestMs = 0;
    for (int r = 0; r < m_model.rowCount(); ++r)
        longestMs = std::max(longestMs, m_model.index(r, CompareModel::IterationMs).data(CompareModel::ValueRole).toDouble());
    if (longestMs > 0) {
        const auto ns = static_cast<std::int64_t>(longestMs * 1e6);
        m_timeline->zoom()->setVisibleRange(outcome.alignedAt - ns / 10, outcome.alignedAt + 2 * ns + ns / 10);
    }
    const int baseline = m_model.baseline();
    {
        const QSignalBlocker block(m_baseline);
        m_baseline->clear();
        for (int r = 0; r < m_model.rowCount(); ++r)
            m_baseline->addItem(QStringLiteral("#%1 %2").arg(r + 1).arg(m_model.index(r, CompareModel::Item).data().toString()));
        m_baseline->setCurrentIndex(baseline);
    }
    showStatus();
}

void CompareDock::showStatus() {
    const app::Comparison* c = m_model.comparison();
    setStatus(!m_session.pinsProblemText().isEmpty() ? m_session.pinsProblemText()
              : c && c->mixedExperiments() ? tr("%1 experiments: differences only within one").arg(c->groups.size())
                                           : m_model.machineNotes());
}

void CompareDock::setStatus(const QString& text) {
    m_status->setText(text);
    m_status->setToolTip(text);  // whole, where the dock is too narrow for the line
}

CompareDock* addCompareDock(MainWindow* window, QMenu* viewMenu) {
    auto* dock = new CompareDock(window->scheduleDock()->editor(), window);
    window->addDockWidget(Qt::BottomDockWidgetArea, dock);
    dock->hide();  // until something is pinned
    QAction* toggle = dock->toggleViewAction();
    toggle->setText(QObject::tr("&Compare"));
    viewMenu->addAction(toggle);
    QObject::connect(dock, &CompareDock::message, window, [window](const QString& text) { window->statusBar()->showMessage(text, 5000); });
    QObject::connect(window, &MainWindow::projectLoaded, dock, [dock](const QString& path, qint64) {
        dock->session()->setProject(path);
    });

    // "Pin to Compare" on a run or a saved schedule of the project tree.
    if (auto* tree = window->findChild<QTreeView*>(QStringLiteral("projectTree"))) {
        auto* pin = new QAction(QObject::tr("Pin to Compare"), tree);
        pin->setObjectName(QStringLiteral("pinToCompareAction"));
        tree->addAction(pin);
        tree->setContextMenuPolicy(Qt::ActionsContextMenu);
        QObject::connect(pin, &QAction::triggered, dock, [window, dock, tree] {
            const QModelIndex index = tree->currentIndex();
            const auto kind = static_cast<ProjectTreeModel::NodeKind>(index.data(ProjectTreeModel::NodeKindRole).toInt());
            if (kind == ProjectTreeModel::NodeKind::Run) {
                dock->session()->pinRun(index.data(ProjectTreeModel::RunIdRole).toLongLong());
            } else if (kind == ProjectTreeModel::NodeKind::Schedule) {
                auto saved = profiler::listSchedules(window->projectPath().toStdString());
                const qint64 id = index.data(ProjectTreeModel::ScheduleIdRole).toLongLong();
                for (const profiler::SavedSchedule& s : saved.ok() ? saved.value() : std::vector<profiler::SavedSchedule>{})
                    if (s.id == id)
                        if (const engine::Status st = dock->session()->pinSavedSchedule(s); !st.ok())
                            emit dock->message(QString::fromStdString(st.message()));
            } else {
                return;
            }
            dock->show();
            dock->raise();
        });
    }
    return dock;
}

}  // namespace pacer::gui
