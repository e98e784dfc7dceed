#include "profiler/export_chrome.h"

#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string_view>

#include "profiler/project.h"

#include <fcntl.h>
#include <unistd.h>

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

// What every export begins with (writeChromeTrace): the mark of a file this function may replace.
constexpr std::string_view kExportHead = "{\"displayTimeUnit\":\"ns\",\"pacer\":";

// An export may only replace an earlier export: never the project being read, another project, or any other
// file a person gave by mistake (a typo in --out must not cost them data).
Status checkTarget(const std::string& projectPath, const std::string& outFile) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::exists(outFile, ec)) return okStatus();
    if (fs::equivalent(projectPath, outFile, ec))
        return errorStatus(outFile + ": is the project being exported; choose another output file");
    if (!fs::is_regular_file(outFile, ec)) return errorStatus(outFile + ": exists and is not a regular file");
    std::ifstream in(outFile, std::ios::binary);
    std::string head(kExportHead.size(), '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    if (checkProject(outFile).ok())
        return errorStatus(outFile + ": is a Pacer project; refusing to replace it with an export");
    if (head != kExportHead)
        return errorStatus(outFile + ": exists and is not a Pacer export; refusing to replace it");
    return okStatus();
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
    out << kExportHead
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
    PROFILER_RETURN_IF_ERROR(checkTarget(projectPath, outFile));
    // Written beside the target under a fresh name (O_EXCL: it can be no existing file, the project included)
    // and renamed, so a failed export never leaves half a file under the real name.
    std::string tmp = outFile + ".XXXXXX";
    const int fd = ::mkstemp(tmp.data());
    if (fd < 0) return errorStatus(outFile + ": cannot write beside it");
    ::close(fd);
    auto discard = [&](const std::string& why) {
        std::error_code ec;
        std::filesystem::remove(tmp, ec);
        return errorStatus(outFile + ": " + why);
    };
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) return discard("cannot write");
        writeChromeTrace(out, trace, info);
        out.flush();
        if (!out) return discard("write failed");
    }
    // mkstemp makes the file private; an export is an ordinary file like any the user writes.
    std::error_code ec;
    std::filesystem::permissions(tmp, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write |
                                          std::filesystem::perms::group_read | std::filesystem::perms::others_read,
                                 ec);
    std::filesystem::rename(tmp, outFile, ec);
    if (ec) return discard("cannot rename into place: " + ec.message());
    return okStatus();
}

}  // namespace pacer::profiler
