#include "app/gui/models/timeline_model.h"

#include "app/gui/models/event_style.h"

#include <QFutureWatcher>
#include <QHash>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_set>

namespace pacer::gui {

using profiler::EventKind;
using profiler::RunTrace;
using profiler::TraceEvent;
using profiler::TrackKind;

namespace {

int trackKindOrder(TrackKind kind)
{
    switch (kind) {
    case TrackKind::Compute: return 0;
    case TrackKind::Comm: return 1;
    case TrackKind::CudaStream: return 2;
    case TrackKind::Other: return 3;
    }
    return 4;
}

QString defaultTrackName(const profiler::Track& track)
{
    switch (track.kind) {
    case TrackKind::Compute: return QStringLiteral("rank %1 compute").arg(track.rank);
    case TrackKind::Comm: return QStringLiteral("rank %1 comm").arg(track.rank);
    case TrackKind::CudaStream: return QStringLiteral("rank %1 stream %2").arg(track.rank).arg(track.id);
    case TrackKind::Other: return QStringLiteral("rank %1 track %2").arg(track.rank).arg(track.id);
    }
    return {};
}

// Drops what the lane and colour already say: the kind word of all-reduce units, "backward" spelled out.
QString shortName(const QString& name)
{
    QString s = name;
    if (s.startsWith(QLatin1String("allreduce ")))
        s.remove(0, 10);
    if (s.endsWith(QLatin1String(" backward")))
        s.replace(s.size() - 9, 9, QStringLiteral(" bw"));
    return s;
}

const QString& emptyString()
{
    static const QString empty;
    return empty;
}

}  // namespace

TimelineModel::TimelineModel(QObject* parent) : QAbstractListModel(parent), m_index(buildTimelineIndex(nullptr)) {}

TimelineModel::~TimelineModel() = default;

std::vector<profiler::Track> tracksWithoutIdleChannels(const std::vector<profiler::Track>& tracks,
                                                       const std::function<bool(int)>& hasEvents)
{
    std::map<int, int> firstComm;  // rank -> its lowest comm track id: the main lane, kept even when idle
    for (const profiler::Track& t : tracks)
        if (t.kind == profiler::TrackKind::Comm) {
            auto [it, inserted] = firstComm.try_emplace(t.rank, t.id);
            if (!inserted)
                it->second = std::min(it->second, t.id);
        }
    std::vector<profiler::Track> out;
    for (const profiler::Track& t : tracks)
        if (t.kind != profiler::TrackKind::Comm || firstComm.at(t.rank) == t.id || hasEvents(t.id))
            out.push_back(t);
    return out;
}

std::shared_ptr<TimelineIndex> buildTimelineIndex(std::shared_ptr<const RunTrace> trace, IdleChannels idle)
{
    auto index = std::make_shared<TimelineIndex>();
    TimelineIndex& x = *index;
    x.trace = std::move(trace);

    if (x.trace) {
        const RunTrace& run = *x.trace;
        std::vector<const profiler::Track*> tracks;
        for (const auto& t : run.tracks)
            tracks.push_back(&t);
        std::stable_sort(tracks.begin(), tracks.end(), [](const profiler::Track* a, const profiler::Track* b) {
            if (a->rank != b->rank)
                return a->rank < b->rank;
            if (trackKindOrder(a->kind) != trackKindOrder(b->kind))
                return trackKindOrder(a->kind) < trackKindOrder(b->kind);
            return a->id < b->id;
        });
        QHash<int, int> laneOfTrack;
        for (const profiler::Track* t : tracks) {
            TimelineIndex::Lane lane;
            lane.track = t->id;
            lane.rank = t->rank;
            lane.kind = t->kind;
            lane.name = t->name.empty() ? defaultTrackName(*t) : QString::fromStdString(t->name);
            laneOfTrack.insert(t->id, static_cast<int>(x.lanes.size()));
            x.lanes.push_back(std::move(lane));
        }

        QHash<QString, int> nameIds;
        x.nameOfEvent.resize(run.events.size(), 0);
        std::map<int, IterationMark> iterations;
        std::int64_t lo = std::numeric_limits<std::int64_t>::max();
        std::int64_t hi = std::numeric_limits<std::int64_t>::min();
        bool anyPriority = false;
        for (std::size_t i = 0; i < run.events.size(); ++i) {
            const TraceEvent& e = run.events[i];
            const QString name = QString::fromStdString(e.name);
            auto it = nameIds.find(name);
            if (it == nameIds.end()) {
                it = nameIds.insert(name, static_cast<int>(x.names.size()));
                x.names.push_back(name);
                x.shortNames.push_back(shortName(name));
            }
            x.nameOfEvent[i] = it.value();
            lo = std::min(lo, e.start);
            hi = std::max(hi, e.end);

            // Iterations become bands on the ruler rather than one span covering the whole compute lane.
            if (e.kind == EventKind::Iteration) {
                auto [mark, inserted] = iterations.try_emplace(e.iteration, IterationMark{e.iteration, e.start, e.end});
                if (!inserted) {
                    mark->second.start = std::min(mark->second.start, e.start);
                    mark->second.end = std::max(mark->second.end, e.end);
                }
                continue;
            }
            const auto lane = laneOfTrack.constFind(e.track);
            if (lane == laneOfTrack.cend())
                continue;  // an event on a track the run does not list: nothing to draw it in
            x.lanes[static_cast<std::size_t>(lane.value())].events.push_back(static_cast<int>(i));
            if (e.kind == EventKind::AllReduce && e.priority >= 0) {
                x.minPriority = anyPriority ? std::min(x.minPriority, e.priority) : e.priority;
                x.maxPriority = anyPriority ? std::max(x.maxPriority, e.priority) : e.priority;
                anyPriority = true;
            }
        }
        if (lo <= hi) {
            x.start = lo;
            x.end = std::max(hi, lo + 1);
        }
        if (idle == IdleChannels::Hide) {
            auto hasEvents = [&](int track) { return !x.lanes[static_cast<std::size_t>(laneOfTrack.value(track))].events.empty(); };
            std::unordered_set<int> drawn;
            for (const profiler::Track& t : tracksWithoutIdleChannels(run.tracks, hasEvents))
                drawn.insert(t.id);
            std::erase_if(x.lanes, [&drawn](const TimelineIndex::Lane& lane) { return !drawn.count(lane.track); });
        }
        for (const auto& [index, mark] : iterations)
            x.iterations.push_back(mark);

        for (TimelineIndex::Lane& lane : x.lanes) {
            // The store delivers events sorted by (track, start), but imported traces need not be.
            std::stable_sort(lane.events.begin(), lane.events.end(),
                             [&run](int a, int b) { return run.events[a].start < run.events[b].start; });
            lane.starts.resize(lane.events.size());
            for (std::size_t k = 0; k < lane.events.size(); ++k)
                lane.starts[k] = run.events[lane.events[k]].start;
            lane.durations.resize(lane.events.size());
            for (std::size_t k = 0; k < lane.events.size(); ++k)
                lane.durations[k] = run.events[lane.events[k]].end - run.events[lane.events[k]].start;
            lane.longest.clear();
            // Level 0 pairs up events; each higher level pairs up the level below, keeping the longer one.
            std::vector<int> positions(lane.events.size());
            for (std::size_t k = 0; k < positions.size(); ++k)
                positions[k] = static_cast<int>(k);
            for (const std::vector<int>* below = &positions; below->size() >= 2;) {
                std::vector<int> level(below->size() / 2);
                for (std::size_t b = 0; b < level.size(); ++b) {
                    const int l = (*below)[2 * b];
                    const int r = (*below)[2 * b + 1];
                    level[b] = lane.durations[static_cast<std::size_t>(r)] > lane.durations[static_cast<std::size_t>(l)] ? r : l;
                }
                lane.longest.push_back(std::move(level));
                below = &lane.longest.back();
            }
            lane.maxEnd.resize(lane.events.size());
            std::int64_t runningMax = std::numeric_limits<std::int64_t>::min();
            for (std::size_t k = 0; k < lane.events.size(); ++k) {
                runningMax = std::max(runningMax, run.events[lane.events[k]].end);
                lane.maxEnd[k] = runningMax;
            }
        }

        for (std::size_t k = 0; k < run.tensors.size(); ++k) {
            const int id = run.tensors[k].id;
            if (id < 0 || id > 1'000'000)
                continue;
            if (static_cast<std::size_t>(id) >= x.tensorIndex.size())
                x.tensorIndex.resize(static_cast<std::size_t>(id) + 1, -1);
            x.tensorIndex[static_cast<std::size_t>(id)] = static_cast<int>(k);
        }
    }
    return index;
}

void TimelineModel::setTrace(std::shared_ptr<const RunTrace> trace)
{
    setIndex(buildTimelineIndex(std::move(trace)));
}

void TimelineModel::setIndex(std::shared_ptr<const TimelineIndex> index)
{
    beginResetModel();
    ++m_windowGeneration;  // a window still being read belongs to the previous run
    m_index = index ? std::move(index) : buildTimelineIndex(nullptr);
    endResetModel();
}

int TimelineIndex::Lane::longestAt(int first, int last) const
{
    // Climb the mipmap as in an iterative segment tree: take the odd ends at each level, move the aligned
    // middle up. Level L+1 has floor(size/2) entries, and an odd end is always taken before halving, so the
    // range stays inside every level; the top level has one entry, where the range closes.
    int best = first;
    auto consider = [&](int position) {
        if (durations[static_cast<std::size_t>(position)] > durations[static_cast<std::size_t>(best)])
            best = position;
    };
    auto a = static_cast<std::size_t>(first);
    auto b = static_cast<std::size_t>(last);
    // Level "-1" holds the events themselves: entry i is position i.
    if (a & 1)
        consider(static_cast<int>(a++));
    if (b & 1)
        consider(static_cast<int>(--b));
    a /= 2;
    b /= 2;
    for (std::size_t depth = 0; a < b && depth < longest.size(); ++depth) {
        const std::vector<int>& level = longest[depth];
        if (a & 1)
            consider(level[a++]);
        if (b & 1)
            consider(level[--b]);
        a /= 2;
        b /= 2;
    }
    return best;
}

QStringList TimelineModel::laneNames() const
{
    QStringList names;
    for (const Lane& lane : m_index->lanes)
        names << lane.name;
    return names;
}

void TimelineModel::appendDrawItems(int laneIndex, const TimeAxis& axis, double minWidthPx,
                                    std::vector<DrawItem>& out, double maxFoldPx) const
{
    if (!m_index->trace || laneIndex < 0 || laneIndex >= laneCount())
        return;
    if (const SummaryLevelCells* cells = summaryFor(laneIndex, axis)) {
        appendSummaryItems(laneIndex, *cells, axis, minWidthPx, out, maxFoldPx);
        return;
    }
    const Lane& lane = m_index->lanes[static_cast<std::size_t>(laneIndex)];
    const auto& events = m_index->trace->events;
    // First event that may reach into the view: ends are not sorted, their running maximum is.
    const auto firstIt = std::lower_bound(lane.maxEnd.begin(), lane.maxEnd.end(), axis.start);
    const int n = static_cast<int>(lane.events.size());
    const double clipLeft = axis.left - 2.0;
    const double clipRight = axis.left + axis.width + 2.0;

    DrawItem fold;
    bool foldOpen = false;
    int foldPeak = 0;  // position of the fold's longest event: it gives the fold its colour
    auto flushFold = [&] {
        if (!foldOpen)
            return;
        fold.x1 = std::max(fold.x1, fold.x0 + 1.0);
        if (fold.count > 1) {
            const TraceEvent& peak = events[static_cast<std::size_t>(lane.events[static_cast<std::size_t>(foldPeak)])];
            fold.colour = foldedColour(eventColour(peak, m_index->minPriority, m_index->maxPriority));
        }
        out.push_back(fold);
        foldOpen = false;
    };
    auto longer = [&lane](int a, int b) {
        return lane.durations[static_cast<std::size_t>(a)] >= lane.durations[static_cast<std::size_t>(b)] ? a : b;
    };

    for (int k = static_cast<int>(firstIt - lane.maxEnd.begin()); k < n; ++k) {
        const TraceEvent& e = events[static_cast<std::size_t>(lane.events[static_cast<std::size_t>(k)])];
        if (e.start >= axis.end)
            break;
        if (e.end < axis.start)
            continue;  // hidden behind a longer earlier event's end; nothing of it is visible
        const double x0 = std::clamp(axis.toX(e.start), clipLeft, clipRight);
        const double x1 = std::clamp(axis.toX(e.end), clipLeft, clipRight);
        if (x1 - x0 >= minWidthPx) {
            flushFold();
            out.push_back(DrawItem{x0, x1, laneIndex, k, 1, eventColour(e, m_index->minPriority, m_index->maxPriority)});
            continue;
        }
        if (foldOpen && x0 - fold.x1 < minWidthPx && x0 < fold.x0 + maxFoldPx) {
            fold.x1 = std::max(fold.x1, x1);
            ++fold.count;
            foldPeak = longer(foldPeak, k);
        } else {
            flushFold();
            fold = DrawItem{x0, x1, laneIndex, k, 1, eventColour(e, m_index->minPriority, m_index->maxPriority)};
            foldOpen = true;
            foldPeak = k;
        }
        // Jump over every event starting before the fold's reach when none of them is minWidthPx wide: each
        // would have joined the fold one by one (its start is within reach of the growing fold), so the result
        // is the same as the linear walk, in O(log n) per fold instead of O(events).
        const double reachX = std::min({fold.x1 + minWidthPx, fold.x0 + maxFoldPx, axis.left + axis.width});
        const std::int64_t reach = std::min(axis.toTime(reachX), axis.end);
        const auto next = std::lower_bound(lane.starts.begin() + k + 1, lane.starts.end(), reach);
        const int j = static_cast<int>(next - lane.starts.begin());
        if (j <= k + 1)
            continue;
        const int peak = lane.longestAt(k + 1, j);
        if (static_cast<double>(lane.durations[static_cast<std::size_t>(peak)]) * axis.pixelsPerNs() < minWidthPx) {
            const std::int64_t end = std::min(lane.maxEnd[static_cast<std::size_t>(j - 1)],
                                              reach + static_cast<std::int64_t>(minWidthPx * axis.nsPerPixel()));
            fold.x1 = std::max(fold.x1, std::clamp(axis.toX(end), clipLeft, clipRight));
            fold.count += j - (k + 1);
            foldPeak = longer(foldPeak, peak);
            k = j - 1;
        }
    }
    flushFold();
}

const SummaryLevelCells* TimelineModel::summaryFor(int laneIndex, const TimeAxis& axis) const
{
    if (!m_index->large)
        return nullptr;
    const auto lane = static_cast<std::size_t>(laneIndex);
    const auto& resident = m_index->large->resident;
    if (lane >= resident.size() || resident[lane].empty())
        return nullptr;  // a lane too small for a summary: its events are always in the index
    const LargeRunWindow& w = m_index->window;
    if (w.end > w.start && w.start <= axis.start && axis.end <= w.end) {
        if (lane < w.cells.size() && w.cells[lane].width > 0)
            return &w.cells[lane];
        return nullptr;  // the window holds this lane's events
    }
    return &resident[lane].back();
}

void TimelineModel::appendSummaryItems(int laneIndex, const SummaryLevelCells& c, const TimeAxis& axis,
                                       double minWidthPx, std::vector<DrawItem>& out, double maxFoldPx) const
{
    // Each cell becomes a span from its bucket's start over its longest event (or its busy time, if longer,
    // up to the bucket's width); neighbouring spans fold as events do, taking the colour of the longest peak.
    const auto& extents = m_index->large->outline.extents;
    std::int64_t longest = 0;
    for (const auto& x : extents)
        if (x.track == m_index->lanes[static_cast<std::size_t>(laneIndex)].track)
            longest = x.longest_ns;
    const std::int64_t firstBucket = (axis.start - longest) / c.width - 1;
    auto it = std::lower_bound(c.cells.begin(), c.cells.end(), firstBucket,
                               [](const profiler::SummaryCell& cell, std::int64_t b) { return cell.bucket < b; });
    const double clipLeft = axis.left - 2.0;
    const double clipRight = axis.left + axis.width + 2.0;
    DrawItem fold;
    bool foldOpen = false;
    std::int64_t foldPeak = -1;
    auto colourOf = [this](profiler::EventKind kind) {
        TraceEvent e;
        e.kind = kind;
        return foldedColour(eventColour(e, m_index->minPriority, m_index->maxPriority));
    };
    for (; it != c.cells.end(); ++it) {
        const std::int64_t start = it->bucket * c.width;
        if (start >= axis.end)
            break;
        const std::int64_t end = start + std::max(it->peak_ns, std::min(it->busy_ns, c.width));
        if (end < axis.start)
            continue;
        const double x0 = std::clamp(axis.toX(start), clipLeft, clipRight);
        const double x1 = std::clamp(axis.toX(end), clipLeft, clipRight);
        if (foldOpen && x0 - fold.x1 < minWidthPx && x0 < fold.x0 + maxFoldPx) {
            fold.x1 = std::max(fold.x1, x1);
            fold.count += static_cast<int>(std::min<std::int64_t>(it->count, 1 << 30));
            fold.t1 = std::max(fold.t1, end);
            fold.busy += it->busy_ns;
            if (it->peak_ns > foldPeak) {
                foldPeak = it->peak_ns;
                fold.colour = colourOf(it->peak_kind);
            }
            continue;
        }
        if (foldOpen) {
            fold.x1 = std::max(fold.x1, fold.x0 + 1.0);
            out.push_back(fold);
        }
        fold = DrawItem{x0, x1, laneIndex, -1, static_cast<int>(std::min<std::int64_t>(it->count, 1 << 30)),
                        colourOf(it->peak_kind), start, end, it->busy_ns};
        foldPeak = it->peak_ns;
        foldOpen = true;
    }
    if (foldOpen) {
        fold.x1 = std::max(fold.x1, fold.x0 + 1.0);
        out.push_back(fold);
    }
}

void TimelineModel::requestRange(std::int64_t t0, std::int64_t t1, double nsPerPixel)
{
    LargeRunWindow plan;
    if (!planWindow(*m_index, t0, t1, nsPerPixel, &plan))
        return;
    // The read in flight already covers this with the same kind of detail: wait for it.
    if (m_windowReads > 0 && m_pending.start <= t0 && t1 <= m_pending.end && m_pending.events == plan.events &&
        m_pending.level == plan.level)
        return;
    m_pending = plan;
    const quint64 generation = ++m_windowGeneration;
    ++m_windowReads;
    auto* watcher = new QFutureWatcher<std::pair<std::shared_ptr<const TimelineIndex>, QString>>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] {
        --m_windowReads;
        watcher->deleteLater();
        const auto [index, error] = watcher->result();
        if (generation != m_windowGeneration)
            return;  // a newer request was made meanwhile
        if (!index) {
            emit windowFailed(error);
            return;
        }
        setWindow(index);
    });
    // The worker keeps the current index alive through its own reference; nothing else is shared.
    watcher->setFuture(QtConcurrent::run([base = m_index, plan] {
        QString error;
        auto index = readLargeRunWindow(*base, plan, &error);
        return std::make_pair(std::move(index), error);
    }));
}

