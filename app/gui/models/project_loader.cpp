#include "app/gui/models/project_loader.h"

#include "app/gui/models/large_run.h"
#include "app/common/slot_stores_summary.h"
#include "app/common/tuned_settings.h"

#include <QFileInfo>
#include <QFutureWatcher>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtConcurrent/QtConcurrentRun>

#if PACER_GUI_HAVE_STORE
#include "profiler/project.h"
#endif

namespace pacer::gui {

ProjectSnapshot readProjectSnapshot(const QString& path, std::int64_t runId, const LargeRunLimits& limits)
{
    ProjectSnapshot snapshot;
    snapshot.path = path;
    snapshot.overview.path = path;
    snapshot.overview.experiment = QFileInfo(path).completeBaseName();
#if PACER_GUI_HAVE_STORE
    const std::string file = path.toStdString();

    const profiler::Status check = profiler::checkProject(file);
    if (!check.ok()) {
        snapshot.error = QString::fromStdString(check.message());
        return snapshot;
    }
    auto runs = profiler::listRuns(file);
    if (!runs.ok()) {
        snapshot.error = QString::fromStdString(runs.message());
        return snapshot;
    }
    for (const profiler::RunSummary& r : runs.value()) {
        RunEntry entry;
        entry.id = r.run_id;
        entry.label = QString::fromStdString(r.label);
        entry.policy = QString::fromStdString(r.policy);
        entry.ranks = r.ranks;
        entry.iterations = r.iterations;
        entry.segmentBytes = r.segment_bytes;
        engine::PolicyConfig ran;
        ran.name = r.policy;
        if (const auto tuned = app::tuningFromMetrics(r.metrics, ran))
            entry.tuned = QString::fromStdString(app::describeSettings(*tuned));
        entry.slotStores = QString::fromStdString(app::describeSlotStores(r.metrics));
        snapshot.overview.runs.push_back(std::move(entry));
    }
    // The experiment's own name, from the newest run that kept its experiment file.
    for (auto it = runs.value().rbegin(); it != runs.value().rend(); ++it) {
        const QJsonObject experiment = QJsonDocument::fromJson(QByteArray::fromStdString(it->experiment_json)).object();
        if (experiment.value(QLatin1String("name")).isString()) {
            snapshot.overview.experiment = experiment.value(QLatin1String("name")).toString();
            break;
        }
    }
    auto schedules = profiler::listSchedules(file);
    if (!schedules.ok()) {
        snapshot.error = QString::fromStdString(schedules.message());
        return snapshot;
    }
    for (const profiler::SavedSchedule& saved : schedules.value())
        snapshot.overview.schedules.push_back(
            {saved.id, QString::fromStdString(saved.name), QString::fromStdString(saved.policy)});
    if (snapshot.overview.runs.empty())
        return snapshot;
    // A large run is opened by its outline and summary, and read a window at a time as the view moves.
    QString largeError;
    auto large = openLargeRun(path, runId, &largeError, limits);
    if (!large) {
        snapshot.error = largeError;
        return snapshot;
    }
    if (large->outline.events > large->limits.wholeRunEvents) {
        snapshot.runId = large->runId;
        snapshot.index = buildLargeRunIndex(std::move(large));
        snapshot.trace = snapshot.index->trace;
        // Replay needs the whole run in memory; the CLI's replay reads it (pacer-cli replay --project).
        snapshot.replayError = QStringLiteral("the run is too large to replay in the editor");
        return snapshot;
    }
    auto trace = profiler::readRun(file, large->runId);
    if (!trace.ok()) {
        snapshot.error = QString::fromStdString(trace.message());
        return snapshot;
    }
    snapshot.runId = trace->run_id;
    snapshot.trace = std::make_shared<const profiler::RunTrace>(std::move(trace).value());
    snapshot.index = buildTimelineIndex(snapshot.trace);
    for (const profiler::RunSummary& summary : runs.value()) {
        if (summary.run_id != snapshot.runId) continue;
        auto input = app::inputFromRun(snapshot.trace, summary, file);
        if (input.ok())
            snapshot.replayInput = std::make_shared<const app::ReplayInput>(std::move(input).value());
        else
            snapshot.replayError = QString::fromStdString(input.message());
    }
#else
    (void)runId;
    (void)limits;
    snapshot.error = QStringLiteral("this build of pacer was made without the project store (profiler/project.h)");
#endif
    return snapshot;
}

ProjectLoader::ProjectLoader(QObject* parent) : QObject(parent)
{
    m_pool.setMaxThreadCount(1);  // reads of one file queue up; a newer one makes the older stale anyway
}

ProjectLoader::~ProjectLoader()
{
    // A read in flight touches only its own values; wait for it so that no thread outlives the loader.
    m_pool.waitForDone(30'000);
}

quint64 ProjectLoader::load(const QString& path, std::int64_t runId)
{
    const quint64 generation = ++m_generation;
    ++m_pending;
    auto* watcher = new QFutureWatcher<ProjectSnapshot>(this);
    connect(watcher, &QFutureWatcher<ProjectSnapshot>::finished, this, [this, watcher, generation] {
        --m_pending;
        watcher->deleteLater();
        if (generation != m_generation)
            return;  // a newer load was started meanwhile; this result is stale
        const ProjectSnapshot snapshot = watcher->result();
        if (snapshot.error.isEmpty())
            emit loaded(snapshot);
        else
            emit failed(snapshot.path, snapshot.error);
    });
    watcher->setFuture(QtConcurrent::run(&m_pool, [path, runId] { return readProjectSnapshot(path, runId); }));
    return generation;
}

}  // namespace pacer::gui
