#include "app/gui/analysis_panel.h"

#include "app/gui/models/analysis_model.h"
#include "app/gui/models/time_axis.h"
#include "app/gui/timeline_view.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QThread>
#include <QVBoxLayout>

namespace pacer::gui {

AnalysisPanel::AnalysisPanel(TimelineView* timeline, QWidget* parent)
    : QWidget(parent), m_timeline(timeline), m_model(new AnalysisModel(this)), m_table(new QTableView(this)),
      m_summary(new QLabel(this)), m_jobs(this, [this](quint64 generation, const Done& done) {
          if (generation == m_jobs.generation())  // an older run's analysis that finished late: not shown
              showAnalysis(done);
      })
{
    setObjectName(QStringLiteral("analysisPanel"));
    m_table->setModel(m_model);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_summary);
}

QString AnalysisPanel::summary() const
{
    return m_summary->text();
}

profiler::analysis::RunAnalysis AnalysisPanel::analysisNow() const
{
    const TimelineModel* timeline = m_timeline->model();
    const std::shared_ptr<const profiler::RunTrace>& trace = timeline->timelineIndex().trace;
    if (!trace || timeline->isLarge())
        return {};
    if (trace == m_shownTrace)
        return m_model->analysis();
    return profiler::analysis::analyzeRun(*trace);
}

void AnalysisPanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_stale)
        refresh();
}

void AnalysisPanel::refresh()
{
    // The outline belongs to the run it was found on: it goes as soon as the run does.
    m_timeline->setPath({});
    if (!isVisible()) {
        m_stale = true;
        m_jobs.dropPending();
        return;
    }
    m_stale = false;
    const TimelineModel* timeline = m_timeline->model();
    std::shared_ptr<const profiler::RunTrace> trace = timeline->timelineIndex().trace;
    if (!trace || timeline->isLarge()) {
        m_jobs.request([] { return Done{}; });  // supersedes an analysis still running for an older run
        m_model->setAnalysis({});
        m_shownTrace.reset();
        m_summary->setText(timeline->isLarge() ? tr("This run is read a window at a time; analyse it with "
                                                    "pacer-cli analyze --project FILE.")
                                               : QString());
        return;
    }
    m_jobs.request([trace = std::move(trace), count = &m_analyses] {
        ++*count;
        return Done{profiler::analysis::analyzeRun(*trace), QThread::currentThread(), trace};
    });
}

void AnalysisPanel::showAnalysis(Done done)
{
    if (!done.thread) {  // the empty result of a run that is not analysed here
        emit analysed();
        return;
    }
    m_lastThread = done.thread;
    profiler::analysis::RunAnalysis& analysis = done.analysis;
    QString text;
    if (analysis.straggler_rank >= 0)
        text += tr("Straggler: rank %1 (starts collectives latest; %2 collectives matched across ranks).<br>")
                    .arg(analysis.straggler_rank)
                    .arg(analysis.matched_collectives);
    const auto& cp = analysis.critical_path;
    std::vector<PathMark> marks;
    if (cp.iteration >= 0) {
        text += tr("Critical path of iteration %1 (rank %2, outlined on the timeline): %3, compute %4, "
                   "communication %5, %6 steps.")
                    .arg(cp.iteration)
                    .arg(cp.rank)
                    .arg(formatDuration(cp.length_ns), formatDuration(cp.compute_ns), formatDuration(cp.comm_ns))
                    .arg(cp.steps.size());
        for (const auto& step : cp.steps)
            marks.push_back({step.track, step.start, step.end});
    }
    m_summary->setText(text);
    m_timeline->setPath(std::move(marks));
    m_model->setAnalysis(std::move(analysis));
    m_shownTrace = std::move(done.trace);
    emit analysed();
}

}  // namespace pacer::gui
