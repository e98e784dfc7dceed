// The timeline's data model: one lane per track of a run, and the first phase of painting.
//
// Rows of this list model are lanes ("rank 0 compute", "rank 0 comm", "rank 0 stream 7"), ordered by rank and
// then compute, communication, CUDA streams. Each lane keeps its events sorted by start plus a running maximum
// of their ends, so a view cuts any lane to its visible time range with one lower_bound. appendDrawItems() is
// phase one of the two-phase paint: it turns the visible events of a lane into small DrawItem records in a
// vector the view reuses, folding runs of spans narrower than a few pixels into one item with a count
// (as Tracy does), so phase two paints O(pixels) rectangles without allocating, however large the run.
#pragma once

#include "app/gui/models/large_run.h"
#include "app/gui/models/time_axis.h"
#include "profiler/trace_model.h"

#include <QAbstractListModel>
#include <QRgb>
#include <QStringList>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace pacer::gui {

struct DrawItem {
    double x0 = 0.0;  // px, clipped to the axis (plus a margin) so painting never sees huge coordinates
    double x1 = 0.0;
    int lane = 0;
    int first = 0;    // position in the lane's event list of the first event drawn by this item; -1: summary
    int count = 1;    // > 1: that many consecutive sub-pixel events folded into this item
    QRgb colour = 0;
    // Summary items of a large run (first == -1) stand for stored buckets, not for events in memory.
    std::int64_t t0 = 0;
    std::int64_t t1 = 0;
    std::int64_t busy = 0;
    bool isSummary() const { return first < 0; }
};

// One training iteration's span, for the ruler's iteration bands.
struct IterationMark {
    int iteration = 0;
    std::int64_t start = 0;
    std::int64_t end = 0;
};

// Everything the timeline derives from a run: lanes with their sorted events, running maxima and peak
// mipmaps, interned names, the priority range. Built once per run by buildTimelineIndex(), which may run on
// any thread (the project loader builds it next to the read, so a run of millions of events never stalls the
// GUI), then shared read-only.
struct TimelineIndex {
    struct Lane {
        int track = 0;
        int rank = 0;
        profiler::TrackKind kind = profiler::TrackKind::Compute;
        QString name;
        std::vector<int> events;           // indices into trace().events, sorted by start
        std::vector<std::int64_t> starts;  // their starts, for lower_bound without touching the events
        std::vector<std::int64_t> maxEnd;  // maxEnd[i] = max end of events[0..i]; non-decreasing
        std::vector<std::int64_t> durations;
        // longest[L][b] = position of the longest event among [b·2^(L+1), (b+1)·2^(L+1)): a mipmap of peaks,
        // so a fold can ask "is anything in this range wide, and which is the longest?" in O(log n).
        std::vector<std::vector<int>> longest;
        int longestAt(int first, int last) const;  // position of the longest event in [first, last); first < last
        std::int64_t longestIn(int first, int last) const { return durations[static_cast<std::size_t>(longestAt(first, last))]; }
    };

    std::shared_ptr<const profiler::RunTrace> trace;
    std::vector<Lane> lanes;
    std::vector<IterationMark> iterations;
    std::vector<QString> names;        // interned event names
    std::vector<QString> shortNames;   // the same, shortened for narrow spans
    std::vector<int> nameOfEvent;      // event index -> names index
    std::vector<int> tensorIndex;      // tensor id -> index in trace->tensors, -1 if unknown
    std::int64_t start = 0;            // the time covered by drawn events ([0, 1) when empty)
    std::int64_t end = 1;
    int minPriority = 0;               // over all-reduce units with a priority
    int maxPriority = 0;

    // A run read a window at a time (large_run.h): then `trace` holds the window's events only, and lanes
    // outside it are drawn from the summary.
    std::shared_ptr<const LargeRun> large;
    LargeRunWindow window;
};

// A lane for every track but a rank's extra communication channels (its comm tracks after the first) that carry no
// event: runs recorded before the worker added a lane per channel as its runtime started one kept four per rank
// after self-tuning whatever it chose, and a replay in plan order has a lane per channel whether or not a unit went
// there. hasEvents(track id) says whether a track has any.
std::vector<profiler::Track> tracksWithoutIdleChannels(const std::vector<profiler::Track>& tracks,
                                                       const std::function<bool(int)>& hasEvents);

// Keep: every track gets a lane, as a large run's windows need (each must have its outline's lanes, whatever
// events it holds); Hide: tracksWithoutIdleChannels over the trace's own events.
enum class IdleChannels { Hide, Keep };
std::shared_ptr<TimelineIndex> buildTimelineIndex(std::shared_ptr<const profiler::RunTrace> trace,
                                                  IdleChannels idle = IdleChannels::Hide);

