// How one pacer-worker process learns who it is: flags, or the environment a cluster launcher sets
// (PACER_RANK, PACER_WORLD_SIZE, PACER_LOCAL_RANK, PACER_LOCAL_WORLD_SIZE, PACER_RENDEZVOUS, PACER_RUN_KEY, PACER_HOST,
// PACER_IFNAME, PACER_BIND, PACER_SHM_STORES). Flags win over the environment.
#pragma once

#include "app/common/launch_check.h"

#include <optional>
#include <string>

namespace pacer::worker {

struct WorkerOptions {
    std::string experimentPath;   // default: <run-dir>/experiment.json
    std::string runDir;           // where this rank writes rank-<R>.pacer
    std::string rendezvous;       // <PACER_RENDEZVOUS or <run-dir>/rendezvous>/run-<hash of runKey>: per run
    int rank = -1;
    int worldSize = -1;
    int localRank = -1;           // which GPU on this node, and which share of its cores (kernels/cpu_binding.h)
    // Ranks on this node: PACER_LOCAL_WORLD_SIZE; without it, every rank when the local rank was not given either
    // (one machine, as the launcher starts them), else 0: unknown, and then no rank binds its compute to cores.
    int localWorldSize = 0;
    app::CoreBinding binding = app::CoreBinding::Cores;  // PACER_BIND: "cores" (the default), "compute" or "none"
    engine::SlotStores shmStores = engine::SlotStores::Auto;  // PACER_SHM_STORES: "auto", "cached" or "streaming"
    std::string dumpParams;       // optional: write the final parameters (raw float32, forward order) here
    // Names this run in every rank file, so merge refuses files of different runs: PACER_RUN_KEY (the launcher
    // sets a fresh one per run; on a cluster e.g. $SLURM_JOB_ID.$SLURM_STEP_ID), else the run directory.
    std::string runKey;
    // Where this rank listens for its peers (Gloo): PACER_IFNAME (an interface, e.g. eth0) or PACER_HOST (an
    // address or host name the other nodes can reach); loopback when neither is set (one machine).
    std::string host = "127.0.0.1";
    std::string iface;
};

// Returns nullopt and sets *error (one line) on bad usage; sets *help when --help was asked.
std::optional<WorkerOptions> parseWorkerOptions(int argc, char** argv, std::string* error, bool* help);
const char* workerUsage();

}  // namespace pacer::worker
