#include "app/common/policy_json.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

namespace pacer::app {

using nlohmann::json;

namespace {

struct OutOfRange {};

// A whole number that fits T (or a list of them): nlohmann's get<int>() and get<std::size_t>() convert 1e300
// (undefined behaviour; fuzz_schedule found it) and wrap 2^32 + 1 to 1. Throws json's type_error for a wrong type.
template <typename T>
T whole(const json& v) {
    if constexpr (std::is_integral_v<T>) {
        if (!v.is_number_integer()) throw OutOfRange{};
        if (v.is_number_unsigned()) {
            if (v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) throw OutOfRange{};
        } else if (v.get<std::int64_t>() < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
                   (std::is_signed_v<T> && v.get<std::int64_t>() > static_cast<std::int64_t>(std::numeric_limits<T>::max()))) {
            throw OutOfRange{};
        }
        return v.get<T>();
    } else {
        if (!v.is_array()) throw OutOfRange{};
        T out;
        for (const json& e : v) out.push_back(whole<typename T::value_type>(e));
        return out;
    }
}

}  // namespace

bool policyConfigFromJson(const json& j, engine::PolicyConfig* out, std::string* error) {
    if (!j.is_object()) {
        *error = "policy must be an object";
        return false;
    }
    engine::PolicyConfig c;
    for (const auto& [key, value] : j.items()) {
        try {
            if (key == "name") c.name = value.get<std::string>();
            else if (key == "segment_bytes") c.segment_bytes = whole<std::size_t>(value);
            else if (key == "bucket_bytes") c.bucket_bytes = whole<std::size_t>(value);
            else if (key == "first_bucket_bytes") c.first_bucket_bytes = whole<std::size_t>(value);
            else if (key == "fusion_bytes") c.fusion_bytes = whole<std::size_t>(value);
            else if (key == "cycle_ms") {
                const double ns = value.get<double>() * 1e6;
                if (!(std::fabs(ns) < 1e18)) throw OutOfRange{};  // Nanos holds about ±9.2e18
                c.cycle_ns = static_cast<engine::Nanos>(ns);
            }
            else if (key == "credit") c.credit = whole<int>(value);
            else if (key == "fuse_below_bytes") c.fuse_below_bytes = whole<std::size_t>(value);
            else if (key == "fusion_groups") c.fusion_groups = whole<std::vector<std::vector<int>>>(value);
            else if (key == "buckets") c.buckets = whole<std::vector<std::vector<int>>>(value);
            else if (key == "priorities") c.priorities = whole<std::vector<int>>(value);
            else if (key == "tensor_segment_bytes") c.tensor_segment_bytes = whole<std::vector<std::size_t>>(value);
            else {
                *error = "policy: unknown setting " + json(key).dump();  // escaped: a key may hold a line break
                return false;
            }
        } catch (const json::exception&) {
            *error = "policy: '" + key + "' has the wrong type (" + value.type_name() + ")";
            return false;
        } catch (const OutOfRange&) {
            *error = "policy: '" + key + "' must be " +
                     (value.is_array() ? "a list of whole numbers" : "a whole number") + " in range";
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
        else if ((key == "ranks" || key == "channels") && !(value.is_number_integer() && value.get<double>() >= 0 &&
                                                            value.get<double>() <= std::numeric_limits<int>::max())) {
            *error = "what_if: '" + key + "' must be a whole number in range";
            return false;
        } else if (key == "ranks") w.ranks = value.get<int>();
        else if (key == "compute_speed") w.compute_speed = value.get<double>();
        else if (key == "channels") w.channels = value.get<int>();
        else {
            *error = "what_if: unknown setting " + json(key).dump();
            return false;
        }
    }
    *whatIf = w;
    return true;
}

}  // namespace pacer::app
