#include "profiler/trace_diff.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace pacer::profiler {

namespace {

// A unit by its first tensor and segment, so that a run and its replays (which name fused units alike) line up;
// anything without a tensor (an imported op, a kernel) by its name.
std::string unitKey(const TraceEvent& e, const std::map<int, std::string>& tensorName) {
    auto t = tensorName.find(e.tensor);
    if (e.kind != EventKind::AllReduce || t == tensorName.end()) return e.name;
    return "unit " + t->second + (e.segment > 0 ? " #" + std::to_string(e.segment) : std::string());
}

struct Sums {
    double count = 0, start = 0, dur = 0;
};

// Where an iteration starts: its Iteration span (ProfilerStep#N, a capture's iteration), else its first forward (a
// replay, whose iteration may open with a wait for the previous one's reduction), else its first event.
std::map<int, std::int64_t> iterationStarts(const RunTrace& trace) {
    std::map<int, std::pair<int, std::int64_t>> best;  // iteration -> (rank of the evidence, start); lower rank wins
    for (const TraceEvent& e : trace.events) {
        const int evidence = e.kind == EventKind::Iteration ? 0 : e.kind == EventKind::Forward ? 1 : 2;
        auto [it, fresh] = best.emplace(e.iteration, std::make_pair(evidence, e.start));
        if (!fresh && std::make_pair(evidence, e.start) < it->second) it->second = {evidence, e.start};
    }
    std::map<int, std::int64_t> out;
    for (const auto& [iteration, v] : best) out[iteration] = v.second;
    return out;
}

// Per key, the summed figures; iterations counted over the run's units (an event outside any iteration counts as
// iteration -1, measured from the run's first event).
std::map<std::pair<std::string, std::string>, UnitStats> statsOf(const RunTrace& trace) {
    std::map<int, std::int64_t> iterationStart = iterationStarts(trace);
    std::map<int, std::string> tensorName;
    for (const TensorRecord& t : trace.tensors) tensorName[t.id] = t.name;
    std::map<std::pair<std::string, std::string>, Sums> sums;
    std::set<int> iterations;
    for (const TraceEvent& e : trace.events) {
        if (e.kind != EventKind::AllReduce && e.kind != EventKind::Kernel) continue;
        Sums& s = sums[{e.kind == EventKind::AllReduce ? "allreduce" : "kernel", unitKey(e, tensorName)}];
        s.count += 1;
        s.start += static_cast<double>(e.start - iterationStart[e.iteration]);
        s.dur += static_cast<double>(e.end - e.start);
        iterations.insert(e.iteration);
    }
    std::map<std::pair<std::string, std::string>, UnitStats> out;
    const double n = std::max<double>(1, static_cast<double>(iterations.size()));
    for (const auto& [key, s] : sums) out[key] = UnitStats{s.count / n, s.start / s.count, s.dur / s.count};
    return out;
}

}  // namespace

double DiffRow::drift_ns() const {
    if (!inA) return b.start_ns + b.dur_ns;
    if (!inB) return a.start_ns + a.dur_ns;
    return std::max(std::abs(b.start_ns - a.start_ns), std::abs(b.dur_ns - a.dur_ns));
}

std::vector<DiffRow> diffRuns(const RunTrace& a, const RunTrace& b) {
    std::map<std::pair<std::string, std::string>, DiffRow> rows;
    auto add = [&](const RunTrace& run, UnitStats DiffRow::*stats, bool DiffRow::*present) {
        for (const auto& [key, s] : statsOf(run)) {
            DiffRow& r = rows[key];
            r.kind = key.first;
            r.key = key.second;
            r.*stats = s;
            r.*present = true;
        }
    };
    add(a, &DiffRow::a, &DiffRow::inA);
    add(b, &DiffRow::b, &DiffRow::inB);
    std::vector<DiffRow> out;
    for (auto& [key, r] : rows) out.push_back(std::move(r));
    std::stable_sort(out.begin(), out.end(), [](const DiffRow& x, const DiffRow& y) {
        const bool bothX = x.inA && x.inB, bothY = y.inA && y.inB;
        if (bothX != bothY) return bothX;  // what both runs have first: those drifts are the comparison
        const double dx = x.drift_ns(), dy = y.drift_ns();
        if (dx != dy) return dx > dy;
        return std::abs(x.b.count - x.a.count) > std::abs(y.b.count - y.a.count);
    });
    return out;
}

}  // namespace pacer::profiler
