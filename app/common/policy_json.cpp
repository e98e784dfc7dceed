#include "app/common/policy_json.h"

namespace pacer::app {

using nlohmann::json;

bool policyConfigFromJson(const json& j, engine::PolicyConfig* out, std::string* error) {
    if (!j.is_object()) {
        *error = "policy must be an object";
        return false;
    }
    engine::PolicyConfig c;
    for (const auto& [key, value] : j.items()) {
        try {
            if (key == "name") c.name = value.get<std::string>();
            else if (key == "segment_bytes") c.segment_bytes = value.get<std::size_t>();
            else if (key == "bucket_bytes") c.bucket_bytes = value.get<std::size_t>();
            else if (key == "first_bucket_bytes") c.first_bucket_bytes = value.get<std::size_t>();
            else if (key == "fusion_bytes") c.fusion_bytes = value.get<std::size_t>();
            else if (key == "cycle_ms") c.cycle_ns = static_cast<engine::Nanos>(value.get<double>() * 1e6);
            else if (key == "credit") c.credit = value.get<int>();
            else if (key == "fuse_below_bytes") c.fuse_below_bytes = value.get<std::size_t>();
            else if (key == "fusion_groups") c.fusion_groups = value.get<std::vector<std::vector<int>>>();
            else if (key == "buckets") c.buckets = value.get<std::vector<std::vector<int>>>();
            else if (key == "priorities") c.priorities = value.get<std::vector<int>>();
            else if (key == "tensor_segment_bytes") c.tensor_segment_bytes = value.get<std::vector<std::size_t>>();
            else {
                *error = "policy: unknown setting '" + key + "'";
                return false;
            }
        } catch (const json::exception&) {
            *error = "policy: '" + key + "' has the wrong type (" + value.type_name() + ")";
            return false;
        }
    }
    *out = std::move(c);
    return true;
}

json policyConfigToJson(const engine::PolicyConfig& c) {
    json j{{"name", c.name},
           {"segment_bytes", c.segment_bytes},
           {"bucket_bytes", c.bucket_bytes},
           {"first_bucket_bytes", c.first_bucket_bytes},
           {"fusion_bytes", c.fusion_bytes},
           {"cycle_ms", static_cast<double>(c.cycle_ns) / 1e6},
           {"credit", c.credit},
           {"fuse_below_bytes", c.fuse_below_bytes}};
    if (!c.fusion_groups.empty()) j["fusion_groups"] = c.fusion_groups;
    if (!c.priorities.empty()) j["priorities"] = c.priorities;
    if (!c.buckets.empty()) j["buckets"] = c.buckets;
    if (!c.tensor_segment_bytes.empty()) j["tensor_segment_bytes"] = c.tensor_segment_bytes;
    return j;
}

json scheduleSettingsToJson(const engine::PolicyConfig& config, const engine::WhatIf& w) {
    json whatIf = json::object();
    if (w.link_gbps > 0) whatIf["link_gbps"] = w.link_gbps;
    if (w.link_latency_us >= 0) whatIf["link_latency_us"] = w.link_latency_us;
    if (w.ranks > 0) whatIf["ranks"] = w.ranks;
    if (w.compute_speed != 1.0) whatIf["compute_speed"] = w.compute_speed;
    if (w.channels > 0) whatIf["channels"] = w.channels;
    return {{"policy", policyConfigToJson(config)}, {"what_if", whatIf}};
}

bool experimentWithSchedule(const json& experiment, const engine::PolicyConfig& config, const engine::WhatIf& w,
                            json* out, std::string* error) {
    if (!experiment.is_object() || !experiment.contains("model")) {
        *error = "the run keeps no experiment to run again (an imported trace?)";
        return false;
    }
    if (w.compute_speed != 1.0) {
        *error = "a real run cannot change the compute speed; set it back to 1 to run this schedule";
        return false;
    }
    json e = experiment;
    e["policy"] = policyConfigToJson(config);
    if (w.link_gbps > 0) e["link"]["gbps"] = w.link_gbps;
    if (w.link_latency_us >= 0) e["link"]["latency_us"] = w.link_latency_us;
    if (w.ranks > 0) e["ranks"] = w.ranks;
    if (w.channels > 0) {
        e["channels"] = w.channels;
        if (w.channels > 1) e["order"] = "plan";  // several units in flight need the plan order
    }
    *out = std::move(e);
    return true;
}

bool scheduleSettingsFromJson(const json& j, engine::PolicyConfig* config, engine::WhatIf* whatIf, std::string* error) {
    if (!j.is_object() || !j.contains("policy")) {
        *error = "a saved schedule's settings need a \"policy\" object";
        return false;
    }
    if (!policyConfigFromJson(j["policy"], config, error)) return false;
    engine::WhatIf w;
    const json knobs = j.value("what_if", json::object());
    if (!knobs.is_object()) {
        *error = "what_if must be an object";
        return false;
    }
    for (const auto& [key, value] : knobs.items()) {
        if (!value.is_number()) {
            *error = "what_if: '" + key + "' must be a number";
            return false;
        }
        if (key == "link_gbps") w.link_gbps = value.get<double>();
        else if (key == "link_latency_us") w.link_latency_us = value.get<double>();
        else if (key == "ranks") w.ranks = value.get<int>();
        else if (key == "compute_speed") w.compute_speed = value.get<double>();
        else if (key == "channels") w.channels = value.get<int>();
        else {
            *error = "what_if: unknown setting '" + key + "'";
            return false;
        }
    }
    *whatIf = w;
    return true;
}

}  // namespace pacer::app