void TimelineModel::setWindow(std::shared_ptr<const TimelineIndex> index)
{
    if (!index || index->large != m_index->large || index->lanes.size() != m_index->lanes.size()) {
        setIndex(std::move(index));
        return;
    }
    m_index = std::move(index);
    if (laneCount() > 0)
        emit dataChanged(this->index(0), this->index(laneCount() - 1), {EventCountRole});
    emit windowChanged();
}

bool TimelineModel::holdsEventsOf(std::int64_t t0, std::int64_t t1) const
{
    if (!m_index->large)
        return true;
    const LargeRunWindow& w = m_index->window;
    if (!(w.end > w.start && w.start <= t0 && t1 <= w.end))
        return false;
    for (const SummaryLevelCells& cells : w.cells)
        if (cells.width > 0)
            return false;  // this lane's range is held as a summary
    return true;
}

int TimelineModel::find(const QString& text, std::int64_t from, bool forward) const
{
    if (!m_index->trace || text.isEmpty())
        return -1;
    std::vector<char> matches(m_index->names.size(), 0);
    bool any = false;
    for (std::size_t id = 0; id < m_index->names.size(); ++id)
        any |= (matches[id] = m_index->names[id].contains(text, Qt::CaseInsensitive)) != 0;
    if (!any)
        return -1;
    const auto& events = m_index->trace->events;
    auto startOf = [&](int e) { return events[static_cast<std::size_t>(e)].start; };
    // In search order: a is nearer than b.
    auto before = [&](int a, int b) { return forward ? startOf(a) < startOf(b) : startOf(a) > startOf(b); };
    int best = -1, wrapped = -1;
    for (const Lane& lane : m_index->lanes) {
        for (const int e : lane.events) {
            if (!matches[static_cast<std::size_t>(m_index->nameOfEvent[static_cast<std::size_t>(e)])])
                continue;
            if (wrapped < 0 || before(e, wrapped))
                wrapped = e;
            if ((forward ? startOf(e) > from : startOf(e) < from) && (best < 0 || before(e, best)))
                best = e;
        }
    }
    return best >= 0 ? best : wrapped;
}

