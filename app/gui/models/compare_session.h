// What the compare view has pinned (runs, saved schedules, the editor's schedule) and their comparison, computed
// off the GUI thread whenever the pins change: app::compare (the CLI's own) reads each run once and keeps it,
// replays every schedule on its run, and the rows' lanes are stacked on one axis (stackedTrace) and indexed for
// the timeline on the same worker thread. Newest wins: pinning three items in a row computes at most two.
#pragma once

#include "app/common/comparison.h"
#include "app/gui/models/newest_wins.h"
#include "app/gui/models/timeline_model.h"

#include <QObject>
#include <QString>

#include <memory>
#include <vector>

namespace pacer::gui {

struct CompareOutcome {
    quint64 generation = 0;
    std::shared_ptr<const app::Comparison> comparison;  // null when it failed
    std::shared_ptr<const TimelineIndex> stack;         // the rows' lanes on one axis
    std::int64_t alignedAt = 0;                         // where the rows' first steady iterations start on it
    QString error;
};

class CompareSession : public QObject {
    Q_OBJECT
public:
    explicit CompareSession(QObject* parent = nullptr);

    // Another project clears the pins; the same one keeps them.
    void setProject(const QString& path);
    QString project() const { return m_project; }
    // A run the GUI has already read (the shown run): pinning it does not read the project again.
    void offerInput(std::shared_ptr<const app::ReplayInput> input);

    void pinRun(qint64 runId);
    // A schedule replayed on item.runId (0: the latest run).
    void pinSchedule(app::CompareItem item);
    // A schedule saved in the project, replayed on its own run.
    engine::Status pinSavedSchedule(const profiler::SavedSchedule& saved);
    void unpin(int row);
    void clear();
    const std::vector<app::CompareItem>& items() const { return m_items; }

    bool isBusy() const { return m_jobs.isBusy(); }
    quint64 generation() const { return m_jobs.generation(); }
    // The latest comparison delivered (its generation may be older than generation() while one is computed).
    const CompareOutcome& latest() const { return m_latest; }

signals:
    void computed(const pacer::gui::CompareOutcome& outcome);

private:
    void recompute();

    QString m_project;
    std::vector<app::CompareItem> m_items;
    // Read runs of this project; touched only by the jobs, which run one at a time.
    std::shared_ptr<app::ProjectInputs> m_inputs;
    std::vector<std::shared_ptr<const app::ReplayInput>> m_offered;
    CompareOutcome m_latest;
    NewestWins<CompareOutcome> m_jobs;
};

}  // namespace pacer::gui
