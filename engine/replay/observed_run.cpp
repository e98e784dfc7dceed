#include "engine/replay/observed_run.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <tuple>

namespace pacer::engine {
namespace {

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    const std::size_t mid = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + mid, v.end());
    const double upper = v[mid];
    if (v.size() % 2 == 1) return upper;
    const double lower = *std::max_element(v.begin(), v.begin() + mid);
    return (lower + upper) / 2;
}

Status validateRun(const ObservedRun& run) {
    if (run.ranks < 1) return Status::error("observed run has " + std::to_string(run.ranks) + " ranks");
    if (run.tensors.empty()) return Status::error("observed run lists no gradient tensors");
    for (std::size_t i = 0; i < run.tensors.size(); ++i)
        if (run.tensors[i].id != static_cast<int>(i))
            return Status::error("observed run: tensor " + std::to_string(i) + " has id " +
                                 std::to_string(run.tensors[i].id) + "; ids must be 0..n-1");
    for (const ObservedSpan& s : run.spans) {
        if (s.end < s.start)
            return Status::error("observed run: a span of rank " + std::to_string(s.rank) + ", iteration " +
                                 std::to_string(s.iteration) + " ends before it starts");
        if (s.rank < 0 || s.rank >= run.ranks)
            return Status::error("observed run: span on rank " + std::to_string(s.rank) + " of " +
                                 std::to_string(run.ranks));
    }
    return Status::success();
}

// The first iteration seen, left out of the medians when there are later ones.
int warmupIteration(const ObservedRun& run, ObservedSpan::Kind a, ObservedSpan::Kind b) {
    int lo = INT32_MAX, hi = INT32_MIN;
    for (const ObservedSpan& s : run.spans)
        if (s.kind == a || s.kind == b) {
            lo = std::min(lo, s.iteration);
            hi = std::max(hi, s.iteration);
        }
    return hi > lo ? lo : INT32_MIN;  // INT32_MIN: keep everything
}

}  // namespace

Result<Workload> extractWorkload(const ObservedRun& run) {
    if (Status s = validateRun(run); !s.ok()) return s;
    int numLayers = static_cast<int>(run.layerNames.size());
    for (const TensorInfo& t : run.tensors) numLayers = std::max(numLayers, t.layer + 1);
    for (const ObservedSpan& s : run.spans)
        if (s.kind == ObservedSpan::Forward || s.kind == ObservedSpan::Backward)
            numLayers = std::max(numLayers, s.layer + 1);

    const int skip = warmupIteration(run, ObservedSpan::Forward, ObservedSpan::Backward);
    // (kind, rank, iteration, layer) -> summed duration: a layer may be traced as several spans (kernels).
    std::map<std::tuple<int, int, int, int>, double> perIteration;
    bool any = false;
    for (const ObservedSpan& s : run.spans) {
        if (s.kind != ObservedSpan::Forward && s.kind != ObservedSpan::Backward) continue;
        if (s.layer < 0)
            return Status::error("observed run: a " +
                                 std::string(s.kind == ObservedSpan::Forward ? "forward" : "backward") +
                                 " span without a layer (rank " + std::to_string(s.rank) + ", iteration " +
                                 std::to_string(s.iteration) + ")");
        any = true;
        if (s.iteration == skip) continue;
        perIteration[{s.kind, s.rank, s.iteration, s.layer}] += static_cast<double>(s.end - s.start);
    }
    if (!any) return Status::error("observed run has no forward or backward spans to extract layer times from");

    // (kind, rank, layer) -> durations over iterations; then the median, then the max over ranks.
    std::map<std::tuple<int, int, int>, std::vector<double>> series;
    for (const auto& [key, ns] : perIteration)
        series[{std::get<0>(key), std::get<1>(key), std::get<3>(key)}].push_back(ns);

    Workload w;
    w.name = run.policy.empty() ? "observed run" : "observed " + run.policy + " run";
    w.ranks = run.ranks;
    w.tensors = run.tensors;
    w.layers.resize(numLayers);
    for (int l = 0; l < numLayers; ++l)
        w.layers[l].name =
            l < static_cast<int>(run.layerNames.size()) ? run.layerNames[l] : "layer " + std::to_string(l);
    for (const auto& [key, values] : series) {
        const auto [kind, rank, layer] = key;
        const Nanos m = static_cast<Nanos>(std::llround(median(values)));
        LayerTimes& lt = w.layers[layer];
        Nanos& slot = kind == ObservedSpan::Forward ? lt.forward : lt.backward;
        slot = std::max(slot, m);
    }

    // Optimizer: total update time / elements updated, per (rank, iteration); median over those.
    std::vector<std::size_t> layerElements(numLayers, 0);
    std::size_t allElements = 0;
    for (const TensorInfo& t : run.tensors) {
        if (t.layer < 0 || t.layer >= numLayers)
            return Status::error("observed run: tensor '" + t.name + "' has no valid layer");
        layerElements[t.layer] += t.elements;
        allElements += t.elements;
    }
    std::map<std::pair<int, int>, std::pair<double, double>> updates;  // (rank, iteration) -> (ns, elements)
    const int updateSkip = warmupIteration(run, ObservedSpan::Update, ObservedSpan::Update);
    for (const ObservedSpan& s : run.spans) {
        if (s.kind != ObservedSpan::Update || s.iteration == updateSkip) continue;
        double elements = static_cast<double>(allElements);
        if (s.tensor >= 0 && s.tensor < static_cast<int>(run.tensors.size()))
            elements = static_cast<double>(run.tensors[s.tensor].elements);
        else if (s.layer >= 0 && s.layer < numLayers)
            elements = static_cast<double>(layerElements[s.layer]);
        auto& [ns, el] = updates[{s.rank, s.iteration}];
        ns += static_cast<double>(s.end - s.start);
        el += elements;
    }
    std::vector<double> rates;
    for (const auto& [key, v] : updates)
        if (v.second > 0) rates.push_back(v.first / v.second);
    w.update_ns_per_element = median(rates);

    if (Status s = validateWorkload(w); !s.ok()) return Status::error("extracted workload: " + s.message());
    return w;
}

