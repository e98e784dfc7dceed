// The analysis panel: per rank the time split into compute, exposed communication and idle, the overlap of
// communication with compute, the straggler, and the critical path of an iteration (listed here and outlined on
// the timeline). The figures come from profiler/analysis, as `pacer-cli analyze` prints them.
#pragma once

#include <QWidget>

class QLabel;
class QTableView;

namespace pacer::gui {

class AnalysisModel;
class TimelineView;

class AnalysisPanel : public QWidget {
    Q_OBJECT
public:
    explicit AnalysisPanel(TimelineView* timeline, QWidget* parent = nullptr);

    AnalysisModel* model() const { return m_model; }
    QString summary() const;

public slots:
    // Analyses the run the timeline shows (a large run read by window is not analysed here: too many events).
    void refresh();

private:
    TimelineView* m_timeline;
    AnalysisModel* m_model;
    QTableView* m_table;
    QLabel* m_summary;
};

}  // namespace pacer::gui
