// The policy settings as they appear in experiment files, saved schedules and the CLI's --json output.
// Sizes are plain byte counts here (experiment loading turns "4MiB" into bytes first).
#pragma once

#include "engine/policy_config.h"
#include "engine/replay/replay.h"

#include <nlohmann/json.hpp>

#include <string>

namespace pacer::app {

// Unknown keys are an error (a misspelt setting must not be silently ignored). Validation of the values against
// the tensors is the engine's (engine::validate).
bool policyConfigFromJson(const nlohmann::json& j, engine::PolicyConfig* out, std::string* error);
nlohmann::json policyConfigToJson(const engine::PolicyConfig& config);

// A saved schedule's settings (profiler::SavedSchedule::settings_json): {"policy": {...}, "what_if": {...}};
// what-if knobs left as observed are left out.
nlohmann::json scheduleSettingsToJson(const engine::PolicyConfig& config, const engine::WhatIf& whatIf);
// "Run this schedule": the experiment a run was made with (its stored, resolved copy) with the policy replaced and
// the what-if knobs a real run can honour applied (link emulation, ranks, channels in plan order). A compute speed
// other than 1 cannot be run for real: false with a message.
bool experimentWithSchedule(const nlohmann::json& experiment, const engine::PolicyConfig& config,
                            const engine::WhatIf& whatIf, nlohmann::json* out, std::string* error);
bool scheduleSettingsFromJson(const nlohmann::json& j, engine::PolicyConfig* config, engine::WhatIf* whatIf,
                              std::string* error);

}  // namespace pacer::app
