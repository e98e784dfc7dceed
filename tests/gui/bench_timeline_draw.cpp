// The timeline on large projects: open + first paint, frame times zoomed out and at mid zoom, resident memory.
//
// Projects of 1 M and 10 M events (quick: 100 k) are written with the real store, then opened in a child
// process each (so that its resident memory is its own) in two ways:
//   large  - what the GUI does: the run's outline and resident summary, windows read for the visible range,
//            phase one of painting (appendDrawItems: cut, fold) over them;
//   whole  - the previous way: the whole run read (a string per event) and indexed, then the same paint.
// A frame is phase one (records) and phase two (filling them into a 1600 × 320 image with QPainter, as the view
// does); it is compared against the baseline of a binary search to the visible range without folding (one
// record per visible event, over the same events held as plain sorted arrays), painted the same way.
// The range table of a selection the timeline does not hold (the middle tenth of the run) is counted in the store
// (one indexed GROUP BY per track and table) against the baseline of reading that range's events and counting
// them in memory, as a window read and the in-memory table would.
// Absolute times are printed; wall-clock figures on a shared machine are noisy, so every figure is the median
// of several rounds, measured interleaved with its baseline.
//
//   bench_timeline_draw [--quick]
// The analysis (per rank breakdown, straggler, critical path) of a large run is streamed from the store in a child
// process of its own (its peak memory is its own) against the run read whole and analysed in memory, and against
// one plain SQL pass over every event; find by name in the store (the workbench's search on a large run) against
// scanning every event's name.
//
//   bench_timeline_draw --open large|whole PROJECT EVENTS   (the child: prints one line of figures)
//   bench_timeline_draw --analyze stored|whole PROJECT      (the analysis child)
//   bench_timeline_draw --write PROJECT EVENTS               (writes the benchmark's project and exits)
//   bench_timeline_draw --queries PROJECT EVENTS ROUNDS      (analysis and find figures on such a project)
#include "app/gui/models/large_run.h"
#include "app/gui/models/range_stats_model.h"
#include "app/gui/models/timeline_model.h"
#include "profiler/analysis/trace_analysis.h"
#include "profiler/project.h"
#include "profiler/sqlite_db.h"

#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QProcess>
#include <QTemporaryDir>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace pacer;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kRanks = 8;
constexpr int kWidthPx = 1600;
constexpr std::int64_t kSpansPerIteration = 2000;

double msSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

// The fastest round: what the code costs when the shared machine lets it run (medians carry the load).
double fastest(const std::vector<double>& v) { return v.empty() ? 0.0 : *std::min_element(v.begin(), v.end()); }

long residentKiB()
{
    std::ifstream statm("/proc/self/statm");
    long pages = 0, resident = 0;
    statm >> pages >> resident;
    return resident * 4;  // 4 KiB pages
}

// The most this process has held resident (VmHWM), in KiB.
long peakResidentKiB()
{
    std::ifstream status("/proc/self/status");
    std::string key;
    long value = 0;
    while (status >> key) {
        if (key == "VmHWM:") {
            status >> value;
            return value;
        }
        status.ignore(1 << 10, '\n');
    }
    return 0;
}