class TimelineModel : public QAbstractListModel {
    Q_OBJECT
public:
    enum Roles {
        RankRole = Qt::UserRole + 1,
        TrackKindRole,  // int(profiler::TrackKind)
        TrackIdRole,
        EventCountRole,
    };

    using Lane = TimelineIndex::Lane;

    explicit TimelineModel(QObject* parent = nullptr);
    ~TimelineModel() override;

    // Shows a run; the model keeps the (immutable) trace alive. nullptr clears. setTrace builds the index here
    // and now; setIndex takes one built elsewhere (on a loader thread).
    void setTrace(std::shared_ptr<const profiler::RunTrace> trace);
    void setIndex(std::shared_ptr<const TimelineIndex> index);
    const TimelineIndex& timelineIndex() const { return *m_index; }
    const profiler::RunTrace* trace() const { return m_index->trace.get(); }

    int laneCount() const { return static_cast<int>(m_index->lanes.size()); }
    const Lane& lane(int index) const { return m_index->lanes.at(static_cast<std::size_t>(index)); }
    QStringList laneNames() const;
    const std::vector<IterationMark>& iterations() const { return m_index->iterations; }

    // The time covered by all drawn events ([0, 1) when empty).
    std::int64_t startTime() const { return m_index->start; }
    std::int64_t endTime() const { return m_index->end; }
    int minPriority() const { return m_index->minPriority; }
    int maxPriority() const { return m_index->maxPriority; }

    // Phase one of painting: appends the lane's visible events to out (which the caller clears and reuses),
    // folding consecutive spans narrower than minWidthPx that start within minWidthPx of the fold's end and
    // within maxFoldPx of its start. A fold takes the colour of its longest event (the peak, not a blend, so
    // the dominant kind or priority stays visible zoomed out) and is capped in width so the structure of a
    // dense lane (forward then backward, priorities) survives. Inside a fold it jumps with lower_bound and the
    // peak mipmap, so a zoomed-out lane costs O(pixels × log n), not O(events).
    void appendDrawItems(int lane, const TimeAxis& axis, double minWidthPx, std::vector<DrawItem>& out,
                         double maxFoldPx = 12.0) const;

    // A large run: reads what [t0, t1) at nsPerPixel needs, off this thread, unless the index has it; the
    // new index arrives with windowChanged(). No-op for runs held whole.
    void requestRange(std::int64_t t0, std::int64_t t1, double nsPerPixel);
    bool isLarge() const { return m_index->large != nullptr; }
    bool isReadingWindow() const { return m_windowReads > 0; }
    // Installs a window read elsewhere (the benchmark reads synchronously); lanes stay the same.
    void setWindow(std::shared_ptr<const TimelineIndex> index);

    // Whether every event overlapping [t0, t1) is in trace(): always for a run held whole; for a large run when
    // its window holds the events of a range that covers it.
    bool holdsEventsOf(std::int64_t t0, std::int64_t t1) const;
    // The first event on a lane, by start after `from` (forward) or the last before it, whose name contains text
    // (case-insensitive); wraps around to the earliest (latest); -1 when none. A large run's model searches the
    // events its window holds: the project file is searched by findInLargeRun (large_run.h).
    int find(const QString& text, std::int64_t from, bool forward) const;

    // The event (index into trace().events) of the lane covering time t, or within slackNs of it; -1 if none.
    int eventAt(int lane, std::int64_t t, std::int64_t slackNs) const;

    // The interned display name of an event, so the paint path never converts strings.
    const QString& eventName(int event) const;
    int eventNameId(int event) const { return m_index->nameOfEvent[static_cast<std::size_t>(event)]; }
    const std::vector<QString>& names() const { return m_index->names; }
    // The same names shortened for narrow spans ("fc4.weight[1]" for "allreduce fc4.weight[1]").
    const std::vector<QString>& shortNames() const { return m_index->shortNames; }

    // Rich-text details for a tooltip: name, kind, time, duration, and for all-reduce units the tensor,
    // segment, bytes and priority.
    QString eventDetails(int event) const;
    // Details of what a draw item stands for: the event itself, or a summary of the folded run.
    QString drawItemDetails(const DrawItem& item) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

signals:
    // A large run's window arrived: same lanes, other events (event indices of the old window are void).
    void windowChanged();
    void windowFailed(const QString& message);

private:
    void appendSummaryItems(int lane, const SummaryLevelCells& cells, const TimeAxis& axis, double minWidthPx,
                            std::vector<DrawItem>& out, double maxFoldPx) const;
    const SummaryLevelCells* summaryFor(int lane, const TimeAxis& axis) const;

    std::shared_ptr<const TimelineIndex> m_index;  // never null: an empty index when there is no run
    quint64 m_windowGeneration = 0;
    int m_windowReads = 0;
    LargeRunWindow m_pending;  // the window being read, so the same request is not made twice
};

}  // namespace pacer::gui
