#include "app/common/tuned_settings.h"

#include "app/common/units.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace pacer::app {
namespace {

constexpr const char* kGroupPrefix = "tuned_group_";

}  // namespace

std::vector<std::pair<std::string, double>> tuningMetrics(const engine::Schedule& s) {
    std::vector<std::pair<std::string, double>> m{
        {"tuned", 1},
        {"tuned_segment_bytes", static_cast<double>(s.policy.segment_bytes)},
        {"tuned_fuse_below_bytes", static_cast<double>(s.policy.fuse_below_bytes)},
        {"tuned_plan_order", s.plan_order ? 1 : 0},
        {"tuned_channels", s.channels},
        {"tuned_predicted_ms", s.predicted_ms},
        {"tuned_predicted_low_ms", s.predicted_low_ms},
        {"tuned_predicted_high_ms", s.predicted_high_ms},
        {"tuned_fusion_groups", static_cast<double>(s.policy.fusion_groups.size())}};
    for (const auto& g : s.policy.fusion_groups) m.emplace_back(kGroupPrefix + std::to_string(g.front()), g.back());
    return m;
}

std::optional<engine::Schedule> tuningFromMetrics(const std::map<std::string, double>& metrics,
                                                  const engine::PolicyConfig& base) {
    auto value = [&](const char* key) -> std::optional<double> {
        auto it = metrics.find(key);
        return it == metrics.end() ? std::nullopt : std::optional<double>(it->second);
    };
    if (value("tuned").value_or(0) != 1) return std::nullopt;
    engine::Schedule s;
    s.tuned = true;
    s.policy = base;
    s.policy.segment_bytes = static_cast<std::size_t>(std::llround(value("tuned_segment_bytes").value_or(
        static_cast<double>(base.segment_bytes))));
    s.plan_order = value("tuned_plan_order").value_or(0) == 1;
    s.channels = static_cast<int>(std::llround(value("tuned_channels").value_or(1)));
    s.predicted_ms = value("tuned_predicted_ms").value_or(0);
    s.predicted_low_ms = value("tuned_predicted_low_ms").value_or(kBandNotRecorded);  // runs before 2026-12-06
    s.predicted_high_ms = value("tuned_predicted_high_ms").value_or(kBandNotRecorded);
    s.policy.fusion_groups.clear();
    const std::string prefix = kGroupPrefix;
    for (auto it = metrics.lower_bound(prefix); it != metrics.end() && it->first.rfind(prefix, 0) == 0; ++it) {
        const int first = std::stoi(it->first.substr(prefix.size()));
        const int last = static_cast<int>(std::llround(it->second));
        std::vector<int> group;
        for (int t = first; t <= last; ++t) group.push_back(t);
        s.policy.fusion_groups.push_back(std::move(group));
    }
    // Map order is by key text ("tuned_group_10" before "tuned_group_2"): back to tensor order.
    std::sort(s.policy.fusion_groups.begin(), s.policy.fusion_groups.end());
    s.policy.fuse_below_bytes = static_cast<std::size_t>(std::llround(value("tuned_fuse_below_bytes").value_or(
        static_cast<double>(base.fuse_below_bytes))));
    return s;
}

std::string describeSettings(const engine::Schedule& s) {
    std::string text = s.plan_order ? "plan order, " + std::to_string(s.channels) +
                                          (s.channels == 1 ? " channel" : " channels")
                                    : std::string("dynamic order");
    text += ", " + formatSize(static_cast<std::int64_t>(s.policy.segment_bytes)) + " segments";
    if (!s.policy.fusion_groups.empty())
        text += ", " + std::to_string(s.policy.fusion_groups.size()) + " fusion groups";
    else if (s.policy.fuse_below_bytes > 0)  // the documented greedy fusion (a segment size given keeps it)
        text += ", fused below " + formatSize(static_cast<std::int64_t>(s.policy.fuse_below_bytes));
    else
        text += ", no fusion";
    return text;
}

std::string describeWarmupPrediction(const engine::Schedule& s, const char* range) {
    char text[160];  // as `runs` and `compare` print times: to the microsecond
    if (s.predicted_high_ms == kBandNotRecorded)
        std::snprintf(text, sizeof text, "predicted %.3f ms/iter at warm-up", s.predicted_ms);
    else if (s.predicted_high_ms > 0)
        std::snprintf(text, sizeof text, "predicted %.3f ms/iter at warm-up (band %.3f%s%.3f ms)", s.predicted_ms,
                      s.predicted_low_ms, range, s.predicted_high_ms);
    else
        std::snprintf(text, sizeof text, "predicted %.3f ms/iter at warm-up (too few settled iterations for a band)",
                      s.predicted_ms);
    return text;
}

}  // namespace pacer::app
