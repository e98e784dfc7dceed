#include "app/gui/models/replay_worker.h"

#include "app/common/policy_json.h"
#include "app/common/trace_conversion.h"


#include <algorithm>
#include <limits>

namespace pacer::gui {

bool sameSettings(const ScheduleSettings& a, const ScheduleSettings& b) {
    return app::scheduleSettingsToJson(a.config, a.whatIf) == app::scheduleSettingsToJson(b.config, b.whatIf);
}

namespace {

std::int64_t firstIterationStart(const profiler::RunTrace& trace) {
    std::int64_t first = std::numeric_limits<std::int64_t>::max();
    for (const profiler::TraceEvent& e : trace.events)
        if (e.kind == profiler::EventKind::Forward || e.kind == profiler::EventKind::Iteration)
            first = std::min(first, e.start);
    if (first != std::numeric_limits<std::int64_t>::max()) return first;
    for (const profiler::TraceEvent& e : trace.events) first = std::min(first, e.start);
    return trace.events.empty() ? 0 : first;
}

}  // namespace

std::shared_ptr<const profiler::RunTrace> withReplayLanes(const profiler::RunTrace* measured,
                                                          const profiler::RunTrace& replay) {
    if (!measured) return std::make_shared<const profiler::RunTrace>(replay);
    auto out = std::make_shared<profiler::RunTrace>(*measured);
    int rank = -1, track = -1;
    for (const profiler::Track& t : measured->tracks) {
        rank = std::max(rank, t.rank);
        track = std::max(track, t.id);
    }
    const int trackBase = track + 1;
    for (profiler::Track t : replay.tracks) {
        t.id += trackBase;
        t.rank = rank + 1;
        out->tracks.push_back(std::move(t));
    }
    const std::int64_t shift = firstIterationStart(*measured) - firstIterationStart(replay);
    out->events.reserve(out->events.size() + replay.events.size());
    for (profiler::TraceEvent e : replay.events) {
        e.track += trackBase;
        e.start += shift;
        e.end += shift;
        out->events.push_back(std::move(e));
    }
    if (out->tensors.empty()) out->tensors = replay.tensors;
    return out;
}

ReplayOutcome computeReplay(const app::ReplayInput& input, const ScheduleSettings& settings, quint64 generation,
                            ReplayDetail detail) {
    ReplayOutcome out;
    out.generation = generation;
    out.settings = settings;
    out.measuredIterMs = input.measuredIterMs;
    engine::SimOptions options;
    options.segment_runs = detail == ReplayDetail::SegmentRuns;
    auto result = app::replayInput(input, settings.config, settings.whatIf, options);
    if (!result.ok()) {
        out.error = QString::fromStdString(result.message());
        return out;
    }
    out.figures = result.value().sim.figures;
    out.followedPlanUnits = result.value().config.plan.size();
    out.recordedPlanUnits = input.plan.size();
    out.band = result.value().band;
    profiler::RunInfo info;
    info.label = "replay " + settings.config.name;
    info.policy = settings.config.name;
    info.segment_bytes = static_cast<std::int64_t>(settings.config.segment_bytes);
    info.iterations = options.iterations;
    engine::Workload drawn = input.workload;  // as simulated: its channels are the comm lanes
    if (settings.whatIf.channels > 0) drawn.channels = settings.whatIf.channels;
    out.replay = std::make_shared<const profiler::RunTrace>(app::traceFromSimulation(result.value().sim, drawn, info));
    out.index = buildTimelineIndex(withReplayLanes(input.trace.get(), *out.replay));
    return out;
}

ReplayWorker::ReplayWorker(QObject* parent)
    : QObject(parent), m_jobs(this, [this](quint64, const ReplayOutcome& outcome) { emit replayed(outcome); }) {}

ReplayWorker::~ReplayWorker() = default;

void ReplayWorker::setInput(std::shared_ptr<const app::ReplayInput> input) {
    m_input = std::move(input);
    m_jobs.dropPending();
}

quint64 ReplayWorker::request(const ScheduleSettings& settings) {
    if (!m_input) return m_jobs.generation();
    // The input is shared, immutable, and kept alive by the task for as long as it runs.
    return m_jobs.request([input = m_input, settings, generation = m_jobs.generation() + 1] {
        return computeReplay(*input, settings, generation);
    });
}

}  // namespace pacer::gui