int TimelineModel::eventAt(int laneIndex, std::int64_t t, std::int64_t slackNs) const
{
    if (!m_index->trace || laneIndex < 0 || laneIndex >= laneCount())
        return -1;
    const Lane& lane = m_index->lanes[static_cast<std::size_t>(laneIndex)];
    const auto& events = m_index->trace->events;
    const auto firstIt = std::lower_bound(lane.maxEnd.begin(), lane.maxEnd.end(), t - slackNs);
    int best = -1;
    std::int64_t bestDistance = std::numeric_limits<std::int64_t>::max();
    for (auto k = static_cast<std::size_t>(firstIt - lane.maxEnd.begin()); k < lane.events.size(); ++k) {
        const TraceEvent& e = events[static_cast<std::size_t>(lane.events[k])];
        if (e.start > t + slackNs)
            break;
        // Inside an event wins (distance 0; the later start wins among nested ones), else the nearest edge.
        const std::int64_t distance = t < e.start ? e.start - t : t > e.end ? t - e.end : 0;
        if (distance <= slackNs && distance <= bestDistance) {
            bestDistance = distance;
            best = lane.events[k];
        }
    }
    return best;
}

const QString& TimelineModel::eventName(int event) const
{
    if (event < 0 || static_cast<std::size_t>(event) >= m_index->nameOfEvent.size())
        return emptyString();
    return m_index->names[static_cast<std::size_t>(m_index->nameOfEvent[static_cast<std::size_t>(event)])];
}

