#include "app/worker/plan_exchange.h"

#include "engine/replay/observed_run.h"
#include "engine/sim/simulator.h"

#include <algorithm>

namespace pacer::worker {
namespace {

engine::Nanos median(std::vector<std::int64_t> v) {
    if (v.empty()) return 0;
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
}

// Broadcast from rank 0 through the transport. The bytes stay in host memory: the NCCL transport stages a
// broadcast through device memory itself (an earlier device copy here made it copy "host to device" from a
// device pointer).
engine::Status broadcastBytes(engine::Transport& transport, void* data, std::size_t bytes) {
    return transport.broadcast(data, bytes, 0);
}

}  // namespace

engine::Result<std::vector<engine::CommUnit>> computePlan(const PlanInputs& in, const engine::PolicyConfig& config) {
    engine::Workload workload;
    workload.tensors = in.tensors;
    workload.ranks = in.ranks;
    workload.channels = in.channels;
    for (std::size_t l = 0; l < in.layerNames.size(); ++l)
        workload.layers.push_back({in.layerNames[l], median(in.forwardTimes[l]), median(in.backwardTimes[l])});

    engine::ObservedRun observed;
    observed.tensors = in.tensors;
    observed.layerNames = in.layerNames;
    observed.ranks = in.ranks;
    observed.policy = config.name;
    for (const TraceBridge::CommSample& c : in.comm) {
        engine::ObservedSpan span{};
        span.kind = engine::ObservedSpan::Comm;
        span.rank = 0;
        span.iteration = c.iteration;
        span.layer = in.tensors[c.unit.pieces.front().tensor].layer;
        span.tensor = c.unit.pieces.front().tensor;
        span.segment = c.unit.pieces.front().segment;
        span.bytes = static_cast<std::int64_t>(c.unit.bytes());
        span.start = c.start;
        span.end = c.end;
        observed.spans.push_back(span);
    }
    auto cost = engine::fitCostModel(observed);
    if (!cost.ok()) return cost.status();

    auto policy = engine::makePolicy(config, in.tensors);
    if (!policy.ok()) return policy.status();
    auto sim = engine::simulate(workload, *policy.value(), cost.value(), engine::SimOptions{});
    if (!sim.ok()) return sim.status();
    if (sim.value().order.empty()) return engine::Status::error("the simulator produced an empty unit order");
    return std::move(sim.value().order);
}

std::vector<std::int64_t> encodePlan(const std::vector<engine::CommUnit>& plan) {
    std::vector<std::int64_t> w;
    w.push_back(static_cast<std::int64_t>(plan.size()));
    for (const engine::CommUnit& u : plan) {
        w.push_back(u.priority);
        w.push_back(static_cast<std::int64_t>(u.pieces.size()));
        for (const engine::Piece& p : u.pieces) {
            w.push_back(p.tensor);
            w.push_back(p.segment);
            w.push_back(static_cast<std::int64_t>(p.offset));
            w.push_back(static_cast<std::int64_t>(p.count));
        }
    }
    return w;
}

engine::Result<std::vector<engine::CommUnit>> decodePlan(const std::vector<std::int64_t>& w) {
    std::size_t i = 0;
    auto take = [&](std::int64_t& out) {
        if (i >= w.size()) return false;
        out = w[i++];
        return true;
    };
    std::int64_t units = 0;
    if (!take(units) || units < 0) return engine::Status::error("malformed plan");
    std::vector<engine::CommUnit> plan;
    for (std::int64_t u = 0; u < units; ++u) {
        engine::CommUnit unit;
        std::int64_t priority = 0, pieces = 0;
        if (!take(priority) || !take(pieces) || pieces <= 0) return engine::Status::error("malformed plan");
        unit.priority = static_cast<int>(priority);
        for (std::int64_t p = 0; p < pieces; ++p) {
            std::int64_t tensor = 0, segment = 0, offset = 0, count = 0;
            if (!take(tensor) || !take(segment) || !take(offset) || !take(count))
                return engine::Status::error("malformed plan");
            unit.pieces.push_back({static_cast<int>(tensor), static_cast<int>(segment), static_cast<std::size_t>(offset),
                                   static_cast<std::size_t>(count)});
        }
        plan.push_back(std::move(unit));
    }
    if (i != w.size()) return engine::Status::error("malformed plan: trailing words");
    return plan;
}

engine::Result<std::vector<engine::CommUnit>> exchangePlan(engine::Transport& transport,
                                                           std::vector<engine::CommUnit> plan) {
    std::vector<std::int64_t> words = transport.rank() == 0 ? encodePlan(plan) : std::vector<std::int64_t>{};
    std::int64_t size = static_cast<std::int64_t>(words.size());
    if (auto st = broadcastBytes(transport, &size, sizeof size); !st.ok()) return st;
    if (size <= 0 || size > (1 << 26)) return engine::Status::error("rank 0 sent an impossible plan size");
    words.resize(static_cast<std::size_t>(size));
    if (auto st = broadcastBytes(transport, words.data(), words.size() * sizeof(std::int64_t)); !st.ok())
        return st;
    return decodePlan(words);
}

}  // namespace pacer::worker