Result<CostModel> fitCostModel(const ObservedRun& run) {
    if (Status s = validateRun(run); !s.ok()) return s;
    const int skip = warmupIteration(run, ObservedSpan::Comm, ObservedSpan::Comm);
    // (iteration, tensor, segment, bytes) -> shortest duration over ranks.
    std::map<std::tuple<int, int, int, std::int64_t>, double> shortest;
    bool any = false;
    for (const ObservedSpan& s : run.spans) {
        if (s.kind != ObservedSpan::Comm) continue;
        if (s.bytes <= 0) return Status::error("observed run: a collective of " + std::to_string(s.bytes) + " bytes");
        any = true;
        if (s.iteration == skip) continue;
        const auto key = std::make_tuple(s.iteration, s.tensor, s.segment, s.bytes);
        const double d = static_cast<double>(s.end - s.start);
        auto it = shortest.find(key);
        if (it == shortest.end())
            shortest.emplace(key, d);
        else
            it->second = std::min(it->second, d);
    }
    if (!any) return Status::error("observed run has no communication spans to fit the all-reduce cost from");

    std::vector<std::pair<double, double>> points;  // (bytes, ns)
    points.reserve(shortest.size());
    for (const auto& [key, d] : shortest) points.emplace_back(static_cast<double>(std::get<3>(key)), d);

    auto fit = [](const std::vector<std::pair<double, double>>& pts) {
        double sx = 0, sy = 0;
        for (const auto& [x, y] : pts) {
            sx += x;
            sy += y;
        }
        const double n = static_cast<double>(pts.size());
        const double mx = sx / n, my = sy / n;
        double sxx = 0, sxy = 0;
        for (const auto& [x, y] : pts) {
            sxx += (x - mx) * (x - mx);
            sxy += (x - mx) * (y - my);
        }
        CostModel c;
        if (sxx <= 1e-9 * std::max(1.0, mx * mx)) {
            // One message size: the line through the origin.
            double sxy0 = 0, sxx0 = 0;
            for (const auto& [x, y] : pts) {
                sxy0 += x * y;
                sxx0 += x * x;
            }
            c.alpha_ns = 0;
            c.ns_per_byte = sxx0 > 0 ? sxy0 / sxx0 : 0;
            return c;
        }
        c.ns_per_byte = sxy / sxx;
        c.alpha_ns = my - c.ns_per_byte * mx;
        if (c.alpha_ns < 0) {
            // A negative fixed cost is noise; the best line with alpha = 0 goes through the origin.
            double sxy0 = 0, sxx0 = 0;
            for (const auto& [x, y] : pts) {
                sxy0 += x * y;
                sxx0 += x * x;
            }
            c.alpha_ns = 0;
            c.ns_per_byte = sxy0 / sxx0;
        } else if (c.ns_per_byte < 0) {
            c.ns_per_byte = 0;
            c.alpha_ns = my;
        }
        return c;
    };

    CostModel c = fit(points);
    std::vector<double> residuals;
    residuals.reserve(points.size());
    for (const auto& [x, y] : points) residuals.push_back(std::abs(y - (c.alpha_ns + c.ns_per_byte * x)));
    const double mad = median(residuals);
    if (points.size() >= 4) {
        // An outlier is far off in absolute terms (4 MADs) and in relative ones (5% of the prediction): timer
        // granularity must not make near-perfect points look like outliers.
        std::vector<std::pair<double, double>> kept;
        for (std::size_t i = 0; i < points.size(); ++i) {
            const double predicted = c.alpha_ns + c.ns_per_byte * points[i].first;
            if (residuals[i] <= std::max(4 * mad, 0.05 * predicted)) kept.push_back(points[i]);
        }
        bool sizes = false;  // at least two distinct sizes, or the refit loses the intercept
        for (const auto& p : kept) sizes = sizes || p.first != kept.front().first;
        if (sizes && kept.size() < points.size()) c = fit(kept);
    }
    return c;
}