// Ranks × (compute, comm) lanes of back-to-back spans of 200 ns .. 200 µs, an iteration marker every 2000
// compute spans, as a long capture has. add(track, kind, start, end, priority, i): i is the span's place in its lane
// (the iteration is i / kSpansPerIteration).
template <typename Emit>
void generate(std::int64_t totalEvents, Emit&& add)
{
    const std::int64_t perLane = totalEvents / (2 * kRanks);
    std::mt19937_64 rng(42);
    std::uniform_int_distribution<std::int64_t> length(200, 200'000);
    std::uniform_int_distribution<int> gap(0, 3);
    for (int r = 0; r < kRanks; ++r) {
        for (int k = 0; k < 2; ++k) {
            const int track = 2 * r + k;
            std::int64_t t = 0;
            std::int64_t iterationStart = 0;
            for (std::int64_t i = 0; i < perLane; ++i) {
                const std::int64_t end = t + length(rng);
                if (k == 0) {
                    add(track, i % 2 ? profiler::EventKind::Backward : profiler::EventKind::Forward, t, end, -1, i);
                    if ((i + 1) % kSpansPerIteration == 0) {
                        add(track, profiler::EventKind::Iteration, iterationStart, end, -1, i);
                        iterationStart = end;
                    }
                } else {
                    add(track, profiler::EventKind::AllReduce, t, end, static_cast<int>(i % 16), i);
                }
                t = end + gap(rng) * 1'000;
            }
        }
    }
}

bool writeProject(const QString& path, std::int64_t events)
{
    profiler::RunTrace run;
    run.ranks = kRanks;
    run.label = "bench";
    for (int r = 0; r < kRanks; ++r)
        for (int k = 0; k < 2; ++k)
            run.tracks.push_back({2 * r + k, r, k == 0 ? profiler::TrackKind::Compute : profiler::TrackKind::Comm, {}});
    run.events.reserve(static_cast<std::size_t>(events + events / 1000));
    const std::int64_t lastSpan = events / (2 * kRanks) - 1;
    generate(events, [&](int track, profiler::EventKind kind, std::int64_t start, std::int64_t end, int priority, std::int64_t i) {
        profiler::TraceEvent e;
        e.kind = kind;
        e.track = track;
        e.start = start;
        e.end = end;
        e.priority = priority;
        e.iteration = static_cast<int>(i / kSpansPerIteration);
        // 40 layer names; one event alone at the very end of the last rank's compute lane is named "checkpoint",
        // the find that has to scan the whole run.
        e.name = kind == profiler::EventKind::AllReduce ? "allreduce"
                 : kind == profiler::EventKind::Iteration ? "step"
                 : track == 2 * (kRanks - 1) && i == lastSpan ? "checkpoint"
                                                              : "layer " + std::to_string(i % 40);
        run.events.push_back(std::move(e));
    });
    std::stable_sort(run.events.begin(), run.events.end(), [](const auto& a, const auto& b) {
        return a.track != b.track ? a.track < b.track : a.start < b.start;
    });
    profiler::RunInfo info;
    info.label = "bench";
    info.ranks = kRanks;
    auto id = profiler::writeRun(path.toStdString(), run, info);
    if (!id.ok())
        std::fprintf(stderr, "writing %s: %s\n", qPrintable(path), id.message().c_str());
    return id.ok();
}

// The baseline's data: each lane's events as plain sorted arrays (16 bytes an event, no strings).
struct PlainLane {
    std::vector<std::int64_t> starts, ends, maxEnd;
};

std::vector<PlainLane> plainLanes(std::int64_t events)
{
    std::vector<PlainLane> lanes(2 * kRanks);
    generate(events, [&](int track, profiler::EventKind kind, std::int64_t start, std::int64_t end, int, std::int64_t) {
        if (kind == profiler::EventKind::Iteration)
            return;
        PlainLane& l = lanes[static_cast<std::size_t>(track)];
        l.starts.push_back(start);
        l.ends.push_back(end);
        l.maxEnd.push_back(l.maxEnd.empty() ? end : std::max(l.maxEnd.back(), end));
    });
    return lanes;
}

// Binary search to the visible range, then one record per visible event: no folding.
std::size_t baselineFrame(const std::vector<PlainLane>& lanes, const gui::TimeAxis& axis, std::vector<gui::DrawItem>& out)
{
    out.clear();
    for (std::size_t lane = 0; lane < lanes.size(); ++lane) {
        const PlainLane& l = lanes[lane];
        auto k = static_cast<std::size_t>(std::lower_bound(l.maxEnd.begin(), l.maxEnd.end(), axis.start) - l.maxEnd.begin());
        for (; k < l.starts.size() && l.starts[k] < axis.end; ++k)
            out.push_back(gui::DrawItem{axis.toX(l.starts[k]), axis.toX(l.ends[k]), static_cast<int>(lane),
                                        static_cast<int>(k), 1, 0});
    }
    return out.size();
}

// Phase two: the records filled into an image, one lane 20 px high.
void paintItems(QImage& image, const std::vector<gui::DrawItem>& items)
{
    QPainter p(&image);
    for (const gui::DrawItem& d : items)
        p.fillRect(QRectF(d.x0, d.lane * 20 + 1, std::max(1.0, d.x1 - d.x0), 18), QColor::fromRgb(d.colour));
}

std::size_t modelFrame(const gui::TimelineModel& model, const gui::TimeAxis& axis, std::vector<gui::DrawItem>& out)
{
    out.clear();
    for (int lane = 0; lane < model.laneCount(); ++lane)
        model.appendDrawItems(lane, axis, 3.0, out);
    return out.size();
}

gui::TimeAxis axisOver(std::int64_t start, std::int64_t end)
{
    gui::TimeAxis a;
    a.start = start;
    a.end = end;
    a.left = 0;
    a.width = kWidthPx;
    return a;
}

// The two zooms measured: the whole run, and a view of 1/200 of it in the middle (tens of thousands of events
// of 10 M, 4 px or less each: the fold's work is largest there).
gui::TimeAxis zoomedOut(const gui::TimelineModel& m) { return axisOver(m.startTime(), m.endTime()); }
gui::TimeAxis midZoom(const gui::TimelineModel& m)
{
    const std::int64_t span = (m.endTime() - m.startTime()) / 200;
    const std::int64_t mid = (m.startTime() + m.endTime()) / 2;
    return axisOver(mid, mid + span);
}

// The child: opens PROJECT one way, paints, reads the mid-zoom window, prints one line of key=value figures.
int openChild(const QString& how, const QString& path, std::int64_t generated)
{
    const long rss0 = residentKiB();
    const auto t0 = Clock::now();
    gui::TimelineModel model;
    std::int64_t events = 0;
    if (how == QLatin1String("large")) {
        QString error;
        auto run = gui::openLargeRun(path, 0, &error);
        if (!run) {
            std::fprintf(stderr, "open: %s\n", qPrintable(error));
            return 1;
        }
        events = run->outline.events;
        model.setIndex(gui::buildLargeRunIndex(run));
    } else {
        auto trace = profiler::readRun(path.toStdString(), 0);
        if (!trace.ok()) {
            std::fprintf(stderr, "open: %s\n", trace.message().c_str());
            return 1;
        }
        events = static_cast<std::int64_t>(trace->events.size());
        model.setTrace(std::make_shared<const profiler::RunTrace>(std::move(trace).value()));
    }
    std::vector<gui::DrawItem> items;
    const std::size_t firstItems = modelFrame(model, zoomedOut(model), items);
    const double openMs = msSince(t0);
    if (firstItems == 0) {
        std::fprintf(stderr, "the first frame drew nothing\n");
        return 1;
    }
    // What the view asks for at mid zoom, read as the view's background read would (here synchronously).
    const gui::TimeAxis mid = midZoom(model);
    double windowMs = 0.0;
    gui::LargeRunWindow plan;
    if (gui::planWindow(model.timelineIndex(), mid.start, mid.end, mid.nsPerPixel(), &plan)) {
        const auto w0 = Clock::now();
        QString error;
        auto window = gui::readLargeRunWindow(model.timelineIndex(), plan, &error);
        if (!window) {
            std::fprintf(stderr, "window: %s\n", qPrintable(error));
            return 1;
        }
        model.setWindow(window);
        windowMs = msSince(w0);
    }
    const long rss1 = residentKiB();
    // Frames, interleaved round by round with the baseline over the same events (built after the memory figure).
    const auto plain = how == QLatin1String("large") ? plainLanes(generated) : std::vector<PlainLane>{};
    std::vector<gui::DrawItem> baseItems;
    baseItems.reserve(1 << 20);
    std::vector<double> outMs, midMs, outBase, midBase;
    std::size_t outItems = 0, midItems = 0, outBaseItems = 0, midBaseItems = 0;
    QImage image(kWidthPx, 2 * kRanks * 20, QImage::Format_RGB32);
    const gui::TimeAxis out = zoomedOut(model);
    for (int round = 0; round < 9; ++round) {
        auto f0 = Clock::now();
        outItems = modelFrame(model, out, items);
        paintItems(image, items);
        outMs.push_back(msSince(f0));
        f0 = Clock::now();
        midItems = modelFrame(model, mid, items);
        paintItems(image, items);
        midMs.push_back(msSince(f0));
        if (plain.empty())
            continue;
        f0 = Clock::now();
        outBaseItems = baselineFrame(plain, out, baseItems);
        paintItems(image, baseItems);
        outBase.push_back(msSince(f0));
        f0 = Clock::now();
        midBaseItems = baselineFrame(plain, mid, baseItems);
        paintItems(image, baseItems);
        midBase.push_back(msSince(f0));
    }
    std::printf("events=%lld open_ms=%.1f window_ms=%.1f window=%s out_ms=%.3f out_items=%zu mid_ms=%.3f mid_items=%zu "
                "rss_kib=%ld out_base_ms=%.3f out_base_items=%zu mid_base_ms=%.3f mid_base_items=%zu out_min=%.3f mid_min=%.3f "
                "out_base_min=%.3f mid_base_min=%.3f\n",
                static_cast<long long>(events), openMs, windowMs, plan.events ? "events" : "summary", median(outMs),
                outItems, median(midMs), midItems, rss1 - rss0, median(outBase), outBaseItems, median(midBase),
                midBaseItems, fastest(outMs), fastest(midMs), fastest(outBase), fastest(midBase));
    return 0;
}

struct Figures {
    double events = 0, openMs = 0, windowMs = 0, outMs = 0, outItems = 0, midMs = 0, midItems = 0, rssKiB = 0;
    double outBaseMs = 0, outBaseItems = 0, midBaseMs = 0, midBaseItems = 0;
    double outMin = 0, midMin = 0, outBaseMin = 0, midBaseMin = 0;
    QString window;
    bool ok = false;
};

Figures runChild(const QString& how, const QString& path, std::int64_t generated)
{
    QProcess p;
    p.start(QCoreApplication::applicationFilePath(), {QStringLiteral("--open"), how, path, QString::number(generated)});
    Figures f;
    if (!p.waitForFinished(600'000) || p.exitCode() != 0) {
        std::fprintf(stderr, "child %s failed: %s\n", qPrintable(how), p.readAllStandardError().constData());
        return f;
    }
    for (const QString& kv : QString::fromUtf8(p.readAllStandardOutput()).simplified().split(' ')) {
        const QString key = kv.section('=', 0, 0);
        const QString value = kv.section('=', 1);
        if (key == "events") f.events = value.toDouble();
        else if (key == "open_ms") f.openMs = value.toDouble();
        else if (key == "window_ms") f.windowMs = value.toDouble();
        else if (key == "window") f.window = value;
        else if (key == "out_ms") f.outMs = value.toDouble();
        else if (key == "out_items") f.outItems = value.toDouble();
        else if (key == "mid_ms") f.midMs = value.toDouble();
        else if (key == "mid_items") f.midItems = value.toDouble();
        else if (key == "rss_kib") f.rssKiB = value.toDouble();
        else if (key == "out_base_ms") f.outBaseMs = value.toDouble();
        else if (key == "out_base_items") f.outBaseItems = value.toDouble();
        else if (key == "mid_base_ms") f.midBaseMs = value.toDouble();
        else if (key == "mid_base_items") f.midBaseItems = value.toDouble();
        else if (key == "out_min") f.outMin = value.toDouble();
        else if (key == "mid_min") f.midMin = value.toDouble();
        else if (key == "out_base_min") f.outBaseMin = value.toDouble();
        else if (key == "mid_base_min") f.midBaseMin = value.toDouble();
    }
    f.ok = f.events > 0;
    return f;
}

// The first start and last end of a large run's events, from its outline.
std::pair<std::int64_t, std::int64_t> spanOf(const gui::LargeRun& run)
{
    std::int64_t first = INT64_MAX, last = INT64_MIN;
    for (const auto& x : run.outline.extents) {
        if (x.events == 0)
            continue;
        first = std::min(first, x.first_start);
        last = std::max(last, x.last_end);
    }
    return {first, last};
}

}  // namespace

// The middle tenth of a project's run as a range table, counted in the store and, as the baseline, from its events
// read and aggregated in memory; medians of interleaved rounds. False when the two tables differ.
bool rangeTable(const QString& path, int rounds)
{
    QString error;
    const auto run = gui::openLargeRun(path, 0, &error);
    if (!run) {
        std::fprintf(stderr, "range: %s\n", qPrintable(error));
        return false;
    }
    const auto [first, last] = spanOf(*run);
    const std::int64_t t0 = first + (last - first) * 45 / 100, t1 = first + (last - first) * 55 / 100;
    std::vector<double> storedMs, baseMs;
    std::vector<gui::RangeStat> stored;
    std::map<std::string, std::pair<std::int64_t, std::int64_t>> base;
    std::int64_t storedEvents = 0, baseEvents = 0;
    for (int r = 0; r < rounds; ++r) {
        auto s0 = Clock::now();
        if (!gui::aggregateStoredRange(*run, t0, t1, &stored, &error)) {
            std::fprintf(stderr, "range: %s\n", qPrintable(error));
            return false;
        }
        storedMs.push_back(msSince(s0));
        auto b0 = Clock::now();
        auto reader = profiler::RunReader::open(path.toStdString(), 0);
        auto events = reader.value()->events(run->outline.extents, t0, t1);
        base.clear();
        for (const profiler::TraceEvent& e : events.value()) {
            if (e.end <= t0)
                continue;
            auto& [count, total] = base[e.name];
            ++count;
            total += e.end - e.start;
        }
        baseMs.push_back(msSince(b0));
    }
    for (const auto& s : stored)
        storedEvents += s.count;
    for (const auto& [name, t] : base)
        baseEvents += t.first;
    std::printf("  range table, middle tenth (%lld events, %zu names): %8.1f ms counted in the store   baseline "
                "%8.1f ms (events read + counted)   %.1fx\n",
                static_cast<long long>(storedEvents), stored.size(), median(storedMs), median(baseMs),
                median(baseMs) / median(storedMs));
    return storedEvents == baseEvents && stored.size() == base.size() && storedEvents > 0;
}

// The analysis child: `--analyze stored|whole PROJECT` analyses the run streamed from the store (what pacer-cli
// analyze and the workbench do now), or read whole and analysed in memory (the previous CLI path), and prints its
// time, the growth of its peak resident memory and the figures that must agree.
int analyzeChild(const QString& how, const QString& path)
{
    const long rss0 = residentKiB();
    const auto t0 = Clock::now();
    profiler::analysis::RunAnalysis a;
    if (how == QLatin1String("stored")) {
        auto reader = profiler::RunReader::open(path.toStdString(), 0);
        auto analysis = reader.ok() ? profiler::analysis::analyzeStored(*reader.value()) : reader.status();
        if (!analysis.ok()) {
            std::fprintf(stderr, "analyze: %s\n", analysis.message().c_str());
            return 1;
        }
        a = std::move(analysis).value();
    } else {
        auto trace = profiler::readRun(path.toStdString(), 0);
        if (!trace.ok()) {
            std::fprintf(stderr, "analyze: %s\n", trace.message().c_str());
            return 1;
        }
        a = profiler::analysis::analyzeRun(trace.value());
    }
    const double ms = msSince(t0);
    std::int64_t compute = 0, idle = 0;
    for (const auto& r : a.ranks) {
        compute += r.compute_ns;
        idle += r.idle_ns;
    }
    std::printf("analysis_ms=%.1f peak_kib=%ld ranks=%zu compute=%lld idle=%lld straggler=%d path_ns=%lld path_steps=%zu\n", ms,
                peakResidentKiB() - rss0, a.ranks.size(), static_cast<long long>(compute), static_cast<long long>(idle),
                a.straggler_rank, static_cast<long long>(a.critical_path.length_ns), a.critical_path.steps.size());
    return 0;
}

std::map<QString, QString> runAnalyzeChild(const QString& how, const QString& path)
{
    QProcess p;
    p.start(QCoreApplication::applicationFilePath(), {QStringLiteral("--analyze"), how, path});
    std::map<QString, QString> out;
    if (!p.waitForFinished(1'800'000) || p.exitCode() != 0) {
        std::fprintf(stderr, "analysis child %s failed: %s\n", qPrintable(how), p.readAllStandardError().constData());
        return out;
    }
    for (const QString& kv : QString::fromUtf8(p.readAllStandardOutput()).simplified().split(' '))
        out[kv.section('=', 0, 0)] = kv.section('=', 1);
    return out;
}

// Analysis time and memory, streamed from the store against the run read whole (where that fits: up to 1 M
// events) and against one plain pass over every event in SQL (the least any analysis that reads every event
// costs), rounds interleaved. False when the two analyses disagree or one fails.
bool analysisFigures(const QString& path, std::int64_t events, int rounds)
{
    std::vector<double> storedMs, wholeMs, scanMs;
    std::map<QString, QString> stored, whole;
    auto db = profiler::sql::Db::open(path.toStdString(), profiler::sql::Db::Mode::ReadOnly);
    if (!db.ok())
        return false;
    for (int r = 0; r < rounds; ++r) {
        stored = runAnalyzeChild(QStringLiteral("stored"), path);
        if (stored.empty())
            return false;
        storedMs.push_back(stored["analysis_ms"].toDouble());
        if (events <= 1'000'000) {
            whole = runAnalyzeChild(QStringLiteral("whole"), path);
            if (whole.empty())
                return false;
            wholeMs.push_back(whole["analysis_ms"].toDouble());
        }
        const auto s0 = Clock::now();
        auto scan = db.value()->prepare("SELECT count(*), sum(end - start) FROM PACER_EVENTS WHERE run_id=(SELECT MAX(id) FROM runs)");
        profiler::Status st;
        if (!scan.ok() || !scan.value().step(&st))
            return false;
        scanMs.push_back(msSince(s0));
    }
    std::printf("  analysis, streamed from the store: %8.1f ms, peak memory +%.1f MiB (%.1f bytes/event)", median(storedMs),
                stored["peak_kib"].toDouble() / 1024, stored["peak_kib"].toDouble() * 1024 / static_cast<double>(events));
    if (!wholeMs.empty())
        std::printf("   baseline: run read whole + analysed %8.1f ms, +%.1f MiB   %.1fx", median(wholeMs),
                    whole["peak_kib"].toDouble() / 1024, median(wholeMs) / median(storedMs));
    std::printf("\n  analysis against one SQL pass over every event (%.1f ms): %.1fx that pass\n", median(scanMs),
                median(storedMs) / median(scanMs));
    if (whole.empty())
        return true;
    for (const char* key : {"ranks", "compute", "idle", "straggler", "path_ns", "path_steps"})
        if (stored[key] != whole[key]) {
            std::fprintf(stderr, "analysis differs from the whole run's: %s %s against %s\n", key, qPrintable(stored[key]),
                         qPrintable(whole[key]));
            return false;
        }
    return true;
}

// Find by name in the project file (what the workbench does on a large run) against the baseline of scanning every
// event's name for the text (a search that does not stop at the nearest match), rounds interleaved.
bool findFigures(const QString& path, int rounds)
{
    QString error;
    const auto run = gui::openLargeRun(path, 0, &error);
    auto db = profiler::sql::Db::open(path.toStdString(), profiler::sql::Db::Mode::ReadOnly);
    if (!run || !db.ok())
        return false;
    const auto [first, last] = spanOf(*run);
    const std::int64_t mid = first + (last - first) / 2;
    struct Case {
        const char* what;
        const char* text;
        std::int64_t from;
        bool forward;
        bool found;
    };
    const Case cases[] = {{"next 'layer 7' from the middle", "layer 7", mid, true, true},
                          {"previous 'allreduce' from the middle", "allreduce", mid, false, true},
                          {"next 'checkpoint' (one event, at the end)", "checkpoint", first - 1, true, true},
                          {"a name no event has", "no such name", mid, true, false}};
    bool ok = true;
    for (const Case& c : cases) {
        std::vector<double> findMs, scanMs;
        for (int r = 0; r < rounds; ++r) {
            const auto f0 = Clock::now();
            const auto found = gui::findInLargeRun(*run, QString::fromUtf8(c.text), c.from, c.forward, &error);
            findMs.push_back(msSince(f0));
            if (found.has_value() != c.found || !error.isEmpty())
                ok = false;
            const auto s0 = Clock::now();
            auto scan = db.value()->prepare(
                "SELECT count(*) FROM PACER_EVENTS WHERE run_id=(SELECT MAX(id) FROM runs) AND nameId IN "
                "(SELECT id FROM StringIds WHERE value LIKE ?1)");
            profiler::Status st;
            if (!scan.ok() || !scan.value().bind(1, std::string("%") + c.text + "%").step(&st))
                return false;
            scanMs.push_back(msSince(s0));
        }
        std::printf("  find %-42s %8.2f ms   baseline (every name scanned) %8.1f ms   %.0fx\n", c.what, median(findMs),
                    median(scanMs), median(scanMs) / std::max(median(findMs), 1e-3));
    }
    return ok;
}

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QGuiApplication app(argc, argv);
    if (argc == 5 && std::strcmp(argv[1], "--open") == 0)
        return openChild(QString::fromLocal8Bit(argv[2]), QString::fromLocal8Bit(argv[3]), std::atoll(argv[4]));
    if (argc == 4 && std::strcmp(argv[1], "--write") == 0)  // a project to look at in the workbench or the CLI
        return writeProject(QString::fromLocal8Bit(argv[2]), std::atoll(argv[3])) ? 0 : 1;
    if (argc == 5 && std::strcmp(argv[1], "--queries") == 0) {  // analysis and find on a project written before
        const QString path = QString::fromLocal8Bit(argv[2]);
        const std::int64_t n = std::atoll(argv[3]);
        const int rounds = std::atoi(argv[4]);
        return analysisFigures(path, n, rounds) && findFigures(path, rounds) ? 0 : 1;
    }
    if (argc == 4 && std::strcmp(argv[1], "--analyze") == 0)
        return analyzeChild(QString::fromLocal8Bit(argv[2]), QString::fromLocal8Bit(argv[3]));
    const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
    const std::vector<std::int64_t> sizes = quick ? std::vector<std::int64_t>{100'000}
                                                  : std::vector<std::int64_t>{1'000'000, 10'000'000};
    QTemporaryDir dir;
    std::printf("timeline on large projects (%d ranks, compute + comm lanes, %d px wide)\n", kRanks, kWidthPx);
    bool ok = true;
    for (const std::int64_t n : sizes) {
        const QString path = dir.filePath(QStringLiteral("bench-%1.pacer").arg(n));
        auto w0 = Clock::now();
        if (!writeProject(path, n))
            return 1;
        std::printf("\n%lld events: project written in %.1f s\n", static_cast<long long>(n), msSince(w0) / 1000);
        const Figures large = runChild(QStringLiteral("large"), path, n);
        // Reading the whole run takes minutes and gigabytes at 10 M: the previous way is measured up to 1 M.
        const Figures whole = n <= 1'000'000 ? runChild(QStringLiteral("whole"), path, n) : Figures{};
        if (!large.ok || (n <= 1'000'000 && !whole.ok)) {
            ok = false;
            continue;
        }
        std::printf("  open + first paint: %8.1f ms (large)", large.openMs);
        if (whole.ok)
            std::printf("   %8.1f ms (whole run read)   %.1fx", whole.openMs, whole.openMs / large.openMs);
        std::printf("\n  resident memory:    %8.1f bytes/event (large)", large.rssKiB * 1024 / large.events);
        if (whole.ok)
            std::printf("   %8.1f bytes/event (whole)", whole.rssKiB * 1024 / whole.events);
        std::printf("\n  mid-zoom window read in the background: %.1f ms (%s)\n", large.windowMs, qPrintable(large.window));

        std::printf("  frames (records + painting them), 9 rounds interleaved with the baseline, median (fastest):\n");
        std::printf("  frame, zoomed out: %8.3f (%7.3f) ms, %6.0f records   baseline %9.3f (%9.3f) ms, %8.0f records   %.1fx\n",
                    large.outMs, large.outMin, large.outItems, large.outBaseMs, large.outBaseMin, large.outBaseItems,
                    large.outBaseMs / large.outMs);
        std::printf("  frame, mid zoom:   %8.3f (%7.3f) ms, %6.0f records   baseline %9.3f (%9.3f) ms, %8.0f records   %.1fx\n",
                    large.midMs, large.midMin, large.midItems, large.midBaseMs, large.midBaseMin, large.midBaseItems,
                    large.midBaseMs / large.midMs);
        if (large.outItems == 0 || large.midItems == 0)
            ok = false;
        if (!rangeTable(path, quick ? 1 : 5))
            ok = false;
        if (!analysisFigures(path, n, quick ? 1 : 3))
            ok = false;
        if (!findFigures(path, quick ? 1 : 5))
            ok = false;
    }
    std::printf("\nGoals: open <= 2000 ms, a frame <= 16 ms, well under 100 bytes/event.\n");
    return ok ? 0 : 1;
}
