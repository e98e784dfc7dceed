#include "engine/replay/observed_plan.h"

#include "engine/plan.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

namespace pacer::engine {

std::optional<std::vector<CommUnit>> observedPlan(const ObservedRun& run, const PolicyConfig& config,
                                                  int firstPlanIteration) {
    PolicyConfig decides = config;
    decides.plan.clear();
    auto policy = makePolicy(decides, run.tensors);
    if (!policy.ok()) return std::nullopt;
    auto units = recordPlan(*policy.value(), run.tensors);
    if (!units.ok() || units.value().empty()) return std::nullopt;
    // A traced unit names its first piece and its bytes.
    using Key = std::tuple<int, int, std::int64_t>;
    std::map<Key, std::size_t> unitOf;
    for (std::size_t u = 0; u < units.value().size(); ++u) {
        const CommUnit& unit = units.value()[u];
        const Key key{unit.pieces.front().tensor, unit.pieces.front().segment, static_cast<std::int64_t>(unit.bytes())};
        if (!unitOf.emplace(key, u).second) return std::nullopt;  // two units the trace could not tell apart
    }

    const int channels = std::max(1, run.channels);
    int lowest = std::numeric_limits<int>::max();
    for (const ObservedSpan& s : run.spans)
        if (s.kind == ObservedSpan::Comm) lowest = std::min(lowest, s.rank);
    // iteration -> lane -> (start, unit index), then in start order per lane
    std::map<int, std::vector<std::vector<std::pair<Nanos, std::size_t>>>> lanes;
    for (const ObservedSpan& s : run.spans) {
        if (s.kind != ObservedSpan::Comm || s.rank != lowest || s.iteration < firstPlanIteration) continue;
        if (s.lane < 0 || s.lane >= channels) return std::nullopt;
        const auto it = unitOf.find(Key{s.tensor, s.segment, s.bytes});
        if (it == unitOf.end()) return std::nullopt;
        auto& perLane = lanes[s.iteration];
        perLane.resize(static_cast<std::size_t>(channels));
        perLane[static_cast<std::size_t>(s.lane)].emplace_back(s.start, it->second);
    }
    if (lanes.empty()) return std::nullopt;

    std::optional<std::vector<std::size_t>> order;
    for (auto& [iteration, perLane] : lanes) {
        std::vector<std::size_t> seen;
        for (auto& lane : perLane) std::sort(lane.begin(), lane.end());
        for (std::size_t k = 0; k < units.value().size(); ++k) {
            const auto& lane = perLane[k % static_cast<std::size_t>(channels)];
            const std::size_t at = k / static_cast<std::size_t>(channels);
            if (at >= lane.size()) return std::nullopt;
            seen.push_back(lane[at].second);
        }
        std::size_t total = 0;
        for (const auto& lane : perLane) total += lane.size();
        if (total != seen.size()) return std::nullopt;
        if (!order) order = seen;
        else if (*order != seen) return std::nullopt;
    }
    std::vector<CommUnit> plan;
    for (std::size_t u : *order) plan.push_back(units.value()[u]);
    if (!validatePlan(plan, run.tensors).ok()) return std::nullopt;  // a unit twice: not one plan
    return plan;
}

}  // namespace pacer::engine