Result<double> observedIterationMs(const ObservedRun& run) {
    if (Status s = validateRun(run); !s.ok()) return s;
    const int skip = warmupIteration(run, ObservedSpan::Iteration, ObservedSpan::Iteration);
    std::map<int, std::vector<double>> perRank;
    for (const ObservedSpan& s : run.spans)
        if (s.kind == ObservedSpan::Iteration && s.iteration != skip)
            perRank[s.rank].push_back(static_cast<double>(s.end - s.start));
    if (perRank.empty()) return Status::error("observed run has no iteration spans");
    double worst = 0;
    for (const auto& [rank, v] : perRank) worst = std::max(worst, median(v));
    return worst / 1e6;
}

ObservedRun toObservedRun(const Workload& workload, const SimResult& sim, const std::string& policy) {
    ObservedRun run;
    run.tensors = workload.tensors;
    run.ranks = workload.ranks;
    run.policy = policy;
    for (const LayerTimes& l : workload.layers) run.layerNames.push_back(l.name);
    for (int rank = 0; rank < workload.ranks; ++rank) {
        for (const SimEvent& e : sim.events) {
            ObservedSpan s;
            s.rank = rank;
            s.iteration = e.iteration;
            s.layer = e.layer;
            s.start = e.start;
            s.end = e.end;
            switch (e.kind) {
                case SimEvent::Forward:
                    s.kind = ObservedSpan::Forward;
                    break;
                case SimEvent::Backward:
                    s.kind = ObservedSpan::Backward;
                    break;
                case SimEvent::Update:
                    s.kind = ObservedSpan::Update;
                    break;
                case SimEvent::Wait:
                    s.kind = ObservedSpan::Wait;
                    break;
                case SimEvent::Comm:
                    s.kind = ObservedSpan::Comm;
                    s.tensor = e.unit.pieces.front().tensor;
                    s.segment = e.unit.pieces.front().segment;
                    s.bytes = static_cast<std::int64_t>(e.unit.bytes());
                    break;
            }
            run.spans.push_back(s);
        }
        for (std::size_t k = 0; k + 1 < sim.iteration_starts.size(); ++k) {
            ObservedSpan s;
            s.kind = ObservedSpan::Iteration;
            s.rank = rank;
            s.iteration = static_cast<int>(k);
            s.start = sim.iteration_starts[k];
            s.end = sim.iteration_starts[k + 1];
            run.spans.push_back(s);
        }
    }
    return run;
}

}  // namespace pacer::engine
