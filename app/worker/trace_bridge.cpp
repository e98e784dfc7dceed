#include "app/worker/trace_bridge.h"

#include <utility>

namespace pacer::worker {

using profiler::EventKind;

TraceBridge::TraceBridge(profiler::CpuTracer& tracer, const std::vector<engine::TensorInfo>& tensors,
                         const std::vector<std::string>& layerNames, int rank, bool enabled)
    : tracer_(tracer), enabled_(enabled), rank_(rank), tensors_(tensors) {
    const std::string prefix = "rank " + std::to_string(rank);
    computeTrack_ = tracer_.addTrack(profiler::TrackKind::Compute, prefix + " compute");
    commTracks_.push_back(tracer_.addTrack(profiler::TrackKind::Comm, prefix + " comm"));
    for (const std::string& name : layerNames) layerNames_.push_back(tracer_.internName(name));
    for (const engine::TensorInfo& t : tensors) {
        tensorCommNames_.push_back(tracer_.internName("allreduce " + t.name));
        tensorUpdateNames_.push_back(tracer_.internName("update " + t.name));
        tensorWaitNames_.push_back(tracer_.internName("wait " + t.name));
    }
    fusedName_ = tracer_.internName("allreduce fused");
    roundName_ = tracer_.internName("agreement round");
    iterationName_ = tracer_.internName("iteration");
}

void TraceBridge::useChannels(int channels) {
    for (int c = static_cast<int>(commTracks_.size()); c < channels; ++c)
        commTracks_.push_back(
            tracer_.addTrack(profiler::TrackKind::Comm, "rank " + std::to_string(rank_) + " comm ch" + std::to_string(c)));
}

void TraceBridge::onComm(const engine::CommEvent& e) {
    if (e.unit.pieces.empty()) return;
    const engine::Piece& first = e.unit.pieces.front();
    const int name = e.unit.pieces.size() == 1 ? tensorCommNames_[first.tensor] : fusedName_;
    const bool known = e.channel >= 0 && static_cast<std::size_t>(e.channel) < commTracks_.size();
    const int track = commTracks_[known ? static_cast<std::size_t>(e.channel) : 0];
    if (enabled_)
        tracer_.record(EventKind::AllReduce, track, name, e.start, e.end, e.iteration, tensors_[first.tensor].layer,
                       first.tensor, first.segment, static_cast<std::int64_t>(e.unit.bytes()), e.unit.priority);
    keep(engine::ObservedSpan::Comm, e.iteration, tensors_[first.tensor].layer, first.tensor, e.start, e.end,
         first.segment, static_cast<std::int64_t>(e.unit.bytes()), measureCpu_ ? e.cpu : -1);
    if (measureCpu_) {
        std::lock_guard lock(cpuMutex_);
        if (e.iteration < cpuFrom_) return;
        auto& [sum, count] = cpuBySize_[static_cast<double>(e.unit.bytes())];
        sum += static_cast<double>(e.cpu);
        count += 1;
    }
}

void TraceBridge::onRound(const engine::RoundEvent& e) {
    // Dynamic order has one channel: its rounds go on the first comm lane, before the unit each chose.
    if (enabled_)
        tracer_.record(EventKind::Agreement, commTracks_.front(), roundName_, e.start, e.end, e.iteration, -1, -1, -1,
                       e.bytes);
    keep(engine::ObservedSpan::Round, e.iteration, -1, -1, e.start, e.end, -1, e.bytes, measureCpu_ ? e.cpu : -1);
    if (measureCpu_) {
        std::lock_guard lock(cpuMutex_);
        if (e.iteration < cpuFrom_) return;
        roundCpu_.first += static_cast<double>(e.cpu);
        roundCpu_.second += 1;
    }
}

void TraceBridge::measureCommCpu(bool on) { measureCpu_ = on; }

void TraceBridge::countCommCpuFrom(int iteration) {
    std::lock_guard lock(cpuMutex_);
    cpuFrom_ = iteration;
    for (const auto& [bytes, v] : cpuBySize_) {  // the schedule before: its sizes below the steady ones (commCpu)
        auto& [sum, count] = warmupCpuBySize_[bytes];
        sum += v.first;
        count += v.second;
    }
    cpuBySize_.clear();
    roundCpu_ = {0, 0};
}

void TraceBridge::addStartupCollectives(const engine::CollectiveCpu& measured) {
    std::lock_guard lock(cpuMutex_);
    auto& [sum, count] = warmupCpuBySize_[static_cast<double>(measured.bytes)];
    sum += measured.cpu_ns * measured.calls;
    count += measured.calls;
}

engine::CommCpu TraceBridge::commCpu() const {
    std::lock_guard lock(cpuMutex_);
    return engine::fitCommCpu(cpuBySize_, roundCpu_, warmupCpuBySize_);
}

void TraceBridge::forward(int layer, int iteration, std::int64_t start, std::int64_t end) {
    keep(engine::ObservedSpan::Forward, iteration, layer, -1, start, end);
    if (!enabled_) return;
    tracer_.record(EventKind::Forward, computeTrack_, layerNames_[layer], start, end, iteration, layer);
}

void TraceBridge::backward(int layer, int iteration, std::int64_t start, std::int64_t end) {
    keep(engine::ObservedSpan::Backward, iteration, layer, -1, start, end);
    if (!enabled_) return;
    tracer_.record(EventKind::Backward, computeTrack_, layerNames_[layer], start, end, iteration, layer);
}

void TraceBridge::update(int tensor, int iteration, std::int64_t start, std::int64_t end) {
    keep(engine::ObservedSpan::Update, iteration, tensors_[tensor].layer, tensor, start, end);
    if (!enabled_) return;
    tracer_.record(EventKind::Optimizer, computeTrack_, tensorUpdateNames_[tensor], start, end, iteration,
                   tensors_[tensor].layer, tensor);
}

void TraceBridge::wait(int tensor, int iteration, std::int64_t start, std::int64_t end) {
    keep(engine::ObservedSpan::Wait, iteration, tensors_[tensor].layer, tensor, start, end);
    if (!enabled_) return;
    tracer_.record(EventKind::Wait, computeTrack_, tensorWaitNames_[tensor], start, end, iteration,
                   tensors_[tensor].layer, tensor);
}

void TraceBridge::iteration(int iteration, std::int64_t start, std::int64_t end) {
    keep(engine::ObservedSpan::Iteration, iteration, -1, -1, start, end);
    if (!enabled_) return;
    tracer_.record(EventKind::Iteration, computeTrack_, iterationName_, start, end, iteration);
}

void TraceBridge::keep(engine::ObservedSpan::Kind kind, int iteration, int layer, int tensor, std::int64_t start,
                       std::int64_t end, int segment, std::int64_t bytes, std::int64_t cpu) {
    if (!keeping_.load(std::memory_order_relaxed)) return;
    std::lock_guard lock(spansMutex_);
    spans_.push_back({kind, rank_, iteration, layer, tensor, segment, bytes, start, end, cpu});
}

void TraceBridge::keepSpans(bool keep) {
    std::lock_guard lock(spansMutex_);
    keeping_ = keep;
}

std::vector<engine::ObservedSpan> TraceBridge::takeSpans() {
    std::lock_guard lock(spansMutex_);
    return std::exchange(spans_, {});
}

}  // namespace pacer::worker
