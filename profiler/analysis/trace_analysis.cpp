#include "profiler/analysis/trace_analysis.h"

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace pacer::profiler::analysis {

namespace {

bool startsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

namespace {

// ncclName: the event's name starts with "nccl" (NCCL's kernels are communication, other kernels compute).
// Agreement rounds count as communication: they are collectives on the comm thread (once part of the unit's span).
bool isCommunicationSpan(EventKind kind, bool ncclName) {
    return kind == EventKind::AllReduce || kind == EventKind::Agreement || (kind == EventKind::Kernel && ncclName);
}

bool isComputeSpan(EventKind kind, bool ncclName) {
    switch (kind) {
        case EventKind::Forward:
        case EventKind::Backward:
        case EventKind::Optimizer: return true;
        case EventKind::Kernel: return !ncclName;
        default: return false;
    }
}

}  // namespace

bool isCommunication(const TraceEvent& e) { return isCommunicationSpan(e.kind, startsWith(e.name, "nccl")); }

bool isCompute(const TraceEvent& e) { return isComputeSpan(e.kind, startsWith(e.name, "nccl")); }

namespace {

constexpr std::int64_t kMinTime = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMaxTime = std::numeric_limits<std::int64_t>::max();

// The length covered by intervals fed in order of their start, clipped to [lo, hi): a union without holding them.
class UnionLength {
public:
    UnionLength(std::int64_t lo, std::int64_t hi) : lo_(lo), hi_(hi) {}
    void add(std::int64_t a, std::int64_t b) {
        a = std::max(a, lo_);  // clipping keeps the starts in order
        b = std::min(b, hi_);
        if (b <= a) return;
        if (a > curEnd_) {
            total_ += open();
            curStart_ = a;
            curEnd_ = b;
        } else {
            curEnd_ = std::max(curEnd_, b);
        }
    }
    std::int64_t total() const { return total_ + open(); }

private:
    std::int64_t open() const { return curEnd_ > curStart_ ? curEnd_ - curStart_ : 0; }
    std::int64_t lo_, hi_;
    std::int64_t total_ = 0, curStart_ = 0, curEnd_ = kMinTime;
};

// What the analysis reads of a run: its header (tracks, tensors, and the iteration markers among its events) and its
// events a rank at a time in start order, names as ids. One source holds a trace in memory, the other streams a
// project's run from the store; the figures are computed once, over either.
class RunSource {
public:
    virtual ~RunSource() = default;
    virtual const RunTrace& header() const = 0;
    virtual const std::string& name(std::int64_t id) = 0;
    // The events of `tracks` but the iteration markers, in start order.
    virtual Result<std::unique_ptr<SpanStream>> spans(const std::vector<int>& tracks) = 0;
    // The events of `tracks` but the iteration markers that start in [from, to] (with their names and tensors).
    virtual Result<std::vector<TraceEvent>> events(const std::vector<int>& tracks, std::int64_t from, std::int64_t to) = 0;
};

class VectorStream : public SpanStream {
public:
    explicit VectorStream(std::vector<SpanRow> rows) : rows_(std::move(rows)) {}
    bool next(SpanRow* row) override {
        if (at_ >= rows_.size()) return false;
        *row = rows_[at_++];
        return true;
    }
    Status status() const override { return okStatus(); }

private:
    std::vector<SpanRow> rows_;
    std::size_t at_ = 0;
};

class TraceSource : public RunSource {
public:
    explicit TraceSource(const RunTrace& trace) : trace_(trace) {
        std::map<std::string, std::int64_t> ids;
        nameOf_.reserve(trace.events.size());
        for (const TraceEvent& e : trace.events) {
            const auto [it, added] = ids.emplace(e.name, static_cast<std::int64_t>(names_.size()));
            if (added) names_.push_back(e.name);
            nameOf_.push_back(it->second);
        }
    }
    const RunTrace& header() const override { return trace_; }
    const std::string& name(std::int64_t id) override { return names_[static_cast<std::size_t>(id)]; }
    Result<std::unique_ptr<SpanStream>> spans(const std::vector<int>& tracks) override {
        const std::set<int> wanted(tracks.begin(), tracks.end());
        std::vector<SpanRow> rows;
        for (std::size_t i = 0; i < trace_.events.size(); ++i) {
            const TraceEvent& e = trace_.events[i];
            if (e.kind != EventKind::Iteration && wanted.count(e.track))
                rows.push_back({e.kind, nameOf_[i], e.track, e.iteration, e.start, e.end});
        }
        std::stable_sort(rows.begin(), rows.end(), [](const SpanRow& a, const SpanRow& b) { return a.start < b.start; });
        return std::unique_ptr<SpanStream>(new VectorStream(std::move(rows)));
    }
    Result<std::vector<TraceEvent>> events(const std::vector<int>& tracks, std::int64_t from, std::int64_t to) override {
        const std::set<int> wanted(tracks.begin(), tracks.end());
        std::vector<TraceEvent> out;
        for (const TraceEvent& e : trace_.events)
            if (e.kind != EventKind::Iteration && wanted.count(e.track) && e.start >= from && e.start <= to) out.push_back(e);
        return out;
    }

private:
    const RunTrace& trace_;
    std::vector<std::string> names_;
    std::vector<std::int64_t> nameOf_;  // per event
};

class StoreSource : public RunSource {
public:
    StoreSource(RunReader& reader, RunOutline outline, std::unordered_map<std::int64_t, std::string> names)
        : reader_(reader), outline_(std::move(outline)), names_(std::move(names)) {}
    const RunTrace& header() const override { return outline_.trace; }
    const std::string& name(std::int64_t id) override {
        static const std::string kNone;
        const auto it = names_.find(id);
        return it != names_.end() ? it->second : kNone;
    }
    Result<std::unique_ptr<SpanStream>> spans(const std::vector<int>& tracks) override { return reader_.spans(tracks); }
    Result<std::vector<TraceEvent>> events(const std::vector<int>& tracks, std::int64_t from, std::int64_t to) override {
        std::vector<TrackExtent> extents;
        for (const TrackExtent& x : outline_.extents)
            if (std::find(tracks.begin(), tracks.end(), x.track) != tracks.end()) extents.push_back(x);
        PROFILER_ASSIGN_OR_RETURN(std::vector<TraceEvent> all, reader_.events(extents, from, to + 1));
        std::erase_if(all, [&](const TraceEvent& e) { return e.start < from || e.start > to; });
        return all;
    }

private:
    RunReader& reader_;
    RunOutline outline_;
    std::unordered_map<std::int64_t, std::string> names_;
};

// What one pass over a rank's events leaves for the straggler and the critical path.
struct RankFacts {
    std::int64_t collectives = 0;
    std::set<int> commTracks;
    int lastComputeIteration = -1;
    std::map<int, std::pair<std::int64_t, std::int64_t>> iterationSpan;  // iteration -> first start, last end
};

class Analysis {
public:
    explicit Analysis(RunSource& source) : src_(source) {
        for (const Track& t : src_.header().tracks) {
            rankOfTrack_[t.id] = t.rank;
            tracksOfRank_[t.rank].push_back(t.id);
        }
    }

    Result<RunAnalysis> run(int iteration) {
        PROFILER_RETURN_IF_ERROR(breakdownAndNames());
        PROFILER_RETURN_IF_ERROR(straggler());
        PROFILER_RETURN_IF_ERROR(criticalPath(iteration));
        return std::move(out_);
    }

private:
    bool nccl(std::int64_t name) {
        const auto it = ncclName_.find(name);
        if (it != ncclName_.end()) return it->second;
        return ncclName_[name] = startsWith(src_.name(name), "nccl");
    }

    // One pass per rank in start order: the temporal breakdown, statistics by name, and the facts kept for later.
    Status breakdownAndNames() {
        std::map<int, std::pair<std::int64_t, std::int64_t>> marked;  // rank -> its iteration markers' extent
        for (const TraceEvent& e : src_.header().events) {
            const auto it = rankOfTrack_.find(e.track);
            if (e.kind != EventKind::Iteration || it == rankOfTrack_.end()) continue;
            auto [m, added] = marked.try_emplace(it->second, e.start, e.end);
            m->second = {std::min(m->second.first, e.start), std::max(m->second.second, e.end)};
        }
        std::map<std::pair<bool, std::int64_t>, NameStats> byName;  // (communication, name id)
        for (const auto& [rank, tracks] : tracksOfRank_) {
            const auto mark = marked.find(rank);
            // Without iteration markers the span is the events' own, which clipping cannot change.
            const std::int64_t lo = mark != marked.end() ? mark->second.first : kMinTime;
            const std::int64_t hi = mark != marked.end() ? mark->second.second : kMaxTime;
            UnionLength compute(lo, hi), comm(lo, hi), busy(lo, hi);
            std::int64_t first = kMaxTime, last = kMinTime;
            RankFacts& facts = facts_[rank];
            PROFILER_ASSIGN_OR_RETURN(std::unique_ptr<SpanStream> spans, src_.spans(tracks));
            SpanRow e;
            bool any = false;
            while (spans->next(&e)) {
                any = true;
                first = std::min(first, e.start);
                last = std::max(last, e.end);
                auto [span, added] = facts.iterationSpan.try_emplace(e.iteration, e.start, e.end);
                span->second = {std::min(span->second.first, e.start), std::max(span->second.second, e.end)};
                const bool isNccl = e.kind == EventKind::Kernel && nccl(e.name);
                const bool isComm = isCommunicationSpan(e.kind, isNccl), isComp = isComputeSpan(e.kind, isNccl);
                if (!isComm && !isComp) continue;
                busy.add(e.start, e.end);
                (isComm ? comm : compute).add(e.start, e.end);
                if (isComm) {
                    ++facts.collectives;
                    facts.commTracks.insert(e.track);
                }
                if (isComp && e.iteration >= 0) facts.lastComputeIteration = std::max(facts.lastComputeIteration, e.iteration);
                NameStats& s = byName[{isComm, e.name}];
                const std::int64_t d = e.end - e.start;
                if (s.count == 0) s.min_ns = s.max_ns = d;
                ++s.count;
                s.total_ns += d;
                s.min_ns = std::min(s.min_ns, d);
                s.max_ns = std::max(s.max_ns, d);
            }
            PROFILER_RETURN_IF_ERROR(spans->status());
            if (!any && mark == marked.end()) continue;  // a rank without events has no breakdown
            RankBreakdown r;
            r.rank = rank;
            r.span_ns = mark != marked.end() ? std::max<std::int64_t>(0, hi - lo) : last - first;
            r.compute_ns = compute.total();
            r.comm_ns = comm.total();
            const std::int64_t busyNs = busy.total();
            r.exposed_comm_ns = busyNs - r.compute_ns;
            r.idle_ns = r.span_ns - busyNs;
            r.overlap_ns = r.compute_ns + r.comm_ns - busyNs;
            out_.ranks.push_back(r);
        }
        // By name: ids of one name (there is one per name in a store) fold together.
        std::map<std::pair<bool, std::string>, NameStats> named;
        for (auto& [key, s] : byName) {
            NameStats& n = named[{key.first, src_.name(key.second)}];
            if (n.count == 0) {
                n = s;
                n.name = src_.name(key.second);
                n.communication = key.first;
                continue;
            }
            n.count += s.count;
            n.total_ns += s.total_ns;
            n.min_ns = std::min(n.min_ns, s.min_ns);
            n.max_ns = std::max(n.max_ns, s.max_ns);
        }
        for (auto& [key, s] : named) out_.names.push_back(std::move(s));
        std::stable_sort(out_.names.begin(), out_.names.end(), [](const NameStats& a, const NameStats& b) {
            if (a.communication != b.communication) return !a.communication;
            return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
        });
        return okStatus();
    }

    // The k-th collective of every rank, read in step: each rank's collectives streamed side by side.
    Status straggler() {
        std::vector<int> ranks;
        std::size_t matched = std::numeric_limits<std::size_t>::max();
        for (const auto& [rank, facts] : facts_)
            if (facts.collectives > 0) {
                ranks.push_back(rank);
                matched = std::min(matched, static_cast<std::size_t>(facts.collectives));
            }
        if (ranks.size() < 2 || ranks.size() != out_.ranks.size()) return okStatus();
        std::vector<std::unique_ptr<SpanStream>> streams;
        for (const int rank : ranks) {
            const auto& tracks = facts_[rank].commTracks;
            PROFILER_ASSIGN_OR_RETURN(std::unique_ptr<SpanStream> s, src_.spans({tracks.begin(), tracks.end()}));
            streams.push_back(std::move(s));
        }
        std::vector<double> lateness(ranks.size(), 0.0);
        std::vector<int> last(ranks.size(), 0);
        std::vector<std::int64_t> starts(ranks.size());
        for (std::size_t k = 0; k < matched; ++k) {
            for (std::size_t i = 0; i < ranks.size(); ++i) {
                SpanRow e;
                bool found = false;
                while (!found && streams[i]->next(&e)) found = isCommunicationSpan(e.kind, e.kind == EventKind::Kernel && nccl(e.name));
                PROFILER_RETURN_IF_ERROR(streams[i]->status());
                if (!found) return errorStatus("the run's collectives changed while it was analysed");
                starts[i] = e.start;
            }
            const std::int64_t first = *std::min_element(starts.begin(), starts.end());
            ++last[static_cast<std::size_t>(std::max_element(starts.begin(), starts.end()) - starts.begin())];
            for (std::size_t i = 0; i < ranks.size(); ++i) lateness[i] += static_cast<double>(starts[i] - first);
        }
        out_.matched_collectives = static_cast<int>(matched);
        double worst = -1.0;
        for (RankBreakdown& r : out_.ranks) {
            const std::size_t i = static_cast<std::size_t>(std::find(ranks.begin(), ranks.end(), r.rank) - ranks.begin());
            r.last_starts = last[i];
            r.mean_lateness_ns = lateness[i] / static_cast<double>(matched);
            if (r.mean_lateness_ns > 0.0 && r.mean_lateness_ns > worst) {  // nobody late: no straggler
                worst = r.mean_lateness_ns;
                out_.straggler_rank = r.rank;
            }
        }
        return okStatus();
    }

    Status criticalPath(int iteration) {
        // The last iteration every rank completed, unless one is asked for.
        bool anyCompute = false;
        int lastCommon = std::numeric_limits<int>::max();
        for (const auto& [rank, facts] : facts_)
            if (facts.lastComputeIteration >= 0) {
                anyCompute = true;
                lastCommon = std::min(lastCommon, facts.lastComputeIteration);
            }
        if (!anyCompute) return okStatus();
        if (iteration < 0) iteration = lastCommon;
        // The rank that ends the iteration last (the lowest such rank on a tie).
        int rank = -1;
        std::pair<std::int64_t, std::int64_t> span;
        for (const auto& [r, facts] : facts_) {
            const auto it = facts.iterationSpan.find(iteration);
            if (it != facts.iterationSpan.end() && (rank < 0 || it->second.second > span.second)) {
                rank = r;
                span = it->second;
            }
        }
        if (rank < 0) return okStatus();
        PROFILER_ASSIGN_OR_RETURN(std::vector<TraceEvent> all, src_.events(tracksOfRank_[rank], span.first, span.second));
        std::vector<const TraceEvent*> events;
        for (const TraceEvent& e : all)
            if (e.iteration == iteration && e.kind != EventKind::Marker) events.push_back(&e);
        if (events.empty()) return okStatus();
        // One order whatever the source's, so that ties between equal ends resolve alike.
        std::sort(events.begin(), events.end(), [](const TraceEvent* a, const TraceEvent* b) {
            return std::tie(a->start, a->end, a->track, a->kind, a->tensor, a->segment, a->name) <
                   std::tie(b->start, b->end, b->track, b->kind, b->tensor, b->segment, b->name);
        });
        std::map<int, int> layerOfTensor;
        for (const TensorRecord& t : src_.header().tensors) layerOfTensor[t.id] = t.layer;
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
        CriticalPath& cp = out_.critical_path;
        cp.iteration = iteration;
        cp.rank = rank;
        cp.length_ns = path.back()->end - path.front()->start;
        for (const TraceEvent* e : path) {
            cp.steps.push_back({rank, e->track, e->kind, e->name, e->start, e->end});
            if (isCompute(*e)) cp.compute_ns += e->end - e->start;
            if (isCommunication(*e)) cp.comm_ns += e->end - e->start;
        }
        return okStatus();
    }

    RunSource& src_;
    std::map<int, int> rankOfTrack_;
    std::map<int, std::vector<int>> tracksOfRank_;
    std::map<int, RankFacts> facts_;
    std::unordered_map<std::int64_t, bool> ncclName_;
    RunAnalysis out_;
};

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
    TraceSource source(trace);
    // A trace in memory cannot fail to be read.
    return Analysis(source).run(iteration).value();
}

Result<RunAnalysis> analyzeStored(RunReader& reader, int iteration) {
    PROFILER_ASSIGN_OR_RETURN(RunOutline outline, reader.outline());
    PROFILER_ASSIGN_OR_RETURN(auto names, reader.names());
    StoreSource source(reader, std::move(outline), std::move(names));
    return Analysis(source).run(iteration);
}

}  // namespace pacer::profiler::analysis
