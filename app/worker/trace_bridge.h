// Carries what the engine and the training loop do into the profiler's CPU tracer: the engine speaks of
// communication units (TraceSink), the loop of layers; the tracer wants interned names and tracks.
// Also keeps, for plan mode, the (bytes, duration) of every unit the engine reported during warm-up.
#pragma once

#include "engine/tensor.h"
#include "engine/trace_sink.h"
#include "profiler/cpu_tracer.h"

#include <mutex>
#include <string>
#include <vector>

namespace pacer::worker {

class TraceBridge final : public engine::TraceSink {
public:
    TraceBridge(profiler::CpuTracer& tracer, const std::vector<engine::TensorInfo>& tensors,
                const std::vector<std::string>& layerNames, int rank, bool enabled = true, int channels = 1);

    void onComm(const engine::CommEvent& event) override;

    void forward(int layer, int iteration, std::int64_t start, std::int64_t end);
    void backward(int layer, int iteration, std::int64_t start, std::int64_t end);
    void update(int tensor, int iteration, std::int64_t start, std::int64_t end);
    void wait(int tensor, int iteration, std::int64_t start, std::int64_t end);
    void iteration(int iteration, std::int64_t start, std::int64_t end);

    struct CommSample {
        int iteration;
        engine::CommUnit unit;
        std::int64_t start, end;
    };
    std::vector<CommSample> commSamples() const;  // copies; call when the comm thread is idle

private:
    profiler::CpuTracer& tracer_;
    const bool enabled_;  // false: nothing reaches the tracer (the plan-mode samples are still kept)
    const std::vector<engine::TensorInfo>& tensors_;
    int computeTrack_ = 0;
    std::vector<int> commTracks_;  // one per channel: units in flight together get lanes of their own
    std::vector<int> layerNames_;
    std::vector<int> tensorCommNames_;
    std::vector<int> tensorUpdateNames_;
    std::vector<int> tensorWaitNames_;
    int fusedName_ = 0;
    int iterationName_ = 0;
    mutable std::mutex samplesMutex_;
    std::vector<CommSample> samples_;
};

}  // namespace pacer::worker
