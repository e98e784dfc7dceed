// Find by name on the timeline: the next or previous event whose name contains a text is selected and brought
// into view. A run held whole is searched in memory at once; a large run read a window at a time is searched in
// its project file (findInLargeRun: the name table, then each track's index from the search's start to the
// nearest match) off the GUI thread, newest wins, and the match is selected once a window holding it arrives.
#pragma once

#include "app/gui/models/newest_wins.h"
#include "profiler/trace_model.h"

#include <QObject>
#include <QString>

#include <optional>

namespace pacer::gui {

class TimelineView;

class TimelineFinder : public QObject {
    Q_OBJECT
public:
    explicit TimelineFinder(TimelineView* view);

    // Searches after the selected event (before it, backward), else after the view's start (before its end);
    // past the last match it wraps around. finished() follows, at once for a run held whole.
    void find(const QString& text, bool forward);
    bool isBusy() const { return m_jobs.isBusy(); }
    // The latest match, also a large run's before any window holds it.
    const std::optional<profiler::TraceEvent>& match() const { return m_match; }

signals:
    void finished(bool found, const QString& error);

private:
    struct Found {
        std::optional<profiler::TraceEvent> event;
        QString error;
        const void* run = nullptr;  // the large run searched
    };
    void show(const profiler::TraceEvent& e);
    void selectHeldMatch();

    TimelineView* m_view;
    std::optional<profiler::TraceEvent> m_match;
    NewestWins<Found> m_jobs;
};

}  // namespace pacer::gui
