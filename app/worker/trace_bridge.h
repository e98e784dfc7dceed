// Carries what the engine and the training loop do into the profiler's CPU tracer: the engine speaks of
// communication units (TraceSink), the loop of layers; the tracer wants interned names and tracks.
// Also keeps, while asked to (the warm-up iterations), everything it carries as engine::ObservedSpan: the same
// spans replay reads from a stored run (app/common/trace_conversion.cpp), for plan mode and self-tuning.
#pragma once

#include "engine/collectives/collective_cpu.h"
#include "engine/replay/observed_run.h"
#include "engine/tensor.h"
#include "engine/trace_sink.h"
#include "profiler/cpu_tracer.h"

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace pacer::worker {

class TraceBridge final : public engine::TraceSink {
public:
    TraceBridge(profiler::CpuTracer& tracer, const std::vector<engine::TensorInfo>& tensors,
                const std::vector<std::string>& layerNames, int rank, bool enabled = true);

    // A lane for each of `channels` channels. Call before a runtime with that many starts (no comm thread is
    // running then): a self-tuning run learns its channel count only after warm-up, and a lane allocated for a
    // channel it did not choose would stay empty in the trace and on the timeline.
    void useChannels(int channels);

    void onComm(const engine::CommEvent& event) override;
    void onRound(const engine::RoundEvent& event) override;

    // CPU ranks whose cores are all busy (engine::commTakesFromCompute): keep each collective's CPU time with its
    // span and fit what a collective takes from compute over the run (commCpu). Call before a runtime starts.
    void measureCommCpu(bool on);
    engine::CommCpu commCpu() const;  // the fit over the steady iterations so far; zero when not measured
    // From `iteration` on only (default 1: the first pays for first touches). The warm-up switch calls it:
    // collectives of the schedule before it do not describe the run's, but their sizes below the smallest the run
    // then sends still join the fit (engine::fitCommCpu's warm-up sizes: a few large fused units show no fixed cost).
    void countCommCpuFrom(int iteration);
    // All-reduces timed before training (engine::measureCollectiveCpu): they join the fit as the warm-up's sizes do,
    // below the smallest size the run sends, so that a run of a few large units still shows a fixed cost.
    void addStartupCollectives(const engine::CollectiveCpu& measured);
    bool measuresCommCpu() const { return measureCpu_; }

    void forward(int layer, int iteration, std::int64_t start, std::int64_t end);
    void backward(int layer, int iteration, std::int64_t start, std::int64_t end);
    void update(int tensor, int iteration, std::int64_t start, std::int64_t end);
    void wait(int tensor, int iteration, std::int64_t start, std::int64_t end);
    void iteration(int iteration, std::int64_t start, std::int64_t end);

    void keepSpans(bool keep);                         // call when the comm thread is idle
    std::vector<engine::ObservedSpan> takeSpans();     // what was kept; call when the comm thread is idle

private:
    profiler::CpuTracer& tracer_;
    void keep(engine::ObservedSpan::Kind kind, int iteration, int layer, int tensor, std::int64_t start,
              std::int64_t end, int segment = -1, std::int64_t bytes = 0, std::int64_t cpu = -1);

    const bool enabled_;  // false: nothing reaches the tracer (the warm-up spans are still kept)
    const int rank_;
    const std::vector<engine::TensorInfo>& tensors_;
    int computeTrack_ = 0;
    std::vector<int> commTracks_;  // one per channel: units in flight together get lanes of their own
    std::vector<int> layerNames_;
    std::vector<int> tensorCommNames_;
    std::vector<int> tensorUpdateNames_;
    std::vector<int> tensorWaitNames_;
    int fusedName_ = 0;
    int roundName_ = 0;
    int iterationName_ = 0;
    std::mutex spansMutex_;  // the comm thread reports units, the training thread the rest
    std::atomic<bool> keeping_{false};  // read without the lock on every span after warm-up
    std::vector<engine::ObservedSpan> spans_;
    bool measureCpu_ = false;
    mutable std::mutex cpuMutex_;  // several channels' threads report at once
    int cpuFrom_ = 1;
    std::map<double, std::pair<double, double>> cpuBySize_;  // bytes -> (CPU ns, collectives), iterations >= cpuFrom_
    std::pair<double, double> roundCpu_{0, 0};                // stand-alone agreement rounds: (CPU ns, rounds)
    std::map<double, std::pair<double, double>> warmupCpuBySize_;  // the same per size, before countCommCpuFrom
};

}  // namespace pacer::worker
