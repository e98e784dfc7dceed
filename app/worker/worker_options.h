// How one pacer-worker process learns who it is: flags, or the environment a cluster launcher sets
// (PACER_RANK, PACER_WORLD_SIZE, PACER_LOCAL_RANK, PACER_RENDEZVOUS). Flags win over the environment.
#pragma once

#include <optional>
#include <string>

namespace pacer::worker {

struct WorkerOptions {
    std::string experimentPath;   // default: <run-dir>/experiment.json
    std::string runDir;           // where this rank writes rank-<R>.pacer
    std::string rendezvous;       // shared directory for the FileStore; default: <run-dir>/rendezvous
    int rank = -1;
    int worldSize = -1;
    int localRank = -1;           // which GPU on this node
    std::string dumpParams;       // optional: write the final parameters (raw float32, forward order) here
};

// Returns nullopt and sets *error (one line) on bad usage; sets *help when --help was asked.
std::optional<WorkerOptions> parseWorkerOptions(int argc, char** argv, std::string* error, bool* help);
const char* workerUsage();

}  // namespace pacer::worker