QString TimelineModel::eventDetails(int event) const
{
    if (!m_index->trace || event < 0 || static_cast<std::size_t>(event) >= m_index->trace->events.size())
        return {};
    const TraceEvent& e = m_index->trace->events[static_cast<std::size_t>(event)];
    QString rows;
    auto row = [&rows](const QString& key, const QString& value) {
        rows += QStringLiteral("<tr><td style='color:#6b7280'>%1</td><td>%2</td></tr>").arg(key, value.toHtmlEscaped());
    };
    row(QStringLiteral("kind"), eventKindLabel(e.kind));
    row(QStringLiteral("start"), formatDuration(e.start - m_index->start));
    row(QStringLiteral("duration"), formatDuration(e.end - e.start));
    if (e.iteration >= 0)
        row(QStringLiteral("iteration"), QString::number(e.iteration));
    if (e.layer >= 0)
        row(QStringLiteral("layer"), QString::number(e.layer));
    if (e.tensor >= 0) {
        const auto t = static_cast<std::size_t>(e.tensor);
        const int idx = t < m_index->tensorIndex.size() ? m_index->tensorIndex[t] : -1;
        row(QStringLiteral("tensor"), idx >= 0 ? QStringLiteral("%1 (#%2)")
                                                     .arg(QString::fromStdString(m_index->trace->tensors[static_cast<std::size_t>(idx)].name))
                                                     .arg(e.tensor)
                                               : QStringLiteral("#%1").arg(e.tensor));
    }
    if (e.segment >= 0)
        row(QStringLiteral("segment"), QString::number(e.segment));
    if (e.bytes > 0) {
        QString bytes = formatBytes(e.bytes);
        if (e.end > e.start)
            bytes += QStringLiteral("  (%1 GB/s)").arg(static_cast<double>(e.bytes) / static_cast<double>(e.end - e.start), 0, 'f', 2);
        row(QStringLiteral("bytes"), bytes);
    }
    if (e.priority >= 0)
        row(QStringLiteral("priority"), QString::number(e.priority));
    const QString title = e.name.empty() ? eventKindLabel(e.kind) : QString::fromStdString(e.name);
    return QStringLiteral("<b>%1</b><table cellspacing=0 cellpadding=1>%2</table>").arg(title.toHtmlEscaped(), rows);
}

