// Model-zoo profiles (`replay --model FILE`, samples/zoo/*.json): what a user writes for a workload without a
// capture. A profile that loads must make a workload the replay takes: tensors on layers that exist, and (for
// small ones, to keep the fuzzer fast) a replay under fifo and pace that either runs or says why in one line.
#include <cmath>
#include <cstdint>
#include <string>

#include "engine/replay/replay.h"
#include "engine/replay/zoo.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace pacer;
    auto loaded = engine::parseProfile(std::string(fuzz::text(data, size)), 0, "fuzz-profile");
    if (!loaded.ok()) {
        fuzz::checkErrorLine(loaded.message(), "fuzz-profile");
        return 0;
    }
    const engine::Workload& workload = loaded.value();
    for (const auto& t : workload.tensors) {
        if (t.layer < 0 || static_cast<std::size_t>(t.layer) >= workload.layers.size())
            fuzz::broken("a tensor on a layer that does not exist", t.name);
        if (t.elements == 0) fuzz::broken("a tensor of no elements (its shape's product wrapped?)", t.name);
    }
    for (const auto& l : workload.layers)
        if (l.forward < 0 || l.backward < 0) fuzz::broken("a negative layer time", l.name);
    // Replays of big workloads are slow, not wrong (a 1.2 TB param is 300k segments): the fuzzer skips them.
    if (workload.tensors.size() > 64 || workload.layers.size() > 64 || engine::parameterCount(workload) > (1u << 28))
        return 0;
    for (const char* policy : {"fifo", "pace"}) {
        engine::PolicyConfig config;
        config.name = policy;
        engine::SimOptions options;
        options.iterations = 2;
        auto result = engine::replay(workload, engine::CostModel{}, config, engine::WhatIf{}, options);
        if (!result.ok()) fuzz::checkErrorLine(result.message());
        else if (!std::isfinite(result.value().sim.figures.iter_ms) || result.value().sim.figures.iter_ms < 0)
            fuzz::broken("a replay with a step time that is not a finite, non-negative number",
                         std::to_string(result.value().sim.figures.iter_ms));
    }
    return 0;
}
