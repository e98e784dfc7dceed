// The policy settings as they appear in experiment files, saved schedules and the CLI's --json output.
// Sizes are plain byte counts here (experiment loading turns "4MiB" into bytes first).
#pragma once

#include "engine/policy_config.h"

#include <nlohmann/json.hpp>

#include <string>

namespace pacer::app {

// Unknown keys are an error (a misspelt setting must not be silently ignored). Validation of the values against
// the tensors is the engine's (engine::validate).
bool policyConfigFromJson(const nlohmann::json& j, engine::PolicyConfig* out, std::string* error);
nlohmann::json policyConfigToJson(const engine::PolicyConfig& config);

}  // namespace pacer::app
