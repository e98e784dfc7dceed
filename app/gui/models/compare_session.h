// What the compare view has pinned (runs, saved schedules, the editor's schedule) and their comparison, computed
// off the GUI thread whenever the pins change: app::compare (the CLI's own) reads each run once and keeps it,
// replays every schedule on its run, and the rows' lanes are stacked on one axis (stackedTrace) and indexed for
// the timeline on the same worker thread. Newest wins: pinning three items in a row computes at most two.
//
// The pins and the baseline live in the project (profiler::saveComparePins, one transaction per change) and come
// back when the project is opened again. Pins the project holds but this build cannot read are left in the file
// untouched: the session reports why and, for that project, stops writing pins rather than overwrite them.
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

    // Another project replaces the pins with those it keeps; the same one keeps them.
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
    // The row differences are taken against (an index into items()).
    void setBaseline(int row);
    int baseline() const { return m_baseline; }
    // Why the pins are not restored or kept ("" when they are); the last pinsProblem.
    QString pinsProblemText() const { return m_problem; }

    bool isBusy() const { return m_jobs.isBusy(); }
    quint64 generation() const { return m_jobs.generation(); }
    // The latest comparison delivered (its generation may be older than generation() while one is computed).
    const CompareOutcome& latest() const { return m_latest; }

signals:
    void computed(const pacer::gui::CompareOutcome& outcome);
    // The pins could not be restored from, or kept in, the project; why.
    void pinsProblem(const QString& message);

private:
    void recompute();
    void restorePins();
    void persistPins();
    void reportProblem(const QString& message);

    QString m_project;
    std::vector<app::CompareItem> m_items;
    int m_baseline = 0;
    QString m_problem;
    bool m_persist = false;  // false: no project, or its stored pins could not be read (left as they are)
    // Read runs of this project; touched only by the jobs, which run one at a time.
    std::shared_ptr<app::ProjectInputs> m_inputs;
    std::vector<std::shared_ptr<const app::ReplayInput>> m_offered;
    CompareOutcome m_latest;
    NewestWins<CompareOutcome> m_jobs;
};

}  // namespace pacer::gui
