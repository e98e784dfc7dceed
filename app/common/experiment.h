// An experiment: what to train, on how many ranks, with which reduction schedule. Read from a small JSON file
// (samples/experiments/*.json); the launcher writes the resolved copy (overrides applied, model inlined) into the
// run directory, and every worker reads that copy, so all ranks agree on one configuration.
//
//   {
//     "name": "mlp-2rank",
//     "model": "../models/mlp.json",            // a model file (relative to this file) or an inline object
//     "ranks": 2, "backend": "cpu",             // cpu (Gloo) | gpu (NCCL, one rank per GPU)
//     "iterations": 30, "warmup_iterations": 5, "batch_per_rank": 32, "seed": 7, "threads_per_rank": 1,
//     "optimizer": {"kind": "sgd", "lr": 0.05},
//     "policy": {"name": "pace", "segment_bytes": "256KiB"},   // every PolicyConfig field; sizes with units
//     "order": "dynamic",                        // dynamic | plan; left out: pace chooses, others run dynamic
//     "channels": 1,                             // plan order on cpu: segments in flight at once (1..16);
//                                                // left out: pace chooses, others run 1
//     "transport": "auto",                       // cpu: auto (shared memory when all ranks share this host) | gloo | shm
//     "link": {"gbps": 0, "latency_us": 0},      // CPU link emulation; 0 = off (per port: a torus node has 2·D)
//     "topology": "flat",                        // flat | ring | {"torus": [X, Y, Z]} (X·Y·Z = ranks)
//     "algorithm": "native",                     // native | ring | recursive-doubling | halving-doubling | torus | auto
//     "timeout_s": 60,
//     "trace": true                              // false records nothing: for measuring tracing's own cost
//   }
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace pacer::app {

struct Experiment {
    std::string name = "experiment";
    nlohmann::json model;            // the model spec object (inlined)
    int ranks = 2;
    std::string backend = "cpu";
    int iterations = 20;
    int warmupIterations = 3;
    int batchPerRank = 32;
    std::uint64_t seed = 1;
    int threadsPerRank = 1;
    nlohmann::json optimizer = nlohmann::json::object();
    nlohmann::json policy = nlohmann::json::object({{"name", "fifo"}});
    std::string order = "dynamic";
    int channels = 1;                // units in flight at once after warm-up (plan order, cpu backend)
    // Whether the file (or an override) set them: what the user set, a self-tuning pace keeps; what they left out,
    // it chooses. A resolved copy writes only what was set, so the workers see the same.
    bool orderGiven = false;
    bool channelsGiven = false;
    std::string transport = "auto";  // cpu backend: auto | gloo | shm (engine::parseCpuTransport)
    double linkGbps = 0;
    double linkLatencyUs = 0;
    std::string topology = "flat";   // as parseTopology reads it: flat, ring, torus:XxYxZ
    std::string algorithm = "native";  // how units are reduced (engine::Algorithm names)
    double timeoutSeconds = 60;
    bool trace = true;               // false: record nothing (to measure what tracing costs)

    nlohmann::json toJson() const;
};

// Overrides from the command line or the GUI; unset fields keep the file's values.
struct ExperimentOverrides {
    // Replaces the whole policy object ({"name": ..., its settings}, sizes may carry units) before `policy` and
    // `segmentBytes` apply: what the GUI's experiment editor sets, where settings left out mean the defaults.
    std::optional<nlohmann::json> policyObject;
    std::optional<int> ranks;
    std::optional<std::string> backend;
    std::optional<std::string> policy;
    std::optional<std::int64_t> segmentBytes;
    std::optional<int> iterations;
    std::optional<double> linkGbps;
    std::optional<double> linkLatencyUs;
    std::optional<std::string> order;
    std::optional<int> channels;
    std::optional<std::string> transport;
    std::optional<std::string> topology;   // flat, ring, torus, torus:XxYxZ
    std::optional<std::string> algorithm;
    std::optional<int> batchPerRank;
    std::optional<double> timeoutSeconds;
    std::optional<bool> trace;
};

// Parses and validates. On failure returns nullopt and sets *error to one line saying what and where.
std::optional<Experiment> parseExperiment(const nlohmann::json& j, const std::string& baseDir, std::string* error);
std::optional<Experiment> loadExperiment(const std::string& path, std::string* error);
// Applies overrides and re-validates.
std::optional<Experiment> applyOverrides(Experiment experiment, const ExperimentOverrides& o, std::string* error);

}  // namespace pacer::app
