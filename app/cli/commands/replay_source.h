// Where a replay's workload and link cost come from: a captured/imported run in a project, or a model-zoo
// profile (or a user's profile file). Shared by replay, sweep and compare.
#pragma once

#include "app/cli/cli_args.h"
#include "engine/planning/schedule.h"
#include "engine/planning/self_tune.h"
#include "engine/policy_config.h"
#include "engine/replay/replay.h"
#include "engine/sim/workload.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace pacer::cli {

struct ReplaySource {
    engine::Workload workload;
    engine::CostModel cost;
    std::string description;      // "project.pacer run 3 (fifo, 2 ranks)" or "zoo resnet50"
    std::string observedPolicy;   // the policy the run used, when it came from a run
    engine::PolicyConfig observedConfig;
    double measuredIterMs = 0;    // the run's own iter_ms, when known
    std::int64_t runId = 0;
    std::optional<engine::Schedule> tuned;  // the settings a self-tuning pace chose for the run
    bool hostMemory = false;      // CPU ranks: dynamic order hears readiness one unit late, channels possible
    // The run's experiment set these: a pace captured from it would keep them, so its self-tuning replay does too.
    std::optional<bool> planOrderGiven;
    std::optional<int> channelsGiven;
};

ReplaySource loadReplaySource(const Args& args);   // --project [--run] | --model
ReplaySource loadRunSource(const std::string& project, std::int64_t runId);
engine::WhatIf whatIfFrom(const Args& args);        // --ranks --link-gbps --link-latency-us --compute-speed
// --policy and the knobs that go with it, on top of `base`
engine::PolicyConfig policyFrom(const Args& args, engine::PolicyConfig base);
nlohmann::json figuresJson(const engine::SimFigures& f);

// `pace` without settings chooses its own, as the worker would after warm-up: what the user fixed is kept
// (channels given on the command line, the order and channels the run's experiment set). Returns the chosen settings and the replay under them.
struct SelfTuned {
    engine::Schedule settings;
    engine::ReplayResult result;
    engine::Workload workload;  // as the chosen order runs it
};
SelfTuned selfTunedPace(const ReplaySource& source, const engine::PolicyConfig& config, bool segmentFixed,
                        const engine::WhatIf& whatIf, int iterations);
// Where model-zoo profiles are looked for: $PACER_ZOO_PATH and ./samples/zoo (the engine's defaults), then the
// samples of the source tree this program was built from.
std::vector<std::string> zooDirs();

}  // namespace pacer::cli
