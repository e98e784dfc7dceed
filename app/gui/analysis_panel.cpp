#include "app/gui/analysis_panel.h"

#include "app/gui/models/analysis_model.h"
#include "app/gui/models/large_run.h"
#include "app/gui/models/time_axis.h"
#include "app/gui/timeline_view.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QThread>
#include <QVBoxLayout>

namespace pacer::gui {

namespace {

// What the figures are of: the trace in memory, or for a large run the run in its project (its windows come and go).
std::shared_ptr<const void> subjectOf(const TimelineModel& timeline)
{
    if (timeline.isLarge())
        return timeline.timelineIndex().large;
    return timeline.timelineIndex().trace;
}

// A large run's figures, streamed from its project file as `pacer-cli analyze` computes them.
profiler::analysis::RunAnalysis analyzeLarge(const LargeRun& run, QString* error)
{
    auto reader = profiler::RunReader::open(run.path.toStdString(), run.runId);
    if (!reader.ok()) {
        *error = QString::fromStdString(reader.status().message());
        return {};
    }
    auto analysis = profiler::analysis::analyzeStored(*reader.value());
    if (!analysis.ok()) {
        *error = QString::fromStdString(analysis.status().message());
        return {};
    }
    return std::move(analysis).value();
}

}  // namespace

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
    const std::shared_ptr<const void> subject = subjectOf(*timeline);
    if (!subject)
        return {};
    if (subject == m_shownSubject)
        return m_model->analysis();
    if (timeline->isLarge()) {
        QString error;
        return analyzeLarge(*timeline->timelineIndex().large, &error);
    }
    return profiler::analysis::analyzeRun(*timeline->timelineIndex().trace);
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
    if (!subjectOf(*timeline)) {
        m_jobs.request([] { return Done{}; });  // supersedes an analysis still running for an older run
        m_model->setAnalysis({});
        m_shownSubject.reset();
        m_summary->clear();
        return;
    }
    if (timeline->isLarge()) {
        m_summary->setText(tr("Analysing the run in its project file…"));
        m_jobs.request([run = timeline->timelineIndex().large, count = &m_analyses] {
            ++*count;
            Done done;
            done.analysis = analyzeLarge(*run, &done.error);
            done.thread = QThread::currentThread();
            done.subject = run;
            return done;
        });
        return;
    }
    m_jobs.request([trace = timeline->timelineIndex().trace, count = &m_analyses] {
        ++*count;
        return Done{profiler::analysis::analyzeRun(*trace), QThread::currentThread(), trace, {}};
    });
}

void AnalysisPanel::showAnalysis(Done done)
{
    if (!done.thread) {  // the empty result of a run that is not analysed here
        emit analysed();
        return;
    }
    m_lastThread = done.thread;
    if (!done.error.isEmpty()) {
        m_model->setAnalysis({});
        m_shownSubject.reset();
        m_summary->setText(tr("The run could not be analysed: %1").arg(done.error));
        emit analysed();
        return;
    }
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
    m_shownSubject = std::move(done.subject);
    emit analysed();
}

}  // namespace pacer::gui
