// One rank's training loop for the engine tests, with integer-valued gradients so that every sum is exact in
// float32. Used by the thread tests (tst_runtime.cpp) and by the process tests (rank_process.cpp), so both
// check the very same thing.
#pragma once

#include "engine/plan.h"
#include "engine/policy_config.h"
#include "engine/runtime.h"

#include <chrono>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace pacer::engine::testing {

inline std::vector<TensorInfo> makeTensors(const std::vector<std::size_t>& elements) {
    std::vector<TensorInfo> tensors;
    for (std::size_t i = 0; i < elements.size(); ++i) {
        std::string name = "t";
        name += std::to_string(i);
        tensors.push_back(TensorInfo{static_cast<int>(i), name, static_cast<int>(i), elements[i]});
    }
    return tensors;
}

inline float valueOf(int rank, int tensor, std::size_t i, int iteration) {
    return static_cast<float>((rank + 1) * static_cast<int>((i % 13) + tensor + iteration));
}

struct Training {
    int iterations = 3;
    std::function<void(int rank, int tensor)> beforeGradient;  // e.g. a random delay
    bool verify = true;
    int channels = 1;  // plan mode: units in flight at once
    Algorithm algorithm = Algorithm::Native;  // how each unit is reduced (RuntimeOptions::algorithm)
    Topology topology;
};

// A beforeGradient hook that sleeps a random 0..maxUs microseconds (only when above minUs, as shorter sleeps are
// mostly scheduler noise), from one deterministic generator per rank, so that the ranks drift apart.
inline std::function<void(int, int)> randomDelays(int ranks, unsigned seed, int maxUs, int minUs) {
    auto rngs = std::make_shared<std::vector<std::mt19937>>();
    for (int r = 0; r < ranks; ++r) rngs->emplace_back(seed + static_cast<unsigned>(r));
    return [rngs, maxUs, minUs](int rank, int) {
        const int us = std::uniform_int_distribution<int>(0, maxUs)((*rngs)[rank]);
        if (us > minUs) std::this_thread::sleep_for(std::chrono::microseconds(us));
    };
}

// One rank's loop: for every iteration, backward produces gradients last tensor first; each gradient buffer
// is rewritten only after its previous reduction (cross-iteration overlap); after each iteration, every
// element must equal the exact sum over ranks.
inline Status trainRank(int rank, int ranks, Transport& transport, const PolicyConfig& config, OrderMode mode,
                        const std::vector<TensorInfo>& tensors, TraceSink* sink, const Training& training) {
    auto policy = makePolicy(config, tensors);
    if (!policy.ok()) return policy.status();
    RuntimeOptions options;
    options.mode = mode;
    options.timeout = std::chrono::milliseconds(20000);
    options.channels = training.channels;
    options.algorithm = training.algorithm;
    options.topology = training.topology;
    if (mode == OrderMode::Plan) {
        auto planner = makePolicy(config, tensors);
        auto plan = recordPlan(**planner, tensors);
        if (!plan.ok()) return plan.status();
        options.plan = std::move(plan.value());
    }
    std::vector<std::vector<float>> grads;
    std::vector<float*> pointers;
    for (const TensorInfo& t : tensors) grads.emplace_back(t.elements);
    for (auto& g : grads) pointers.push_back(g.data());
    Runtime runtime(transport, std::move(policy.value()), tensors, pointers, options, sink);
    const int rankSum = ranks * (ranks + 1) / 2;
    for (int it = 0; it < training.iterations; ++it) {
        PACER_RETURN_IF_ERROR(runtime.beginIteration(it));
        for (int t = static_cast<int>(tensors.size()) - 1; t >= 0; --t) {
            PACER_RETURN_IF_ERROR(runtime.waitReduced(t));
            if (training.beforeGradient) training.beforeGradient(rank, t);
            for (std::size_t i = 0; i < tensors[t].elements; ++i) grads[t][i] = valueOf(rank, t, i, it);
            runtime.gradientReady(t);
        }
        PACER_RETURN_IF_ERROR(runtime.waitAll());
        if (!training.verify) continue;
        for (std::size_t t = 0; t < tensors.size(); ++t)
            for (std::size_t i = 0; i < tensors[t].elements; ++i)
                if (grads[t][i] != valueOf(0, static_cast<int>(t), i, it) * static_cast<float>(rankSum))
                    return Status::error("rank " + std::to_string(rank) + " iteration " + std::to_string(it) +
                                         ": tensor " + std::to_string(t) + " element " + std::to_string(i) + " is " +
                                         std::to_string(grads[t][i]));
    }
    return Status::success();
}

}  // namespace pacer::engine::testing
