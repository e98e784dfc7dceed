#include "app/common/launch_check.h"

#include "app/common/policy_json.h"
#include "engine/host_memory.h"
#include "engine/policy_config.h"
#include "kernels/model_spec.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace pacer::app {
namespace {

std::string gib(std::uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", static_cast<double>(bytes) / static_cast<double>(1ull << 30));
    return text;
}

// A model is refused when its ranks cannot all hold it on this machine: each CPU rank keeps at least the parameters
// and their gradients (4 bytes each); optimizer state, activations and the reduction's buffers come on top, so this
// bound only ever refuses what could not run.
bool checkModel(const Experiment& e, std::string* error) {
    kernels::ModelSpec spec;
    try {
        spec = kernels::parseModelSpec(e.model);
    } catch (const std::invalid_argument& ex) {
        *error = std::string("model: ") + ex.what();
        return false;
    }
    if (e.backend != "cpu") return true;  // GPU ranks hold their model in device memory, checked by each worker
    const std::uint64_t perRank = std::uint64_t(kernels::parameterCount(spec)) * sizeof(float) * 2;
    const std::uint64_t needed = perRank * std::uint64_t(e.ranks);
    const std::uint64_t available = engine::availableHostMemoryBytes();
    if (available > 0 && needed > available) {
        *error = "model '" + spec.name + "' needs at least " + gib(perRank) + " GiB per rank for its parameters and "
                 "gradients, " + gib(needed) + " GiB for " + std::to_string(e.ranks) + " ranks, but this machine has " +
                 gib(available) + " GiB available";
        return false;
    }
    return true;
}

// Settings that are wrong whatever the model is; the rest (manual priorities per tensor, fusion groups) is checked
// by each worker against its model's tensors.
bool checkPolicy(const Experiment& e, std::string* error) {
    engine::PolicyConfig config;
    if (!policyConfigFromJson(e.policy, &config, error)) return false;
    const auto names = engine::policyNames();
    if (std::find(names.begin(), names.end(), config.name) == names.end()) {
        *error = "unknown policy '" + config.name + "'";
        return false;
    }
    if (config.name != "manual" && config.fusion_groups.empty()) {
        if (auto st = engine::validate(config, {}); !st.ok()) {
            *error = "policy: " + st.message();
            return false;
        }
    }
    return true;
}

}  // namespace

std::optional<CoreBinding> coreBindingSetting(const char* value, std::string* error) {
    const std::string v = value ? value : "";
    if (v.empty() || v == "cores") return CoreBinding::Cores;
    if (v == "compute") return CoreBinding::Compute;
    if (v == "none") return CoreBinding::None;
    *error = "PACER_BIND must be 'cores', 'compute' or 'none', got '" + v + "'";
    return std::nullopt;
}

std::optional<engine::SlotStores> slotStoresSetting(const char* value, std::string* error) {
    const std::string v = value ? value : "";
    if (v.empty() || v == "auto") return engine::SlotStores::Auto;
    if (v == "cached") return engine::SlotStores::Cached;
    if (v == "streaming") return engine::SlotStores::Streaming;
    *error = "PACER_SHM_STORES must be 'auto', 'cached' or 'streaming', got '" + v + "'";
    return std::nullopt;
}

std::optional<Experiment> resolveForLaunch(Experiment experiment, const ExperimentOverrides& overrides,
                                           std::string* error) {
    auto resolved = applyOverrides(std::move(experiment), overrides, error);
    if (!resolved || !checkModel(*resolved, error) || !checkPolicy(*resolved, error)) return std::nullopt;
    if (!coreBindingSetting(std::getenv("PACER_BIND"), error)) return std::nullopt;
    if (!slotStoresSetting(std::getenv("PACER_SHM_STORES"), error)) return std::nullopt;
    return resolved;
}

}  // namespace pacer::app
