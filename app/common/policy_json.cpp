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
    return j;
}

}  // namespace pacer::app
