// The experiment editor (Run ▸ New Experiment…): a model (one of the sample experiments), ranks, backend (CPU, or
// the GPUs that `pacer-worker --list-gpus` finds), policy and its settings, iterations, order and channels, and the
// emulated link. Every change is checked at once by resolveLaunch, the check `pacer-cli capture` runs, and a refused
// setting shows the CLI's own sentence; Launch writes the resolved experiment beside the project and asks the window
// to run it, so the run arrives in the project tree like any other.
#pragma once

#include "app/gui/models/launch_settings.h"

#include <QDialog>
#include <QMap>

class QAction;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QProcess;
class QPushButton;
class QMenu;
class QSpinBox;

namespace pacer::gui {

class MainWindow;

class ExperimentEditorDialog : public QDialog {
    Q_OBJECT
public:
    // experimentsDir: where the sample experiments are (defaultExperimentsDir() in the program).
    explicit ExperimentEditorDialog(const QString& experimentsDir, QWidget* parent = nullptr);
    ~ExperimentEditorDialog() override;

    // The project new runs go to (the window's).
    void setProjectPath(const QString& path) { m_projectPath = path; }

    LaunchSettings settings() const;
    void setSettings(const LaunchSettings& settings);
    // Checks the settings shown; the CLI's message when refused, empty when they can run.
    QString validate();
    QString error() const;
    void setError(const QString& message);
    // GPUs found by the worker (empty until discovery answers, or when there are none).
    QStringList gpus() const { return m_gpus; }

public slots:
    // Validates, writes the experiment and emits launchRequested; a refusal stays in the dialog.
    void launch();

signals:
    void launchRequested(const QString& experimentPath);
    void gpusDiscovered(const QStringList& gpus);

private:
    void showPolicySettings(const QString& policy, const QMap<QString, QString>& values);
    void startGpuDiscovery();
    void selectSample(int index);

    std::vector<SampleExperiment> m_samples;
    QString m_projectPath;
    QStringList m_gpus;
    QProcess* m_discovery = nullptr;
    bool m_loading = false;  // setSettings in progress: no validation per field

    QComboBox* m_model = nullptr;
    QSpinBox* m_ranks = nullptr;
    QComboBox* m_backend = nullptr;
    QComboBox* m_policy = nullptr;
    QFormLayout* m_policyForm = nullptr;
    QMap<QString, QLineEdit*> m_policyFields;
    QSpinBox* m_iterations = nullptr;
    QComboBox* m_order = nullptr;
    QSpinBox* m_channels = nullptr;
    QDoubleSpinBox* m_linkGbps = nullptr;
    QDoubleSpinBox* m_linkLatency = nullptr;
    QLabel* m_error = nullptr;
    QPushButton* m_launch = nullptr;
};

// Run ▸ New Experiment…: opens the editor (made on first use, objectName "experimentEditor"); a launch becomes the
// experiment the window's Run action starts, and is started at once.
QAction* addExperimentEditor(MainWindow* window, QMenu* runMenu);

}  // namespace pacer::gui
