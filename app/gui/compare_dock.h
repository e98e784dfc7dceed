// The compare view (a dock): pin any number of runs and schedules (the shown run, the editor's schedule, saved
// schedules from the project tree); their lanes stack on one time axis aligned at an iteration start; a table of
// their figures with the change against a chosen baseline (CompareModel, the CLI's comparison); a bar chart of
// each iteration split into compute / exposed communication / idle; and the segment sweep of the editor's run,
// one curve per policy, where clicking a point applies that policy and segment size in the editor (undoable).
#pragma once

#include "app/gui/models/compare_model.h"
#include "app/gui/models/compare_session.h"
#include "app/gui/models/sweep_model.h"

#include <QDockWidget>

class QComboBox;
class QLabel;
class QMenu;
class QPushButton;
class QTableView;

namespace pacer::gui {

class BreakdownChart;
class MainWindow;
class ScheduleEditorModel;
class SweepChart;
class TimelineView;

class CompareDock : public QDockWidget {
    Q_OBJECT
public:
    explicit CompareDock(ScheduleEditorModel* editor, QWidget* parent = nullptr);

    CompareSession* session() { return &m_session; }
    CompareModel* model() { return &m_model; }
    SweepModel* sweepModel() { return &m_sweep; }
    TimelineView* timeline() const { return m_timeline; }
    QTableView* table() const { return m_table; }
    QComboBox* baselineBox() const { return m_baseline; }
    BreakdownChart* breakdownChart() const { return m_breakdown; }
    SweepChart* sweepChart() const { return m_sweepChart; }

    // The editor's run and its schedule as they are now.
    void pinShownRun();
    void pinEditorSchedule();
    // The point (row, policy column) of the sweep as the editor's policy and segment size: one undoable edit.
    void applySweepPoint(int row, int column);
    // Sweeps the editor's run again if its input or what-ifs changed since the last sweep.
    void refreshSweep();

signals:
    void message(const QString& text);

protected:
    void showEvent(QShowEvent* event) override;

private:
    void showOutcome(const CompareOutcome& outcome);
    // The line beside the baseline box: a problem with the pins, else mixed experiments, else what the table's " *"
    // marks mean (CompareModel::machineNotes), else nothing.
    void showStatus();
    void setStatus(const QString& text);

    ScheduleEditorModel* m_editor;
    CompareSession m_session;
    CompareModel m_model;
    SweepModel m_sweep;
    const app::ReplayInput* m_sweptInput = nullptr;  // what the sweep was last asked for
    ScheduleSettings m_sweptBase;

    TimelineView* m_timeline = nullptr;
    QTableView* m_table = nullptr;
    QComboBox* m_baseline = nullptr;
    QLabel* m_status = nullptr;
    BreakdownChart* m_breakdown = nullptr;
    SweepChart* m_sweepChart = nullptr;
};

// Adds the compare dock to the main window (View ▸ Compare), a "Pin to Compare" action on the project tree's runs
// and schedules, and keeps its project in step with the window's.
CompareDock* addCompareDock(MainWindow* window, QMenu* viewMenu);

}  // namespace pacer::gui
