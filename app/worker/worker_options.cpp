#include "app/worker/worker_options.h"

#include "app/common/launch_check.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string_view>

namespace pacer::worker {
namespace {

std::optional<int> parseInt(std::string_view s) {
    if (s.empty() || s.size() > 9) return std::nullopt;
    int v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return std::nullopt;
        v = v * 10 + (c - '0');
    }
    return v;
}

// FNV-1a of the run key in hex: a directory name whatever characters the key holds.
std::string keyHash(const std::string& key) {
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : key) h = (h ^ c) * 1099511628211ull;
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
    return text;
}

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}

}  // namespace

const char* workerUsage() {
    return "usage: pacer-worker --run-dir DIR [--experiment FILE] [--rank R --world-size N] [--local-rank L]\n"
           "                    [--local-world-size N] [--rendezvous DIR] [--dump-params FILE]\n"
           "       pacer-worker --list-gpus     (the GPUs this worker can run on, one a line; none: the reason on stderr)\n"
           "Runs one rank of a Pacer experiment. Without flags, rank and world size come from PACER_RANK,\n"
           "PACER_WORLD_SIZE, PACER_LOCAL_RANK, PACER_LOCAL_WORLD_SIZE and PACER_RENDEZVOUS (set by a cluster\n"
           "launcher); PACER_RUN_KEY names the run in its rank files (default: the run directory). Across nodes,\n"
           "PACER_IFNAME (an interface) or PACER_HOST (an address) says where this rank listens; the default is\n"
           "loopback. A CPU rank computes on cores of its own when the node's ranks each have some, and its\n"
           "communication threads run there too when no core is left for them (PACER_BIND=compute: the compute\n"
           "threads alone; PACER_BIND=none: wherever the scheduler puts them). Over shared memory the all-reduce\n"
           "measures which stores move its chunks faster between the ranks' cores and keeps those\n"
           "(PACER_SHM_STORES=cached or streaming: fixed).\n";
}

std::optional<WorkerOptions> parseWorkerOptions(int argc, char** argv, std::string* error, bool* help) {
    WorkerOptions o;
    *help = false;
    std::string rank = env("PACER_RANK"), world = env("PACER_WORLD_SIZE"), local = env("PACER_LOCAL_RANK");
    std::string localWorld = env("PACER_LOCAL_WORLD_SIZE");
    o.rendezvous = env("PACER_RENDEZVOUS");
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            *help = true;
            return std::nullopt;
        }
        if (i + 1 >= argc) {
            *error = "unknown or incomplete option '" + std::string(arg) + "'";
            return std::nullopt;
        }
        const std::string value = argv[++i];
        if (arg == "--run-dir") o.runDir = value;
        else if (arg == "--experiment") o.experimentPath = value;
        else if (arg == "--rank") rank = value;
        else if (arg == "--world-size") world = value;
        else if (arg == "--local-rank") local = value;
        else if (arg == "--local-world-size") localWorld = value;
        else if (arg == "--rendezvous") o.rendezvous = value;
        else if (arg == "--dump-params") o.dumpParams = value;
        else {
            *error = "unknown option '" + std::string(arg) + "'";
            return std::nullopt;
        }
    }
    if (o.runDir.empty()) {
        *error = "--run-dir is required";
        return std::nullopt;
    }
    auto r = parseInt(rank), w = parseInt(world);
    if (!r || !w) {
        *error = "rank and world size are required (--rank/--world-size or PACER_RANK/PACER_WORLD_SIZE)";
        return std::nullopt;
    }
    if (*w < 1 || *r >= *w) {
        *error = "rank " + rank + " is not within world size " + world;
        return std::nullopt;
    }
    o.rank = *r;
    o.worldSize = *w;
    o.localRank = local.empty() ? o.rank : parseInt(local).value_or(-1);
    if (o.localRank < 0) {
        *error = "PACER_LOCAL_RANK/--local-rank must be a number";
        return std::nullopt;
    }
    const std::optional<int> localRanks = localWorld.empty() ? std::optional<int>(local.empty() ? o.worldSize : 0)
                                                             : parseInt(localWorld);
    if (!localRanks || (!localWorld.empty() && *localRanks < 1)) {
        *error = "PACER_LOCAL_WORLD_SIZE/--local-world-size must be a number of ranks, at least 1";
        return std::nullopt;
    }
    o.localWorldSize = *localRanks;
    if (o.localWorldSize > 0 && o.localRank >= o.localWorldSize) {
        *error = "local rank " + std::to_string(o.localRank) + " is not within the node's " +
                 std::to_string(o.localWorldSize) + " ranks (PACER_LOCAL_WORLD_SIZE)";
        return std::nullopt;
    }
    const std::optional<app::CoreBinding> binding = app::coreBindingSetting(std::getenv("PACER_BIND"), error);
    if (!binding) return std::nullopt;
    o.binding = *binding;
    const std::optional<engine::SlotStores> stores = app::slotStoresSetting(std::getenv("PACER_SHM_STORES"), error);
    if (!stores) return std::nullopt;
    o.shmStores = *stores;
    if (o.experimentPath.empty()) o.experimentPath = o.runDir + "/experiment.json";
    if (o.rendezvous.empty()) o.rendezvous = o.runDir + "/rendezvous";
    if (const std::string host = env("PACER_HOST"); !host.empty()) o.host = host;
    o.iface = env("PACER_IFNAME");
    o.runKey = env("PACER_RUN_KEY");
    if (o.runKey.empty()) {
        std::error_code ec;
        const auto dir = std::filesystem::weakly_canonical(o.runDir, ec);
        o.runKey = ec ? o.runDir : dir.string();
    }
    // Each run meets in a namespace of its own under the rendezvous directory, so a directory reused by the next
    // run (a fresh PACER_RUN_KEY) never meets the files of the last; a namespace used before is reported as stale.
    o.rendezvous += "/run-" + keyHash(o.runKey);
    return o;
}

}  // namespace pacer::worker
