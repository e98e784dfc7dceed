// The schedule editor dock: policy, a segment-size slider on a log scale (4 KiB .. 256 MiB), the settings of
// the policies that have them, what-if knobs, the tensor list (drag a row to change its priority), Optimize,
// Save, the figures of the latest replay, and what a self-tuned run chose (the editor opens with it). All state lives in ScheduleEditorModel; this only shows it.
#pragma once

#include "app/gui/models/schedule_editor_model.h"

#include <QDockWidget>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSlider;
class QSpinBox;
class QTableView;

namespace pacer::gui {

class TensorPriorityModel;

class ScheduleEditorDock : public QDockWidget {
    Q_OBJECT
public:
    explicit ScheduleEditorDock(QWidget* parent = nullptr);

    ScheduleEditorModel* editor() { return &m_editor; }
    QSlider* segmentSlider() const { return m_segment; }
    QTableView* tensorView() const { return m_tensors; }
    TensorPriorityModel* tensorModel() const { return m_tensorModel; }
    QLabel* figuresLabel() const { return m_figures; }
    QLabel* tunedLabel() const { return m_tuned; }  // what a self-tuned run chose; hidden for other inputs
    QPushButton* runButton() const { return m_run; }

    // The slider's positions: quarter octaves, so 4 KiB is 48 and 256 MiB is 112.
    static int sliderPosition(std::size_t bytes);
    static std::size_t sliderBytes(int position);

    // The project saved schedules go to (and load from).
    void setProject(const QString& path) { m_project = path; }

signals:
    // A schedule was saved into the project (the tree should show it).
    void scheduleSaved(const QString& project, qint64 scheduleId);
    // "Run this schedule": the window launches a real run with the editor's settings.
    void runRequested();
    void message(const QString& text);

private:
    void showSettings();
    void showOutcome(const ReplayOutcome& outcome);
    void editWhatIf();
    void editPolicyField();
    void saveAs();

    ScheduleEditorModel m_editor;
    TensorPriorityModel* m_tensorModel = nullptr;
    QString m_project;
    bool m_showing = false;  // true while showSettings() writes into the widgets: their signals are not edits

    QComboBox* m_policy = nullptr;
    QSlider* m_segment = nullptr;
    QLabel* m_segmentValue = nullptr;
    QSpinBox* m_bucketMiB = nullptr;
    QSpinBox* m_credit = nullptr;
    QSpinBox* m_fuseBelowKiB = nullptr;
    QDoubleSpinBox* m_linkGbps = nullptr;
    QDoubleSpinBox* m_latencyUs = nullptr;
    QSpinBox* m_ranks = nullptr;
    QDoubleSpinBox* m_computeSpeed = nullptr;
    QSpinBox* m_channels = nullptr;
    QTableView* m_tensors = nullptr;
    QLabel* m_figures = nullptr;
    QLabel* m_tuned = nullptr;
    QPushButton* m_optimize = nullptr;
    QPushButton* m_save = nullptr;
    QPushButton* m_run = nullptr;
};

}  // namespace pacer::gui
