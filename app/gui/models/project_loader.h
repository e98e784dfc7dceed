// Loads a .pacer project off the GUI thread: its overview (experiment, runs) and one run's trace.
//
// Each load() gets a generation number; only the newest load's result is delivered, so a slow read of an old
// project can never overwrite the one the user opened after it (hotspot's jobtracker does the same). Results
// are whole immutable values: the trace is handed over in a shared_ptr<const RunTrace> that the timeline
// keeps, and nothing is shared with the worker thread once it is done.
#pragma once

#include "app/common/replay_session.h"
#include "app/gui/models/project_tree_model.h"
#include "app/gui/models/timeline_model.h"
#include "profiler/trace_model.h"

#include <QObject>
#include <QString>
#include <QThreadPool>

#include <cstdint>
#include <memory>

namespace pacer::gui {

struct ProjectSnapshot {
    QString path;
    ProjectOverview overview;
    std::shared_ptr<const profiler::RunTrace> trace;  // null when the project has no runs yet
    std::shared_ptr<const TimelineIndex> index;       // the timeline's index of trace, built on the reading thread
    std::int64_t runId = 0;                           // the run in trace (0 when none)
    QString error;                                    // non-empty: the project could not be read; why
    // What the schedule editor replays, built from the same read (null when the run cannot be replayed:
    // replayError says why).
    std::shared_ptr<const app::ReplayInput> replayInput;
    QString replayError;
};

// Reads a project synchronously (runId 0 = the latest run) and indexes its trace for the timeline; a run of
// more than limits.wholeRunEvents events is opened by its outline and summary instead (large_run.h). Safe to
// call from any thread.
ProjectSnapshot readProjectSnapshot(const QString& path, std::int64_t runId, const LargeRunLimits& limits = {});

class ProjectLoader : public QObject {
    Q_OBJECT
public:
    explicit ProjectLoader(QObject* parent = nullptr);
    ~ProjectLoader() override;

    // Starts reading; returns the generation of this load. A newer load() makes older results stale.
    quint64 load(const QString& path, std::int64_t runId = 0);
    bool isLoading() const { return m_pending > 0; }
    quint64 generation() const { return m_generation; }

signals:
    void loaded(const pacer::gui::ProjectSnapshot& snapshot);
    void failed(const QString& path, const QString& message);

private:
    QThreadPool m_pool;  // our own, so that shutdown waits for our reads only
    quint64 m_generation = 0;
    int m_pending = 0;
};

}  // namespace pacer::gui
