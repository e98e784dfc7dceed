// Where a replay's workload and link cost come from: a captured/imported run in a project, or a model-zoo
// profile (or a user's profile file). Shared by replay, sweep and compare.
#pragma once

#include "app/cli/cli_args.h"
#include "engine/policy_config.h"
#include "engine/replay/replay.h"
#include "engine/sim/workload.h"

#include <nlohmann/json.hpp>

#include <string>

namespace pacer::cli {

struct ReplaySource {
    engine::Workload workload;
    engine::CostModel cost;
    // A run's steady iterations, each on its own (for the band of a prediction); empty for a zoo profile.
    std::vector<engine::IterationEstimate> iterations;
    std::vector<int> setAside;  // the run's outlier iterations, left out of workload and cost
    std::string description;      // "project.pacer run 3 (fifo, 2 ranks)" or "zoo resnet50"
    std::string observedPolicy;   // the policy the run used, when it came from a run
    engine::PolicyConfig observedConfig;
    double measuredIterMs = 0;    // the run's own iter_ms, when known
    std::int64_t runId = 0;
};

ReplaySource loadReplaySource(const Args& args);   // --project [--run] | --model
ReplaySource loadRunSource(const std::string& project, std::int64_t runId);
engine::WhatIf whatIfFrom(const Args& args);        // --ranks --link-gbps --link-latency-us --compute-speed
// --policy and the knobs that go with it, on top of `base`
engine::PolicyConfig policyFrom(const Args& args, engine::PolicyConfig base);
nlohmann::json figuresJson(const engine::SimFigures& f);
// Where model-zoo profiles are looked for: $PACER_ZOO_PATH and ./samples/zoo (the engine's defaults), then the
// samples of the source tree this program was built from.
std::vector<std::string> zooDirs();

}  // namespace pacer::cli
