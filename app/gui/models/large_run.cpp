#include "app/gui/models/large_run.h"

#include "app/gui/models/timeline_model.h"

#include <algorithm>
#include <limits>

namespace pacer::gui {

using profiler::SummaryCell;
using profiler::TrackExtent;

namespace {

std::int64_t floorDiv(std::int64_t a, std::int64_t b) { return a / b - ((a % b != 0) && (a < 0)); }

// Lane order of an index built from the outline: the extents in that order, so lanes and extents line up.
std::vector<const TrackExtent*> extentsByLane(const TimelineIndex& index, const profiler::RunOutline& outline)
{
    std::vector<const TrackExtent*> out;
    for (const TimelineIndex::Lane& lane : index.lanes) {
        const TrackExtent* found = nullptr;
        for (const TrackExtent& x : outline.extents)
            if (x.track == lane.track)
                found = &x;
        out.push_back(found);
    }
    return out;
}

// The run's span and priority range come from the outline, not from whatever the window holds.
std::shared_ptr<TimelineIndex> indexOf(std::shared_ptr<const LargeRun> run, profiler::RunTrace trace)
{
    auto index = buildTimelineIndex(std::make_shared<const profiler::RunTrace>(std::move(trace)), IdleChannels::Keep);
    std::int64_t lo = std::numeric_limits<std::int64_t>::max();
    std::int64_t hi = std::numeric_limits<std::int64_t>::min();
    for (const TrackExtent& x : run->outline.extents) {
        if (x.events == 0)
            continue;
        lo = std::min(lo, x.first_start);
        hi = std::max(hi, x.last_end);
    }
    for (const IterationMark& mark : index->iterations) {
        lo = std::min(lo, mark.start);
        hi = std::max(hi, mark.end);
    }
    if (lo <= hi) {
        index->start = lo;
        index->end = std::max(hi, lo + 1);
    }
    index->minPriority = run->outline.min_priority;
    index->maxPriority = run->outline.max_priority;
    index->large = std::move(run);
    return index;
}

// Events starting in [t0, t1) on a lane, by its finest resident level (cells wholly inside count fully, the
// two edge cells too: an over-estimate, which only makes a window choose the summary sooner).
std::int64_t estimateEvents(const std::vector<SummaryLevelCells>& levels, std::int64_t t0, std::int64_t t1)
{
    if (levels.empty())
        return 0;
    const SummaryLevelCells& finest = levels.back();
    const std::int64_t b0 = floorDiv(t0, finest.width);
    const std::int64_t b1 = floorDiv(t1 - 1, finest.width);
    auto it = std::lower_bound(finest.cells.begin(), finest.cells.end(), b0,
                               [](const SummaryCell& c, std::int64_t b) { return c.bucket < b; });
    std::int64_t n = 0;
    for (; it != finest.cells.end() && it->bucket <= b1; ++it)
        n += it->count;
    return n;
}

// The coarsest stored level with buckets no wider than a pixel; -1 when even level 0 is wider (read events).
int levelFor(double nsPerPixel)
{
    int level = -1;
    for (int l = 0; l < 14; ++l)
        if (static_cast<double>(profiler::summaryLevelWidth(l)) <= nsPerPixel)
            level = l;
    return level;
}

}  // namespace

std::shared_ptr<const LargeRun> openLargeRun(const QString& path, std::int64_t runId, QString* error,
                                             const LargeRunLimits& limits)
{
    auto reader = profiler::RunReader::open(path.toStdString(), runId);
    if (!reader.ok()) {
        *error = QString::fromStdString(reader.message());
        return nullptr;
    }
    auto outline = (*reader)->outline();
    if (!outline.ok()) {
        *error = QString::fromStdString(outline.message());
        return nullptr;
    }
    auto run = std::make_shared<LargeRun>();
    run->limits = limits;
    run->path = path;
    run->runId = (*reader)->runId();
    run->outline = std::move(outline).value();
    // Idle channel lanes go by the outline's counts, so that every window has the same lanes.
    run->outline.trace.tracks = tracksWithoutIdleChannels(run->outline.trace.tracks, [&run](int track) {
        for (const TrackExtent& x : run->outline.extents)
            if (x.track == track)
                return x.events > 0;
        return false;
    });
    // Lanes too small for a summary are read whole here and travel in every window.
    std::vector<TrackExtent> small;
    for (const TrackExtent& x : run->outline.extents)
        if (x.levels.empty() && x.events > 0)
            small.push_back(x);
    if (!small.empty()) {
        auto events = (*reader)->events(small, std::numeric_limits<std::int64_t>::min() / 4,
                                        std::numeric_limits<std::int64_t>::max() / 4);
        if (!events.ok()) {
            *error = QString::fromStdString(events.message());
            return nullptr;
        }
        for (profiler::TraceEvent& e : events.value())
            run->outline.trace.events.push_back(std::move(e));
    }
    // Resident levels, coarsest first, while a lane's level stays small; its cells cover the whole run.
    const auto layout = buildTimelineIndex(std::make_shared<const profiler::RunTrace>(run->outline.trace), IdleChannels::Keep);
    for (const TrackExtent* x : extentsByLane(*layout, run->outline)) {
        std::vector<SummaryLevelCells> levels;
        if (x) {
            for (auto l = x->levels.rbegin(); l != x->levels.rend(); ++l) {
                const std::int64_t width = profiler::summaryLevelWidth(*l);
                const std::int64_t first = floorDiv(x->first_start, width);
                const std::int64_t last = floorDiv(x->last_end, width);
                if (std::min(x->events, last - first + 1) > run->limits.residentCells && !levels.empty())
                    break;
                auto cells = (*reader)->summary(x->track, *l, first, last);
                if (!cells.ok()) {
                    *error = QString::fromStdString(cells.message());
                    return nullptr;
                }
                levels.push_back({*l, width, first, last, std::move(cells).value()});
            }
        }
        run->resident.push_back(std::move(levels));
    }
    return run;
}

std::shared_ptr<const TimelineIndex> buildLargeRunIndex(std::shared_ptr<const LargeRun> run)
{
    profiler::RunTrace trace = run->outline.trace;
    return indexOf(std::move(run), std::move(trace));
}

bool planWindow(const TimelineIndex& index, std::int64_t t0, std::int64_t t1, double nsPerPixel, LargeRunWindow* plan)
{
    if (!index.large || t1 <= t0)
        return false;
    const LargeRun& run = *index.large;
    const LargeRunWindow& have = index.window;
    const bool covered = have.end > have.start && have.start <= t0 && t1 <= have.end;
    if (covered && have.events)
        return false;
    const int need = levelFor(nsPerPixel);
    if (need >= 0) {
        bool residentEnough = true;
        for (const auto& levels : run.resident)
            if (!levels.empty() && levels.back().level > need)
                residentEnough = false;
        if (residentEnough || (covered && have.level >= 0 && have.level <= need))
            return false;
    }
    // Read a range three views wide, so that panning by less than a view needs no read.
    const std::int64_t span = t1 - t0;
    LargeRunWindow next;
    next.start = std::max(index.start, t0 - span);
    next.end = std::min(index.end, t1 + span);
    if (next.end <= next.start) {
        next.start = t0;
        next.end = t1;
    }
    std::int64_t estimate = 0;
    for (const auto& levels : run.resident)
        estimate += estimateEvents(levels, next.start, next.end);
    if (estimate > run.limits.windowEvents && need < 0) {
        // Zoomed in below a microsecond a pixel and still too many: the visible range only.
        next.start = t0;
        next.end = t1;
        estimate = 0;
        for (const auto& levels : run.resident)
            estimate += estimateEvents(levels, next.start, next.end);
    }
    next.events = estimate <= run.limits.windowEvents || need < 0;
    next.level = next.events ? -1 : need;
    *plan = std::move(next);
    return true;
}

std::shared_ptr<const TimelineIndex> readLargeRunWindow(const TimelineIndex& index, const LargeRunWindow& plan,
                                                        QString* error)
{
    if (!index.large)
        return nullptr;
    const LargeRun& run = *index.large;
    auto reader = profiler::RunReader::open(run.path.toStdString(), run.runId);
    if (!reader.ok()) {
        *error = QString::fromStdString(reader.message());
        return nullptr;
    }
    profiler::RunTrace trace = run.outline.trace;  // markers and small lanes, then the window's events
    LargeRunWindow window = plan;
    window.cells.assign(index.lanes.size(), {});
    std::vector<TrackExtent> eventLanes;
    const auto extents = extentsByLane(index, run.outline);
    for (std::size_t lane = 0; lane < extents.size(); ++lane) {
        const TrackExtent* x = extents[lane];
        if (!x || x->levels.empty())
            continue;  // no events, or a small lane already in the outline
        // A lane whose stored levels start above the one asked for is sparse there: its events are few.
        const bool hasLevel = std::find(x->levels.begin(), x->levels.end(), plan.level) != x->levels.end();
        if (plan.events || !hasLevel) {
            eventLanes.push_back(*x);
            continue;
        }
        SummaryLevelCells& cells = window.cells[lane];
        cells.level = plan.level;
        cells.width = profiler::summaryLevelWidth(plan.level);
        cells.firstBucket = floorDiv(plan.start - x->longest_ns, cells.width);
        cells.lastBucket = floorDiv(plan.end - 1, cells.width);
        auto read = (*reader)->summary(x->track, plan.level, cells.firstBucket, cells.lastBucket);
        if (!read.ok()) {
            *error = QString::fromStdString(read.message());
            return nullptr;
        }
        cells.cells = std::move(read).value();
    }
    auto events = (*reader)->events(eventLanes, plan.start, plan.end);
    if (!events.ok()) {
        *error = QString::fromStdString(events.message());
        return nullptr;
    }
    trace.events.reserve(trace.events.size() + events->size());
    for (profiler::TraceEvent& e : events.value())
        trace.events.push_back(std::move(e));
    auto next = indexOf(index.large, std::move(trace));
    next->window = std::move(window);
    return next;
}

std::optional<profiler::TraceEvent> findInLargeRun(const LargeRun& run, const QString& text, std::int64_t from, bool forward,
                                                   QString* error)
{
    auto reader = profiler::RunReader::open(run.path.toStdString(), run.runId);
    if (!reader.ok()) {
        *error = QString::fromStdString(reader.status().message());
        return std::nullopt;
    }
    std::vector<int> tracks;
    for (const profiler::TrackExtent& x : run.outline.extents)
        if (x.events > 0)
            tracks.push_back(x.track);
    auto found = reader.value()->findByName(tracks, text.toStdString(), from, forward);
    if (!found.ok()) {
        *error = QString::fromStdString(found.status().message());
        return std::nullopt;
    }
    return std::move(found).value();
}

}  // namespace pacer::gui
