#include "app/gui/models/launch_settings.h"

#include "app/common/launch_check.h"
#include "kernels/model_spec.h"
#include "pacer/config.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLocale>

#include <algorithm>
#include <stdexcept>

namespace pacer::gui {
namespace {

using nlohmann::json;

// A typed setting becomes what an experiment file would hold: a whole number as a number, anything else as the
// text (a size such as "256KiB" is read by the experiment's own size rule; a typo is refused there, in its words).
json settingValue(const QString& text)
{
    bool whole = false;
    const qlonglong n = text.toLongLong(&whole);
    if (whole)
        return n;
    bool real = false;
    const double x = text.toDouble(&real);
    if (real)
        return x;
    return text.toStdString();
}

}  // namespace

QString defaultExperimentsDir()
{
    const QString installed = QCoreApplication::applicationDirPath() + QStringLiteral("/../share/pacer/samples/experiments");
    if (QFileInfo(installed).isDir())
        return QFileInfo(installed).canonicalFilePath();
    return QStringLiteral(PACER_SOURCE_DIR "/samples/experiments");
}

std::vector<SampleExperiment> listSampleExperiments(const QString& experimentsDir)
{
    std::vector<SampleExperiment> samples;
    const QDir dir(experimentsDir);
    for (const QFileInfo& file : dir.entryInfoList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
        std::string error;
        const auto e = app::loadExperiment(file.absoluteFilePath().toStdString(), &error);
        if (!e)
            continue;
        try {
            const kernels::ModelSpec spec = kernels::parseModelSpec(e->model);
            samples.push_back({file.absoluteFilePath(), QString::fromStdString(e->name),
                               QStringLiteral("%1 · %2 · %3 parameters")
                                   .arg(QString::fromStdString(spec.family), QString::fromStdString(spec.name),
                                        QLocale::c().toString(static_cast<qulonglong>(kernels::parameterCount(spec))))});
        } catch (const std::invalid_argument&) {
            // not a model this worker can build: not offered
        }
    }
    return samples;
}

std::optional<LaunchSettings> launchSettingsOf(const QString& experimentPath, QString* error)
{
    std::string why;
    const auto e = app::loadExperiment(experimentPath.toStdString(), &why);
    if (!e) {
        *error = QString::fromStdString(why);
        return std::nullopt;
    }
    LaunchSettings s;
    s.experimentPath = experimentPath;
    s.ranks = e->ranks;
    s.backend = QString::fromStdString(e->backend);
    s.policy = QString::fromStdString(e->policy.value("name", std::string("fifo")));
    for (const auto& [key, value] : e->policy.items()) {
        if (key == "name" || !policySettingKeys(s.policy).contains(QString::fromStdString(key)))
            continue;
        s.policySettings[QString::fromStdString(key)] =
            value.is_string() ? QString::fromStdString(value.get<std::string>()) : QString::fromStdString(value.dump());
    }
    s.iterations = e->iterations;
    s.order = e->orderGiven ? QString::fromStdString(e->order) : QString();
    s.channels = e->channelsGiven ? e->channels : 0;
    s.linkGbps = e->linkGbps;
    s.linkLatencyUs = e->linkLatencyUs;
    return s;
}

QStringList policySettingKeys(const QString& policy)
{
    if (policy == QLatin1String("pace"))
        return {QStringLiteral("segment_bytes"), QStringLiteral("fuse_below_bytes")};
    if (policy == QLatin1String("manual"))
        return {QStringLiteral("segment_bytes")};
    if (policy == QLatin1String("ddp"))
        return {QStringLiteral("bucket_bytes"), QStringLiteral("first_bucket_bytes")};
    if (policy == QLatin1String("horovod"))
        return {QStringLiteral("fusion_bytes"), QStringLiteral("cycle_ms")};
    if (policy == QLatin1String("bytescheduler"))
        return {QStringLiteral("segment_bytes"), QStringLiteral("credit")};
    return {};
}

app::ExperimentOverrides overridesOf(const LaunchSettings& s)
{
    app::ExperimentOverrides o;
    json policy{{"name", s.policy.toStdString()}};
    for (auto it = s.policySettings.cbegin(); it != s.policySettings.cend(); ++it) {
        const QString text = it.value().trimmed();
        if (!text.isEmpty())
            policy[it.key().toStdString()] = settingValue(text);
    }
    o.policyObject = std::move(policy);
    o.ranks = s.ranks;
    o.backend = s.backend.toStdString();
    o.iterations = s.iterations;
    if (!s.order.isEmpty())
        o.order = s.order.toStdString();
    if (s.channels > 0)
        o.channels = s.channels;
    o.linkGbps = s.linkGbps;
    o.linkLatencyUs = s.linkLatencyUs;
    return o;
}

std::optional<app::Experiment> resolveLaunch(const LaunchSettings& settings, QString* error)
{
    std::string why;
    auto base = app::loadExperiment(settings.experimentPath.toStdString(), &why);
    if (base)
        base = app::resolveForLaunch(std::move(*base), overridesOf(settings), &why);
    if (!base)
        *error = QString::fromStdString(why);
    return base;
}

QString writeLaunchExperiment(const app::Experiment& experiment, const QString& projectPath, QString* error)
{
    const QString dir = projectPath + QStringLiteral(".runs");
    QDir().mkpath(dir);
    const QString path = dir + QStringLiteral("/editor-%1.json").arg(QDateTime::currentMSecsSinceEpoch());
    QFile file(path);
    // NewOnly: a file of that name is never replaced.
    if (!file.open(QIODevice::WriteOnly | QIODevice::NewOnly) ||
        file.write(QByteArray::fromStdString(experiment.toJson().dump(2) + "\n")) < 0 || !file.flush()) {
        *error = QCoreApplication::translate("LaunchSettings", "cannot write %1").arg(path);
        return {};
    }
    return path;
}

}  // namespace pacer::gui
