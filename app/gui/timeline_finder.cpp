#include "app/gui/timeline_finder.h"

#include "app/gui/models/large_run.h"
#include "app/gui/models/timeline_model.h"
#include "app/gui/models/zoom_state.h"
#include "app/gui/timeline_view.h"

#include <algorithm>

namespace pacer::gui {

TimelineFinder::TimelineFinder(TimelineView* view)
    : QObject(view), m_view(view), m_jobs(this, [this](quint64 generation, const Found& found) {
          if (generation != m_jobs.generation() || found.run != m_view->model()->timelineIndex().large.get())
              return;  // a newer search, or another run shown since
          if (found.event)
              show(*found.event);
          emit finished(found.event.has_value(), found.error);
      })
{
    TimelineModel* model = view->model();
    connect(model, &QAbstractItemModel::modelReset, this, [this] { m_match.reset(); });
    // The view drops its selection when a window arrives (indices change); the match is found again in the new one.
    connect(model, &TimelineModel::windowChanged, this, &TimelineFinder::selectHeldMatch);
    // Another event picked by hand: the next search starts there, and windows no longer bring the match back.
    connect(view, &TimelineView::selectedEventChanged, this, [this](int event) {
        const profiler::RunTrace* trace = m_view->model()->trace();
        if (event < 0 || !m_match || !trace)
            return;
        const profiler::TraceEvent& e = trace->events[static_cast<std::size_t>(event)];
        if (e.track != m_match->track || e.start != m_match->start)
            m_match.reset();
    });
}

void TimelineFinder::find(const QString& text, bool forward)
{
    const TimelineModel* model = m_view->model();
    const profiler::RunTrace* trace = model->trace();
    const ZoomState* zoom = m_view->zoom();
    std::int64_t from = forward ? zoom->visibleStart() - 1 : zoom->visibleEnd();
    const int selected = m_view->selectedEvent();
    if (trace && selected >= 0 && static_cast<std::size_t>(selected) < trace->events.size())
        from = trace->events[static_cast<std::size_t>(selected)].start;
    else if (m_match)
        from = m_match->start;
    if (text.isEmpty()) {
        emit finished(false, {});
        return;
    }
    if (!model->isLarge()) {
        const int event = model->find(text, from, forward);
        if (event >= 0)
            show(trace->events[static_cast<std::size_t>(event)]);
        emit finished(event >= 0, {});
        return;
    }
    m_jobs.request([run = model->timelineIndex().large, text, from, forward] {
        Found found;
        found.run = run.get();
        found.event = findInLargeRun(*run, text, from, forward, &found.error);
        return found;
    });
}

void TimelineFinder::show(const profiler::TraceEvent& e)
{
    m_match = e;
    ZoomState* zoom = m_view->zoom();
    // Keep the zoom when the event fits in the view, else zoom out to show it whole.
    const std::int64_t length = std::max(zoom->visibleLength(), (e.end - e.start) * 3 / 2);
    const std::int64_t centre = e.start + (e.end - e.start) / 2;
    zoom->setVisibleRange(centre - length / 2, centre - length / 2 + length);
    selectHeldMatch();
}

void TimelineFinder::selectHeldMatch()
{
    const profiler::RunTrace* trace = m_view->model()->trace();
    if (!m_match || !trace)
        return;
    const auto& events = trace->events;
    const auto it = std::find_if(events.begin(), events.end(), [&](const profiler::TraceEvent& e) {
        return e.track == m_match->track && e.start == m_match->start && e.end == m_match->end && e.kind == m_match->kind;
    });
    if (it != events.end())
        m_view->selectEvent(static_cast<int>(it - events.begin()));
}

}  // namespace pacer::gui
