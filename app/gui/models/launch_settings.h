// What the experiment editor launches: a sample experiment (its model family and size) with the settings the
// editor lets a person change, checked by app::resolveForLaunch, the very check `pacer-cli capture` runs, so a
// refused setting reads the same in both. Widget-free, so the checks are tested without a window.
#pragma once

#include "app/common/experiment.h"

#include <QMap>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace pacer::gui {

// A sample experiment offered as a model: samples/experiments/*.json.
struct SampleExperiment {
    QString path;
    QString name;         // the experiment's name
    QString description;  // "mlp · walking-skeleton MLP · 199,434 parameters"
};
// The experiments of a samples directory that parse and name a model the worker can build, sorted by name.
std::vector<SampleExperiment> listSampleExperiments(const QString& experimentsDir);
// samples/experiments beside an installed pacer, else in the source tree this build came from.
QString defaultExperimentsDir();

struct LaunchSettings {
    QString experimentPath;                  // the sample the launch starts from
    int ranks = 2;
    QString backend = QStringLiteral("cpu");  // cpu | gpu
    QString policy = QStringLiteral("fifo");
    QMap<QString, QString> policySettings;   // key -> text as typed ("256KiB", "4"); empty texts are left out
    int iterations = 20;
    QString order;                           // empty: the experiment's (pace chooses when it gives none)
    int channels = 0;                        // 0: the experiment's
    double linkGbps = 0;                     // 0: no link emulation
    double linkLatencyUs = 0;
};

// The settings of an experiment file as the editor shows them first; nullopt with *error when it cannot be read.
std::optional<LaunchSettings> launchSettingsOf(const QString& experimentPath, QString* error);
// The policy settings the editor offers for a policy (keys of an experiment's "policy" object).
QStringList policySettingKeys(const QString& policy);
// The overrides the settings amount to (the policy replaced whole: settings left empty take their defaults).
app::ExperimentOverrides overridesOf(const LaunchSettings& settings);
// The experiment to launch, or nullopt with *error: exactly the line `pacer-cli capture` prints after "error: ".
std::optional<app::Experiment> resolveLaunch(const LaunchSettings& settings, QString* error);
// Writes the resolved experiment to <project>.runs/editor-<ms>.json for the launcher; the path, or empty + *error.
QString writeLaunchExperiment(const app::Experiment& experiment, const QString& projectPath, QString* error);

}  // namespace pacer::gui
