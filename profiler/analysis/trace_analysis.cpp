#include "profiler/analysis/trace_analysis.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <utility>

namespace pacer::profiler::analysis {

namespace {

using Interval = std::pair<std::int64_t, std::int64_t>;

// Sorts and merges intervals clipped to [lo, hi); returns the covered length.
std::int64_t unionLength(std::vector<Interval> v, std::int64_t lo, std::int64_t hi) {
    std::sort(v.begin(), v.end());
    std::int64_t total = 0, curStart = 0, curEnd = std::numeric_limits<std::int64_t>::min();
    for (auto [a, b] : v) {
        a = std::max(a, lo);
        b = std::min(b, hi);
        if (b <= a) continue;
        if (a > curEnd) {
            if (curEnd > curStart) total += curEnd - curStart;
            curStart = a;
            curEnd = b;
        } else {
            curEnd = std::max(curEnd, b);
        }
    }
    if (curEnd > curStart) total += curEnd - curStart;
    return total;
}

bool startsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

bool isCommunication(const TraceEvent& e) {
    return e.kind == EventKind::AllReduce || (e.kind == EventKind::Kernel && startsWith(e.name, "nccl"));
}

bool isCompute(const TraceEvent& e) {
    switch (e.kind) {
        case EventKind::Forward:
        case EventKind::Backward:
        case EventKind::Optimizer: return true;
        case EventKind::Kernel: return !startsWith(e.name, "nccl");
        default: return false;
    }
}

namespace {

void breakdown(const RunTrace& trace, const std::map<int, int>& rankOfTrack, RunAnalysis& out) {
    std::map<int, std::vector<Interval>> compute, comm, all, iterations;
    for (const TraceEvent& e : trace.events) {
        const auto it = rankOfTrack.find(e.track);
        if (it == rankOfTrack.end()) continue;
        const int rank = it->second;
        all[rank].push_back({e.start, e.end});
        if (e.kind == EventKind::Iteration) iterations[rank].push_back({e.start, e.end});
        if (isCompute(e)) compute[rank].push_back({e.start, e.end});
        if (isCommunication(e)) comm[rank].push_back({e.start, e.end});
    }
    for (const auto& [rank, events] : all) {
        const auto& spanOf = iterations.count(rank) ? iterations[rank] : events;
        std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = std::numeric_limits<std::int64_t>::min();
        for (const auto& [a, b] : spanOf) {
            lo = std::min(lo, a);
            hi = std::max(hi, b);
        }
        RankBreakdown r;
        r.rank = rank;
        r.span_ns = std::max<std::int64_t>(0, hi - lo);
        r.compute_ns = unionLength(compute[rank], lo, hi);
        r.comm_ns = unionLength(comm[rank], lo, hi);
        std::vector<Interval> busy = compute[rank];
        busy.insert(busy.end(), comm[rank].begin(), comm[rank].end());
        const std::int64_t busyNs = unionLength(busy, lo, hi);
        r.exposed_comm_ns = busyNs - r.compute_ns;
        r.idle_ns = r.span_ns - busyNs;
        r.overlap_ns = r.compute_ns + r.comm_ns - busyNs;
        out.ranks.push_back(r);
    }
}

void nameStats(const RunTrace& trace, RunAnalysis& out) {
    std::map<std::pair<bool, std::string>, NameStats> byName;
    for (const TraceEvent& e : trace.events) {
        const bool comm = isCommunication(e);
        if (!comm && !isCompute(e)) continue;
        NameStats& s = byName[{comm, e.name}];
        const std::int64_t d = e.end - e.start;
        if (s.count == 0) {
            s.name = e.name;
            s.communication = comm;
            s.min_ns = s.max_ns = d;
        }
        ++s.count;
        s.total_ns += d;
        s.min_ns = std::min(s.min_ns, d);
        s.max_ns = std::max(s.max_ns, d);
    }
    for (auto& [key, s] : byName) out.names.push_back(std::move(s));
    std::stable_sort(out.names.begin(), out.names.end(), [](const NameStats& a, const NameStats& b) {
        if (a.communication != b.communication) return !a.communication;
        return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
    });
}

void straggler(const RunTrace& trace, const std::map<int, int>& rankOfTrack, RunAnalysis& out) {
    std::map<int, std::vector<std::int64_t>> starts;  // rank -> collective starts in order
    for (const TraceEvent& e : trace.events) {
        const auto it = rankOfTrack.find(e.track);
        if (it != rankOfTrack.end() && isCommunication(e)) starts[it->second].push_back(e.start);
    }
    if (starts.size() < 2 || starts.size() != out.ranks.size()) return;
    std::size_t matched = std::numeric_limits<std::size_t>::max();
    for (auto& [rank, s] : starts) {
        std::sort(s.begin(), s.end());
        matched = std::min(matched, s.size());
    }
    if (matched == 0) return;
    std::map<int, double> lateness;
    std::map<int, int> last;
    for (std::size_t k = 0; k < matched; ++k) {
        std::int64_t first = std::numeric_limits<std::int64_t>::max(), latest = std::numeric_limits<std::int64_t>::min();
        int latestRank = -1;
        for (const auto& [rank, s] : starts) {
            first = std::min(first, s[k]);
            if (s[k] > latest) {
                latest = s[k];
                latestRank = rank;
            }
        }
        ++last[latestRank];
        for (const auto& [rank, s] : starts) lateness[rank] += static_cast<double>(s[k] - first);
    }
    out.matched_collectives = static_cast<int>(matched);
    double worst = -1.0;
    for (RankBreakdown& r : out.ranks) {
        r.last_starts = last[r.rank];
        r.mean_lateness_ns = lateness[r.rank] / static_cast<double>(matched);
        if (r.mean_lateness_ns > 0.0 && r.mean_lateness_ns > worst) {  // nobody late: no straggler
            worst = r.mean_lateness_ns;
            out.straggler_rank = r.rank;
        }
    }
}

void criticalPath(const RunTrace& trace, const std::map<int, int>& rankOfTrack, int iteration, RunAnalysis& out) {
    // The last iteration every rank completed, unless one is asked for.
    std::map<int, int> lastIteration;
    for (const TraceEvent& e : trace.events) {
        const auto it = rankOfTrack.find(e.track);
        if (it != rankOfTrack.end() && isCompute(e) && e.iteration >= 0)
            lastIteration[it->second] = std::max(lastIteration[it->second], e.iteration);
    }
    if (lastIteration.empty()) return;
    if (iteration < 0) {
        iteration = std::numeric_limits<int>::max();
        for (const auto& [rank, it] : lastIteration) iteration = std::min(iteration, it);
    }
    std::map<int, int> layerOfTensor;
    for (const TensorRecord& t : trace.tensors) layerOfTensor[t.id] = t.layer;
    // The rank that ends the iteration last.
    std::vector<const TraceEvent*> events;
    std::map<int, std::int64_t> endOfRank;
    for (const TraceEvent& e : trace.events) {
        const auto it = rankOfTrack.find(e.track);
        if (it == rankOfTrack.end() || e.iteration != iteration || e.kind == EventKind::Iteration) continue;
        endOfRank[it->second] = std::max(endOfRank[it->second], e.end);
    }
    if (endOfRank.empty()) return;
    int rank = endOfRank.begin()->first;
    for (const auto& [r, end] : endOfRank)
        if (end > endOfRank[rank]) rank = r;
    for (const TraceEvent& e : trace.events)
        if (rankOfTrack.count(e.track) && rankOfTrack.at(e.track) == rank && e.iteration == iteration && e.kind != EventKind::Iteration &&
            e.kind != EventKind::Marker)
            events.push_back(&e);
    if (events.empty()) return;
    auto layerOf = [&](const TraceEvent& e) {
        const auto t = layerOfTensor.find(e.tensor);
        return t != layerOfTensor.end() ? t->second : e.layer;
    };
    // Walk back from the last end through the latest-ending dependency.
    const TraceEvent* cur = *std::max_element(events.begin(), events.end(),
                                              [](const TraceEvent* a, const TraceEvent* b) { return a->end < b->end; });
    std::set<const TraceEvent*> seen;
    std::vector<const TraceEvent*> path;
    while (cur && seen.insert(cur).second) {
        path.push_back(cur);
        const TraceEvent* best = nullptr;
        auto consider = [&](const TraceEvent* e, std::int64_t notAfter) {
            if (e != cur && e->end <= notAfter && !seen.count(e) && (!best || e->end > best->end)) best = e;
        };
        for (const TraceEvent* e : events) {
            if (e->track == cur->track) consider(e, cur->start);  // program order on the same thread or stream
            if (isCommunication(*cur) && e->kind == EventKind::Backward && layerOf(*e) == layerOf(*cur))
                consider(e, cur->start);  // the gradient became ready
            if (cur->kind == EventKind::Wait && isCommunication(*e)) consider(e, cur->end);  // what the wait ended with
            if (cur->kind == EventKind::Optimizer && cur->tensor >= 0 && isCommunication(*e) && layerOf(*e) == layerOf(*cur))
                consider(e, cur->start);  // a tensor is updated once its reduction is done
        }
        cur = best;
    }
    std::reverse(path.begin(), path.end());
    CriticalPath& cp = out.critical_path;
    cp.iteration = iteration;
    cp.rank = rank;
    cp.length_ns = path.back()->end - path.front()->start;
    for (const TraceEvent* e : path) {
        cp.steps.push_back({rank, e->track, e->kind, e->name, e->start, e->end});
        if (isCompute(*e)) cp.compute_ns += e->end - e->start;
        if (isCommunication(*e)) cp.comm_ns += e->end - e->start;
    }
}

}  // namespace

RunAnalysis analyzeRun(const RunTrace& trace, int iteration) {
    // Tracks beyond the run's ranks are not ranks of the run (the workbench draws a replay as one more "rank" under
    // the measured ones): the figures are the measured run's alone.
    const bool extraLanes = trace.ranks > 0 && std::any_of(trace.tracks.begin(), trace.tracks.end(),
                                                           [&](const Track& t) { return t.rank >= trace.ranks; });
    if (extraLanes) {
        RunTrace measured = trace;
        std::set<int> kept;
        std::erase_if(measured.tracks, [&](const Track& t) { return t.rank >= trace.ranks; });
        for (const Track& t : measured.tracks) kept.insert(t.id);
        std::erase_if(measured.events, [&](const TraceEvent& e) { return !kept.count(e.track); });
        return analyzeRun(measured, iteration);
    }
    RunAnalysis out;
    std::map<int, int> rankOfTrack;
    for (const Track& t : trace.tracks) rankOfTrack[t.id] = t.rank;
    breakdown(trace, rankOfTrack, out);
    nameStats(trace, out);
    straggler(trace, rankOfTrack, out);
    criticalPath(trace, rankOfTrack, iteration, out);
    return out;
}

}  // namespace pacer::profiler::analysis
