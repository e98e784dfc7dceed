// "Run this schedule", afterwards: the prediction the editor made when the run was launched beside what the run
// measured (iteration time, error in percent), and each communication unit's predicted and measured start and
// end in one iteration, the units that drift most highlighted.
#pragma once

#include "app/gui/models/replay_worker.h"
#include "app/gui/models/unit_diff_model.h"

#include <QDockWidget>

class QLabel;
class QTableView;

namespace pacer::gui {

class PredictionCheckDock : public QDockWidget {
    Q_OBJECT
public:
    explicit PredictionCheckDock(QWidget* parent = nullptr);

    // The prediction a launch is checked against; the dock waits for the run.
    void expect(const ReplayOutcome& prediction);
    bool isWaiting() const { return m_waiting; }
    // The run made with it: shows the comparison and stops waiting.
    void showMeasured(const profiler::RunTrace& run, double measuredIterMs);
    void cancelWaiting() { m_waiting = false; }

    const ReplayOutcome& prediction() const { return m_prediction; }
    double errorPercent() const { return m_errorPercent; }
    UnitDiffModel* unitModel() const { return m_units; }
    QLabel* summaryLabel() const { return m_summary; }

private:
    ReplayOutcome m_prediction;
    bool m_waiting = false;
    double m_errorPercent = 0;
    QLabel* m_summary = nullptr;
    QTableView* m_table = nullptr;
    UnitDiffModel* m_units = nullptr;
};

}  // namespace pacer::gui