QString TimelineModel::drawItemDetails(const DrawItem& item) const
{
    if (!m_index->trace || item.lane < 0 || item.lane >= laneCount())
        return {};
    if (item.isSummary())
        return QStringLiteral("<b>%1 events</b> (zoom in to see them)<br>%2 … %3, busy %4")
            .arg(item.count)
            .arg(formatDuration(item.t0 - m_index->start), formatDuration(item.t1 - m_index->start),
                 formatDuration(item.busy));
    const Lane& lane = m_index->lanes[static_cast<std::size_t>(item.lane)];
    const auto first = static_cast<std::size_t>(item.first);
    if (first >= lane.events.size())
        return {};
    if (item.count <= 1)
        return eventDetails(lane.events[first]);
    const std::size_t last = std::min(lane.events.size(), first + static_cast<std::size_t>(item.count)) - 1;
    const TraceEvent& a = m_index->trace->events[static_cast<std::size_t>(lane.events[first])];
    std::int64_t end = a.end;
    std::int64_t busy = 0;
    for (std::size_t k = first; k <= last; ++k) {
        const TraceEvent& e = m_index->trace->events[static_cast<std::size_t>(lane.events[k])];
        end = std::max(end, e.end);
        busy += e.end - e.start;
    }
    return QStringLiteral("<b>%1 events folded</b> (zoom in to see them)<br>%2 … %3, busy %4")
        .arg(item.count)
        .arg(formatDuration(a.start - m_index->start), formatDuration(end - m_index->start), formatDuration(busy));
}

int TimelineModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : laneCount();
}

QVariant TimelineModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Lane& lane = m_index->lanes[static_cast<std::size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole: return lane.name;
    case RankRole: return lane.rank;
    case TrackKindRole: return static_cast<int>(lane.kind);
    case TrackIdRole: return lane.track;
    case EventCountRole:
        if (m_index->large) {
            for (const auto& x : m_index->large->outline.extents)
                if (x.track == lane.track)
                    return static_cast<qulonglong>(x.events);
        }
        return static_cast<qulonglong>(lane.events.size());
    default: return {};
    }
}

QHash<int, QByteArray> TimelineModel::roleNames() const
{
    auto roles = QAbstractListModel::roleNames();
    roles.insert(RankRole, "rank");
    roles.insert(TrackKindRole, "trackKind");
    roles.insert(TrackIdRole, "trackId");
    roles.insert(EventCountRole, "eventCount");
    return roles;
}

}  // namespace pacer::gui
