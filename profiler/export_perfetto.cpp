#include "profiler/export_perfetto.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "profiler/export_chrome.h"
#include "profiler/project.h"

namespace pacer::profiler {

namespace {

// Protobuf wire format: a key is (field << 3 | wire type); 0 varint, 1 fixed64, 2 length-delimited.
class Proto {
public:
    Proto& varint(int field, std::uint64_t v) {
        key(field, 0);
        raw(v);
        return *this;
    }
    Proto& fixed64(int field, std::uint64_t v) {
        key(field, 1);
        for (int i = 0; i < 8; ++i) bytes_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
        return *this;
    }
    Proto& bytes(int field, const std::string& s) {
        key(field, 2);
        raw(s.size());
        bytes_ += s;
        return *this;
    }
    Proto& message(int field, const Proto& m) { return bytes(field, m.bytes_); }
    const std::string& str() const { return bytes_; }

private:
    void key(int field, int wireType) { raw(static_cast<std::uint64_t>(field) << 3 | static_cast<std::uint64_t>(wireType)); }
    void raw(std::uint64_t v) {
        while (v >= 0x80) {
            bytes_.push_back(static_cast<char>((v & 0x7f) | 0x80));
            v >>= 7;
        }
        bytes_.push_back(static_cast<char>(v));
    }
    std::string bytes_;
};

constexpr int kSequence = 1;  // one writer: every packet on one trusted sequence
constexpr std::uint64_t kRankUuidBase = 1ULL << 40;

struct Edge {  // one begin or end of a slice, in the order it is written
    std::int64_t ts;
    bool begin;
    std::uint64_t track;
    const TraceEvent* event;
    std::vector<std::uint64_t> flowsOut, flowsIn;
};

}  // namespace

std::string perfettoTraceBytes(const RunTrace& trace) {
    Proto out;
    auto packet = [&](const Proto& p) { out.message(1, p); };
    std::map<int, int> rankOfTrack;
    std::int64_t origin = 0;
    for (const TraceEvent& e : trace.events) origin = std::min(origin, e.start);  // timestamps are unsigned

    // Flows: each collective back to the backward of every gradient it reduces (same rank and iteration). A unit's
    // tensors are the run of adjacent tensors from its first one down whose bytes make the unit's (a segment: one).
    std::map<int, const TensorRecord*> tensors;
    for (const TensorRecord& t : trace.tensors) tensors[t.id] = &t;
    for (const Track& t : trace.tracks) rankOfTrack[t.id] = t.rank;
    std::map<std::tuple<int, int, int>, const TraceEvent*> backwardOf;  // (rank, iteration, layer)
    for (const TraceEvent& e : trace.events)
        if (e.kind == EventKind::Backward && e.layer >= 0) backwardOf[{rankOfTrack[e.track], e.iteration, e.layer}] = &e;
    std::map<const TraceEvent*, std::vector<std::uint64_t>> flowsOut, flowsIn;
    std::uint64_t nextFlow = 1;
    for (const TraceEvent& e : trace.events) {
        if (e.kind != EventKind::AllReduce || e.tensor < 0 || !tensors.count(e.tensor)) continue;
        std::int64_t covered = 0;
        for (int t = e.tensor; t >= 0 && tensors.count(t) && (t == e.tensor || covered < e.bytes); --t) {
            covered += tensors[t]->elements * 4;
            auto from = backwardOf.find({rankOfTrack[e.track], e.iteration, tensors[t]->layer});
            if (from == backwardOf.end()) continue;
            flowsOut[from->second].push_back(nextFlow);
            flowsIn[&e].push_back(nextFlow++);
        }
    }

    // Tracks: one per rank, Pacer's tracks under it, and extra lanes where spans overlap without nesting.
    std::map<int, std::vector<const TraceEvent*>> byTrack;
    for (const TraceEvent& e : trace.events) byTrack[e.track].push_back(&e);
    std::map<int, std::string> trackName;
    for (const Track& t : trace.tracks) trackName[t.id] = t.name;
    std::vector<int> ranks;
    for (const Track& t : trace.tracks) ranks.push_back(t.rank);
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    for (int r : ranks)
        packet(Proto().varint(10, kSequence).message(60, Proto().varint(1, kRankUuidBase + static_cast<std::uint64_t>(r))
                                                           .bytes(2, "rank " + std::to_string(r))));
    std::vector<Edge> edges;
    for (auto& [trackId, events] : byTrack) {
        std::stable_sort(events.begin(), events.end(), [](const TraceEvent* a, const TraceEvent* b) {
            return a->start != b->start ? a->start < b->start : a->end > b->end;  // parents before children
        });
        std::vector<std::vector<const TraceEvent*>> lanes;  // each lane: a stack of open slices
        std::vector<std::vector<Edge>> laneEdges;
        for (const TraceEvent* e : events) {
            std::size_t lane = 0;
            for (;; ++lane) {
                if (lane == lanes.size()) {
                    lanes.emplace_back();
                    laneEdges.emplace_back();
                }
                auto& stack = lanes[lane];
                while (!stack.empty() && stack.back()->end <= e->start) {
                    laneEdges[lane].push_back({stack.back()->end, false, 0, stack.back(), {}, {}});
                    stack.pop_back();
                }
                if (stack.empty() || e->end <= stack.back()->end) break;  // nests, or the lane is free
            }
            laneEdges[lane].push_back({e->start, true, 0, e, flowsOut[e], flowsIn[e]});
            lanes[lane].push_back(e);
        }
        for (std::size_t lane = 0; lane < lanes.size(); ++lane) {
            for (auto it = lanes[lane].rbegin(); it != lanes[lane].rend(); ++it)
                laneEdges[lane].push_back({(*it)->end, false, 0, *it, {}, {}});
            const std::uint64_t uuid = (static_cast<std::uint64_t>(trackId) << 8) + lane + 1;
            const int rank = rankOfTrack.count(trackId) ? rankOfTrack[trackId] : 0;
            std::string name = trackName.count(trackId) ? trackName[trackId] : "track " + std::to_string(trackId);
            if (lane > 0) name += " (" + std::to_string(lane + 1) + ")";
            packet(Proto().varint(10, kSequence).message(
                60, Proto().varint(1, uuid).bytes(2, name).varint(5, kRankUuidBase + static_cast<std::uint64_t>(rank))));
            for (Edge& edge : laneEdges[lane]) {
                edge.track = uuid;
                edges.push_back(std::move(edge));
            }
        }
    }
    // One sequence in time order; at equal times the edges of one lane keep their order (ends before begins).
    std::stable_sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.ts < b.ts; });
    for (const Edge& edge : edges) {
        Proto ev;
        ev.varint(9, edge.begin ? 1 : 2).varint(11, edge.track);
        if (edge.begin) {
            ev.bytes(22, eventKindName(edge.event->kind)).bytes(23, edge.event->name);
            for (std::uint64_t f : edge.flowsOut) ev.fixed64(47, f);
            for (std::uint64_t f : edge.flowsIn) ev.fixed64(48, f);
        }
        packet(Proto().varint(8, static_cast<std::uint64_t>(edge.ts - origin)).varint(10, kSequence).message(11, ev));
    }
    return out.str();
}

Status exportPerfettoTrace(const std::string& projectPath, std::int64_t runId, const std::string& outFile) {
    PROFILER_ASSIGN_OR_RETURN(RunTrace trace, readRun(projectPath, runId));
    const std::string bytes = perfettoTraceBytes(trace);
    // Every Perfetto trace starts with field 1 (a TracePacket, length-delimited): tag byte 0x0a.
    return writeFileReplacing(projectPath, outFile, std::string_view("\x0a", 1), [&](std::ostream& out) {
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    });
}

}  // namespace pacer::profiler
