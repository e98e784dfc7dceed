#include "app/gui/models/replay_worker.h"

#include "app/common/policy_json.h"
#include "app/common/trace_conversion.h"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

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

ReplayOutcome computeReplay(const app::ReplayInput& input, const ScheduleSettings& settings, quint64 generation) {
    ReplayOutcome out;
    out.generation = generation;
    out.settings = settings;
    out.measuredIterMs = input.measuredIterMs;
    auto result = engine::replay(input.workload, input.cost, settings.config, settings.whatIf);
    if (!result.ok()) {
        out.error = QString::fromStdString(result.message());
        return out;
    }
    out.figures = result.value().sim.figures;
    profiler::RunInfo info;
    info.label = "replay " + settings.config.name;
    info.policy = settings.config.name;
    info.segment_bytes = static_cast<std::int64_t>(settings.config.segment_bytes);
    info.iterations = engine::SimOptions{}.iterations;
    engine::Workload drawn = input.workload;  // as simulated: its channels are the comm lanes
    if (settings.whatIf.channels > 0) drawn.channels = settings.whatIf.channels;
    out.replay = std::make_shared<const profiler::RunTrace>(app::traceFromSimulation(result.value().sim, drawn, info));
    out.index = buildTimelineIndex(withReplayLanes(input.trace.get(), *out.replay));
    return out;
}

ReplayWorker::ReplayWorker(QObject* parent) : QObject(parent) { m_pool.setMaxThreadCount(1); }

ReplayWorker::~ReplayWorker() { m_pool.waitForDone(); }

void ReplayWorker::setInput(std::shared_ptr<const app::ReplayInput> input) {
    m_input = std::move(input);
    m_pending.reset();
}

quint64 ReplayWorker::request(const ScheduleSettings& settings) {
    const quint64 generation = ++m_generation;
    m_pending = std::make_pair(generation, settings);
    if (!m_running) startNext();
    return generation;
}

void ReplayWorker::startNext() {
    if (!m_pending || !m_input) return;
    auto [generation, settings] = std::move(*m_pending);
    m_pending.reset();
    m_running = true;
    ++m_computed;
    auto* watcher = new QFutureWatcher<ReplayOutcome>(this);
    connect(watcher, &QFutureWatcher<ReplayOutcome>::finished, this, [this, watcher] {
        watcher->deleteLater();
        m_running = false;
        const ReplayOutcome outcome = watcher->result();
        emit replayed(outcome);
        startNext();
    });
    // The input is shared, immutable, and kept alive by the task for as long as it runs.
    watcher->setFuture(QtConcurrent::run(&m_pool, [input = m_input, settings, generation] {
        return computeReplay(*input, settings, generation);
    }));
}

}  // namespace pacer::gui
