// The analysis panel: per rank the time split into compute, exposed communication and idle, the overlap of
// communication with compute, the straggler, and the critical path of an iteration (listed here and outlined on
// the timeline). The figures come from profiler/analysis, as `pacer-cli analyze` prints them.
//
// A run held whole is analysed in memory; a large run read a window at a time is analysed from its project file
// (profiler::analysis::analyzeStored, what `pacer-cli analyze` runs: each rank streamed once in start order, no
// event held), so the figures are the CLI's. The shown run changes at every replay the schedule editor draws (a
// slider drag resets the timeline many times a second): so the panel analyses only while it is visible (a hidden
// panel remembers that it is stale and analyses when shown), and off the GUI thread, newest wins.
#pragma once

#include "app/gui/models/newest_wins.h"
#include "profiler/analysis/trace_analysis.h"

#include <QWidget>

#include <atomic>

class QLabel;
class QTableView;
class QThread;

namespace pacer::gui {

class AnalysisModel;
class TimelineView;

class AnalysisPanel : public QWidget {
    Q_OBJECT
public:
    explicit AnalysisPanel(TimelineView* timeline, QWidget* parent = nullptr);

    AnalysisModel* model() const { return m_model; }
    QString summary() const;
    // Analyses actually run, and the thread the latest ran on (tests: hidden panels do no work, none on the GUI
    // thread).
    int analysesRun() const { return m_analyses.load(); }
    const QThread* lastAnalysisThread() const { return m_lastThread; }
    // An analysis is asked for or running.
    bool isBusy() const { return m_jobs.isBusy(); }
    // The analysis of the run shown now, for an export: the panel's when it is of that run, else computed here
    // and now (a hidden panel has not analysed it; a large run is then streamed from its project); empty for no run.
    profiler::analysis::RunAnalysis analysisNow() const;

public slots:
    // Analyses the run the timeline shows.
    void refresh();

signals:
    void analysed();

protected:
    void showEvent(QShowEvent* event) override;

private:
    struct Done {
        profiler::analysis::RunAnalysis analysis;
        const QThread* thread = nullptr;
        std::shared_ptr<const void> subject;  // the run analysed: its trace, or the large run read from its project
        QString error;
    };
    void showAnalysis(Done done);

    TimelineView* m_timeline;
    AnalysisModel* m_model;
    QTableView* m_table;
    QLabel* m_summary;
    bool m_stale = true;  // the shown run changed while the panel was hidden
    const QThread* m_lastThread = nullptr;
    std::shared_ptr<const void> m_shownSubject;  // the run whose analysis the panel shows
    std::atomic<int> m_analyses{0};
    NewestWins<Done> m_jobs;
};

}  // namespace pacer::gui
