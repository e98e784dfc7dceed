// Phase one of painting the timeline (cut to the visible range, fold sub-pixel spans) against the baseline of
// scanning every event of every lane and emitting a rectangle for each visible one, as a paint path without
// cutting and folding would. Prints, per zoom level, the time per frame of both, their ratio and the number of
// draw records each hands to the painter.
//
//   bench_timeline_draw [--quick]     (--quick: 100k events instead of 2M, fewer frames)
#include "app/gui/models/event_style.h"
#include "app/gui/models/timeline_model.h"

#include <QCoreApplication>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>

using namespace pacer;
using Clock = std::chrono::steady_clock;

namespace {

// Ranks × (compute, comm) lanes of back-to-back spans with lengths from 200 ns to 200 µs, as a long capture has.
std::shared_ptr<profiler::RunTrace> makeTrace(int ranks, int eventsPerLane)
{
    auto run = std::make_shared<profiler::RunTrace>();
    run->ranks = ranks;
    std::mt19937_64 rng(42);
    std::uniform_int_distribution<std::int64_t> length(200, 200'000);
    std::uniform_int_distribution<int> gap(0, 3);
    for (int r = 0; r < ranks; ++r) {
        for (int k = 0; k < 2; ++k) {
            const int track = 2 * r + k;
            run->tracks.push_back({track, r, k == 0 ? profiler::TrackKind::Compute : profiler::TrackKind::Comm, {}});
            std::int64_t t = 0;
            for (int i = 0; i < eventsPerLane; ++i) {
                profiler::TraceEvent e;
                e.kind = k == 0 ? (i % 2 ? profiler::EventKind::Backward : profiler::EventKind::Forward)
                                : profiler::EventKind::AllReduce;
                e.start = t;
                e.end = t + length(rng);
                e.track = track;
                e.priority = k == 1 ? i % 16 : -1;
                e.name = k == 0 ? "layer" : "allreduce";
                run->events.push_back(std::move(e));
                t = run->events.back().end + gap(rng) * 1'000;
            }
        }
    }
    return run;
}

// The baseline: every event of every lane is looked at, every visible one becomes a record.
void naiveDrawList(const gui::TimelineModel& model, const gui::TimeAxis& axis, std::vector<gui::DrawItem>& out)
{
    const auto& events = model.trace()->events;
    for (int lane = 0; lane < model.laneCount(); ++lane) {
        const auto& indices = model.lane(lane).events;
        for (std::size_t k = 0; k < indices.size(); ++k) {
            const auto& e = events[static_cast<std::size_t>(indices[k])];
            if (e.end < axis.start || e.start >= axis.end)
                continue;
            out.push_back({axis.toX(e.start), axis.toX(e.end), lane, static_cast<int>(k), 1,
                           gui::eventColour(e, model.minPriority(), model.maxPriority())});
        }
    }
}

template <typename F>
double msPerFrame(int frames, F&& frame)
{
    frame();  // warm-up
    const auto t0 = Clock::now();
    for (int i = 0; i < frames; ++i)
        frame();
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count() / frames;
}

}  // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
    const int ranks = 4;
    const int perLane = quick ? 12'500 : 250'000;
    const int frames = quick ? 5 : 20;

    gui::TimelineModel model;
    auto trace = makeTrace(ranks, perLane);
    const auto indexStart = Clock::now();
    model.setTrace(std::move(trace));
    const double indexMs = std::chrono::duration<double, std::milli>(Clock::now() - indexStart).count();
    const std::int64_t span = model.endTime() - model.startTime();
    std::printf("timeline draw list: %d lanes, %zu events, %d frames per figure, 1600 px wide\n", model.laneCount(),
                model.trace()->events.size(), frames);
    std::printf("lane index built in %.1f ms (%.0f ns per event)\n", indexMs, indexMs * 1e6 / model.trace()->events.size());
    std::printf("%-12s %14s %14s %8s %12s %12s\n", "visible", "cut+fold ms", "scan-all ms", "speedup", "records",
                "scan records");

    std::vector<gui::DrawItem> items;
    items.reserve(1 << 16);
    std::vector<gui::DrawItem> naive;
    naive.reserve(model.trace()->events.size());
    bool sane = true;
    for (const double fraction : {1.0, 0.1, 0.01, 0.0001}) {
        const std::int64_t length = std::max<std::int64_t>(1000, static_cast<std::int64_t>(span * fraction));
        const std::int64_t start = model.startTime() + (span - length) / 2;
        const gui::TimeAxis axis{start, start + length, 0.0, 1600.0};
        const double ours = msPerFrame(frames, [&] {
            items.clear();
            for (int lane = 0; lane < model.laneCount(); ++lane)
                model.appendDrawItems(lane, axis, 3.0, items);
        });
        const double scan = msPerFrame(frames, [&] {
            naive.clear();
            naiveDrawList(model, axis, naive);
        });
        // Both must account for the same events: every visible event is drawn alone or inside a fold.
        std::size_t folded = 0;
        for (const auto& d : items)
            folded += static_cast<std::size_t>(d.count);
        sane = sane && folded == naive.size();
        std::printf("%-12.4g %14.3f %14.3f %7.1fx %12zu %12zu\n", fraction, ours, scan, scan / ours, items.size(),
                    naive.size());
    }
    if (!sane) {
        std::fprintf(stderr, "bench_timeline_draw: folded records do not cover the visible events\n");
        return 1;
    }
    return 0;
}
