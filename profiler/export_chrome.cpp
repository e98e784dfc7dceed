#include "profiler/export_chrome.h"

#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "profiler/project.h"

namespace pacer::profiler {

namespace {

// ns as µs with exactly three decimals: exact, and read back exactly by the importer.
std::string micros(std::int64_t ns) {
    const bool neg = ns < 0;
    const std::uint64_t a = neg ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
    char buf[48];
    std::snprintf(buf, sizeof buf, "%s%" PRIu64 ".%03" PRIu64, neg ? "-" : "", a / 1000, a % 1000);
    return buf;
}

std::string quoted(const std::string& s) { return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

}  // namespace

void writeChromeTrace(std::ostream& out, const RunTrace& trace, const RunInfo& info) {
    nlohmann::json meta;
    meta["run"] = {{"label", info.label},       {"policy", info.policy},         {"backend", info.backend},
                   {"segment_bytes", info.segment_bytes}, {"ranks", info.ranks}, {"iterations", info.iterations},
                   {"started_ns", info.started_ns}};
    meta["tracks"] = nlohmann::json::array();
    for (const Track& t : trace.tracks)
        meta["tracks"].push_back({{"id", t.id}, {"rank", t.rank}, {"kind", trackKindName(t.kind)}, {"name", t.name}});
    meta["tensors"] = nlohmann::json::array();
    for (const TensorRecord& t : trace.tensors)
        meta["tensors"].push_back({{"id", t.id}, {"name", t.name}, {"layer", t.layer}, {"elements", t.elements}});
    out << "{\"displayTimeUnit\":\"ns\",\"pacer\":"
        << meta.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << ",\n\"traceEvents\":[\n";

    bool first = true;
    auto sep = [&]() -> std::ostream& {
        if (!first) out << ",\n";
        first = false;
        return out;
    };
    std::set<int> ranks;
    std::map<int, int> rankOfTrack;
    for (const Track& t : trace.tracks) {
        ranks.insert(t.rank);
        rankOfTrack[t.id] = t.rank;
    }
    for (int r : ranks)
        sep() << R"({"ph":"M","name":"process_name","pid":)" << r << R"(,"args":{"name":"rank )" << r << "\"}}";
    for (const Track& t : trace.tracks) {
        sep() << R"({"ph":"M","name":"thread_name","pid":)" << t.rank << ",\"tid\":" << t.id
              << ",\"args\":{\"name\":" << quoted(t.name) << "}}";
        sep() << R"({"ph":"M","name":"thread_sort_index","pid":)" << t.rank << ",\"tid\":" << t.id
              << ",\"args\":{\"sort_index\":" << t.id << "}}";
    }
    // Flow sources: backward of (rank, iteration, layer), CUDA API call of a correlation id.
    std::map<std::tuple<int, int, int>, const TraceEvent*> backwardOf;
    std::map<std::int64_t, const TraceEvent*> launchOf;
    for (const TraceEvent& e : trace.events) {
        const int rank = rankOfTrack.count(e.track) ? rankOfTrack[e.track] : 0;
        if (e.kind == EventKind::Backward) backwardOf[{rank, e.iteration, e.layer}] = &e;
        if (e.kind == EventKind::Runtime && e.correlation != 0) launchOf[e.correlation] = &e;
    }
    std::int64_t flowId = 1;
    for (const TraceEvent& e : trace.events) {
        const int rank = rankOfTrack.count(e.track) ? rankOfTrack[e.track] : 0;
        sep() << "{\"ph\":\"X\",\"name\":" << quoted(e.name) << ",\"cat\":\"" << eventKindName(e.kind)
              << "\",\"pid\":" << rank << ",\"tid\":" << e.track << ",\"ts\":" << micros(e.start)
              << ",\"dur\":" << micros(e.end - e.start) << ",\"args\":{\"iteration\":" << e.iteration
              << ",\"layer\":" << e.layer << ",\"tensor\":" << e.tensor << ",\"segment\":" << e.segment
              << ",\"bytes\":" << e.bytes << ",\"priority\":" << e.priority << ",\"correlation\":" << e.correlation
              << "}}";
        const TraceEvent* from = nullptr;
        if (e.kind == EventKind::AllReduce && e.segment <= 0) {
            auto it = backwardOf.find({rank, e.iteration, e.layer});
            if (it != backwardOf.end()) from = it->second;
        } else if (e.correlation != 0 && e.kind != EventKind::Runtime) {
            auto it = launchOf.find(e.correlation);
            if (it != launchOf.end()) from = it->second;
        }
        if (from) {
            const int fromRank = rankOfTrack.count(from->track) ? rankOfTrack[from->track] : 0;
            sep() << R"({"ph":"s","name":"flow","cat":"flow","id":)" << flowId << ",\"pid\":" << fromRank
                  << ",\"tid\":" << from->track << ",\"ts\":" << micros(from->start) << "}";
            sep() << R"({"ph":"f","bp":"e","name":"flow","cat":"flow","id":)" << flowId << ",\"pid\":" << rank
                  << ",\"tid\":" << e.track << ",\"ts\":" << micros(e.start) << "}";
            ++flowId;
        }
    }
    out << "\n]}\n";
}

Status exportChromeTrace(const std::string& projectPath, std::int64_t runId, const std::string& outFile) {
    PROFILER_ASSIGN_OR_RETURN(RunTrace trace, readRun(projectPath, runId));
    PROFILER_ASSIGN_OR_RETURN(RunSummary summary, readRunSummary(projectPath, trace.run_id));
    const RunInfo info{summary.label, summary.policy, summary.experiment_json, summary.segment_bytes,
                       summary.ranks, summary.iterations, summary.backend, summary.started_ns};
    return writeFileReplacing(outFile, [&](std::ostream& out) { writeChromeTrace(out, trace, info); });
}

Status writeFileReplacing(const std::string& outFile, const std::function<void(std::ostream&)>& write) {
    // Written beside the target and renamed, so a failed export never leaves half a file under the real name.
    const std::string tmp = outFile + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) return errorStatus(outFile + ": cannot write");
        write(out);
        out.flush();
        if (!out) {
            std::error_code ec;
            std::filesystem::remove(tmp, ec);
            return errorStatus(outFile + ": write failed");
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, outFile, ec);
    if (ec) return errorStatus(outFile + ": cannot rename into place: " + ec.message());
    return okStatus();
}

}  // namespace pacer::profiler
