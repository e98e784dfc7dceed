// The CLI's side of replay: the input named by --project/--run or --model (read by app/common's replay session),
// the what-if and policy options, and the figures in JSON. Shared by replay, sweep and compare.
#pragma once

#include "app/cli/cli_args.h"
#include "app/common/replay_session.h"
#include "engine/policy_config.h"
#include "engine/replay/replay.h"

#include <nlohmann/json.hpp>

#include <string>

namespace pacer::cli {

// Reads the input through app/common's replay session path; a bad project, run or profile is a usage error.
app::ReplayInput loadReplaySource(const Args& args);   // --project [--run] | --model
app::ReplayInput loadRunSource(const std::string& project, std::int64_t runId);
engine::WhatIf whatIfFrom(const Args& args);        // --ranks --link-gbps --link-latency-us --compute-speed
// --policy and the knobs that go with it, on top of `base`
engine::PolicyConfig policyFrom(const Args& args, engine::PolicyConfig base);
// What replay and sweep start from: with --policy (or --priorities) the settings the run was given, as a capture of
// that policy from its experiment runs (ReplayInput::givenConfig); without, a run's own schedule as it ran
// (observedConfig: a self-tuned pace's choice), which `compare` shows for a run. A profile has no schedule of its
// own: --policy is required there (a usage error).
engine::PolicyConfig startingSettings(const Args& args, const app::ReplayInput& source);
nlohmann::json figuresJson(const engine::SimFigures& f);
// app::selfTunedPace, its refusal a usage error.
app::SelfTuned selfTunedPace(const app::ReplayInput& input, const engine::PolicyConfig& config,
                             const engine::WhatIf& whatIf, int iterations);
// Where model-zoo profiles are looked for: $PACER_ZOO_PATH and ./samples/zoo (the engine's defaults), then the
// samples of the source tree this program was built from.
std::vector<std::string> zooDirs();

}  // namespace pacer::cli
