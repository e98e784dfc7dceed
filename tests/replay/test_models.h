// Small workloads shared by the replay tests: the zoo from the source tree and hand-sized synthetic models.
#pragma once

#include <QtTest>
#include <string>

#include "engine/replay/zoo.h"
#include "engine/sim/workload.h"

namespace pacer::test {

inline engine::Workload zooModel(const std::string& name) {
    auto w = engine::loadProfile(name, 0, {std::string(PACER_SAMPLES_DIR) + "/zoo"});
    if (!w.ok()) qFatal("zoo model %s: %s", name.c_str(), w.status().message().c_str());
    return w.value();
}

// `layers` layers with one weight and one bias each; weights grow towards the output so that fusion, segmenting
// and bucketing all have something to decide. Times in ns.
inline engine::Workload syntheticModel(int layers, std::size_t baseElements, engine::Nanos forward,
                                       engine::Nanos backward) {
    engine::Workload w;
    w.name = "synthetic";
    w.ranks = 2;
    w.update_ns_per_element = 0.05;
    for (int l = 0; l < layers; ++l) {
        w.layers.push_back({"layer" + std::to_string(l), forward, backward});
        const std::size_t weight = baseElements * static_cast<std::size_t>(1 + (l * 7) % 13);
        w.tensors.push_back({static_cast<int>(w.tensors.size()), "layer" + std::to_string(l) + ".weight", l, weight});
        w.tensors.push_back({static_cast<int>(w.tensors.size()), "layer" + std::to_string(l) + ".bias", l, 64});
    }
    return w;
}

}  // namespace pacer::test
