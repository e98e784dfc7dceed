#include "app/common/trace_conversion.h"

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>
#include <set>

namespace pacer::app {

using profiler::EventKind;

ImportedReplay importedReplay(const std::string& experimentJson) {
    ImportedReplay r;
    const auto j = nlohmann::json::parse(experimentJson, nullptr, false);
    if (!j.is_object() || !j.contains("imported") || !j["imported"].is_object()) return r;
    const auto& imported = j["imported"];
    if (auto m = imported.find("replay_missing"); m != imported.end() && m->is_string()) r.missing = m->get<std::string>();
    if (auto b = imported.find("buckets"); b != imported.end()) {
        try {
            r.buckets = b->get<std::vector<std::vector<int>>>();
        } catch (const nlohmann::json::exception&) {
            r.missing = "the import recorded its DDP buckets in a form this version cannot read; import the trace again";
        }
    }
    return r;
}

engine::ObservedRun observedFromTrace(const profiler::RunTrace& trace) {
    engine::ObservedRun run;
    run.ranks = trace.ranks;
    run.policy = trace.policy;
    int maxLayer = -1;
    for (const profiler::TensorRecord& t : trace.tensors) {
        engine::TensorInfo info;
        info.id = t.id;
        info.name = t.name;
        info.layer = t.layer;
        info.elements = static_cast<std::size_t>(std::max<std::int64_t>(0, t.elements));
        run.tensors.push_back(info);
        maxLayer = std::max(maxLayer, t.layer);
    }
    std::sort(run.tensors.begin(), run.tensors.end(), [](const auto& a, const auto& b) { return a.id < b.id; });

    std::map<int, int> rankOfTrack;
    for (const profiler::Track& track : trace.tracks) rankOfTrack[track.id] = track.rank;
    // A rank's comm lanes in the order the worker made them: channel 0, 1, ... (plan order with channels).
    std::map<int, int> laneOfTrack;
    {
        std::map<int, std::vector<int>> commTracks;  // rank -> comm track ids, ascending
        for (const profiler::Track& track : trace.tracks)
            if (track.kind == profiler::TrackKind::Comm) commTracks[track.rank].push_back(track.id);
        for (auto& [rank, ids] : commTracks) {
            std::sort(ids.begin(), ids.end());
            for (std::size_t lane = 0; lane < ids.size(); ++lane) laneOfTrack[ids[lane]] = static_cast<int>(lane);
        }
    }
    // An imported trace with a replay input extracted at import (profiler/kineto_ddp.h) is replayed from those tracks
    // alone: its own rows name ops and kernels, not layers, tensors and buckets.
    std::set<int> replayInput;
    for (const profiler::Track& track : trace.tracks)
        if (profiler::isReplayInputTrack(track)) replayInput.insert(track.id);

    std::map<int, std::string> layerNames;
    for (const profiler::TraceEvent& e : trace.events) {
        if (!replayInput.empty() && !replayInput.count(e.track)) continue;
        engine::ObservedSpan span{};
        switch (e.kind) {
            case EventKind::Forward: span.kind = engine::ObservedSpan::Forward; break;
            case EventKind::Backward: span.kind = engine::ObservedSpan::Backward; break;
            case EventKind::Optimizer: span.kind = engine::ObservedSpan::Update; break;
            case EventKind::AllReduce: span.kind = engine::ObservedSpan::Comm; break;
            case EventKind::Wait: span.kind = engine::ObservedSpan::Wait; break;
            case EventKind::Iteration: span.kind = engine::ObservedSpan::Iteration; break;
            case EventKind::Agreement: span.kind = engine::ObservedSpan::Round; break;
            default: continue;  // GPU rows are drawn, not replayed: the engine's own events carry the schedule
        }
        if ((e.kind == EventKind::Forward || e.kind == EventKind::Backward) && e.layer >= 0) {
            layerNames.emplace(e.layer, e.name);
            maxLayer = std::max(maxLayer, e.layer);
        }
        auto it = rankOfTrack.find(e.track);
        span.rank = it == rankOfTrack.end() ? 0 : it->second;
        span.iteration = e.iteration;
        span.layer = e.layer;
        span.tensor = e.tensor;
        span.segment = e.segment;
        span.bytes = e.bytes;
        span.start = e.start;
        span.end = e.end;
        if (auto lane = laneOfTrack.find(e.track); lane != laneOfTrack.end()) span.lane = lane->second;
        run.spans.push_back(span);
    }
    run.layerNames.resize(static_cast<std::size_t>(maxLayer + 1));
    for (auto& [layer, name] : layerNames) run.layerNames[static_cast<std::size_t>(layer)] = name;
    for (std::size_t l = 0; l < run.layerNames.size(); ++l)
        if (run.layerNames[l].empty()) run.layerNames[l] = "layer " + std::to_string(l);
    return run;
}

profiler::RunTrace traceFromSimulation(const engine::SimResult& sim, const engine::Workload& workload,
                                       const profiler::RunInfo& info) {
    profiler::RunTrace trace;
    trace.label = info.label;
    trace.policy = info.policy;
    trace.segment_bytes = info.segment_bytes;
    trace.ranks = 1;  // a replay draws one rank: the slowest, as extracted
    trace.iterations = info.iterations;
    trace.tracks = {{0, 0, profiler::TrackKind::Compute, "replay compute"},
                    {1, 0, profiler::TrackKind::Comm, "replay comm"}};
    for (int c = 1; c < workload.channels; ++c)  // units in flight together get lanes of their own, as captured
        trace.tracks.push_back({1 + c, 0, profiler::TrackKind::Comm, "replay comm ch" + std::to_string(c)});
    for (const engine::TensorInfo& t : workload.tensors)
        trace.tensors.push_back({t.id, t.name, t.layer, static_cast<std::int64_t>(t.elements)});
    auto layerName = [&](int layer) {
        return layer >= 0 && layer < static_cast<int>(workload.layers.size()) ? workload.layers[layer].name
                                                                              : std::string("layer");
    };
    auto tensorName = [&](int tensor) {
        return tensor >= 0 && tensor < static_cast<int>(workload.tensors.size()) ? workload.tensors[tensor].name
                                                                                : std::string("tensor");
    };
    for (const engine::SimEvent& s : sim.events) {
        profiler::TraceEvent e;
        e.start = s.start;
        e.end = s.end;
        e.iteration = s.iteration;
        e.layer = s.layer;
        e.track = 0;
        switch (s.kind) {
            case engine::SimEvent::Forward:
                e.kind = EventKind::Forward;
                e.name = layerName(s.layer);
                break;
            case engine::SimEvent::Backward:
                e.kind = EventKind::Backward;
                e.name = layerName(s.layer);
                break;
            case engine::SimEvent::Update:
                e.kind = EventKind::Optimizer;
                e.name = "update " + layerName(s.layer);
                break;
            case engine::SimEvent::Wait:
                e.kind = EventKind::Wait;
                e.name = "wait";
                break;
            case engine::SimEvent::Comm: {
                e.kind = EventKind::AllReduce;
                e.track = 1 + std::clamp(s.channel, 0, std::max(0, workload.channels - 1));
                if (!s.unit.pieces.empty()) {
                    const engine::Piece& p = s.unit.pieces.front();
                    e.tensor = p.tensor;
                    e.segment = p.segment;
                    e.name = s.unit.pieces.size() == 1 ? "allreduce " + tensorName(p.tensor) : "allreduce fused";
                }
                e.bytes = static_cast<std::int64_t>(s.unit.bytes());
                e.priority = s.unit.priority;
                break;
            }
            case engine::SimEvent::Round:
                e.kind = EventKind::Agreement;
                e.track = 1;  // dynamic order: one channel
                e.name = "agreement round";
                break;
        }
        trace.events.push_back(std::move(e));
    }
    std::sort(trace.events.begin(), trace.events.end(),
              [](const auto& a, const auto& b) { return a.track != b.track ? a.track < b.track : a.start < b.start; });
    return trace;
}

}  // namespace pacer::app
