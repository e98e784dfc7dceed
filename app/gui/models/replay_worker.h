// Replays a schedule off the GUI thread while the user edits it.
//
// The input (a run's workload and fitted cost, app::ReplayInput) is read once and kept; each request only
// simulates, turns the result into a trace and indexes it for the timeline, all on the worker thread. Requests
// carry a generation number: one replay runs at a time, a request made while one runs waits in a single slot
// that a newer request overwrites (newest wins), and the result of the last request is always delivered, so
// the figures follow a dragged slider and settle on where it stopped. Results arrive in generation order.
#pragma once

#include "app/common/replay_session.h"
#include "app/gui/models/newest_wins.h"
#include "app/gui/models/timeline_model.h"

#include <QObject>
#include <QString>

#include <memory>
#include <optional>

namespace pacer::gui {

struct ScheduleSettings {
    engine::PolicyConfig config;
    engine::WhatIf whatIf;
};
bool sameSettings(const ScheduleSettings& a, const ScheduleSettings& b);

struct ReplayOutcome {
    quint64 generation = 0;
    ScheduleSettings settings;
    engine::SimFigures figures;
    engine::PredictionBand band;                      // empty iteration_ms: no band (a profile)
    double measuredIterMs = 0;                        // the run's own, 0 for a profile
    // The units of the plan the run followed, when the replay follows it (the run's own schedule of a plan-order
    // run: app::replayInput); 0 when the policy decides the order. recordedPlanUnits: the run's plan, followed or not.
    std::size_t followedPlanUnits = 0;
    std::size_t recordedPlanUnits = 0;
    std::shared_ptr<const profiler::RunTrace> replay; // the replayed iterations alone
    std::shared_ptr<const TimelineIndex> index;       // the measured run with the replay's lanes under it
    QString error;                                    // non-empty: the settings cannot be replayed; why
};

// How finely a replay's communication is drawn. The editor follows a slider with runs of segments (one lane entry
// per run: the figures are the same, and the cost does not grow with the segment count, see
// engine::SimOptions::segment_runs); a prediction checked unit by unit against a real run needs every unit.
enum class ReplayDetail { SegmentRuns, EveryUnit };

// The replay of one request, synchronously; safe on any thread.
ReplayOutcome computeReplay(const app::ReplayInput& input, const ScheduleSettings& settings, quint64 generation,
                            ReplayDetail detail = ReplayDetail::SegmentRuns);

// The measured run with the replay's lanes appended right under it: the replay's tracks get a rank after the
// run's last, so the timeline orders them last, named "replay ...", shifted so that the replay's first
// iteration starts where the run's first iteration does. Without a measured run: the replay alone.
std::shared_ptr<const profiler::RunTrace> withReplayLanes(const profiler::RunTrace* measured,
                                                          const profiler::RunTrace& replay);

class ReplayWorker : public QObject {
    Q_OBJECT
public:
    explicit ReplayWorker(QObject* parent = nullptr);
    ~ReplayWorker() override;

    void setInput(std::shared_ptr<const app::ReplayInput> input);
    const app::ReplayInput* input() const { return m_input.get(); }
    std::shared_ptr<const app::ReplayInput> sharedInput() const { return m_input; }

    // Queues a replay; returns its generation.
    quint64 request(const ScheduleSettings& settings);
    bool isBusy() const { return m_jobs.isBusy(); }
    quint64 generation() const { return m_jobs.generation(); }
    int computed() const { return m_jobs.computed(); }  // replays actually run (superseded requests are skipped)

signals:
    void replayed(const pacer::gui::ReplayOutcome& outcome);

private:
    std::shared_ptr<const app::ReplayInput> m_input;
    NewestWins<ReplayOutcome> m_jobs;
};

}  // namespace pacer::gui
