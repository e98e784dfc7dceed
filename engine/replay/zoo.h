// Model-zoo profiles: workloads that replay without any capture.
//
// A profile is a JSON file (samples/zoo/*.json; a user can write their own in the same format):
//   { "name": "resnet50", "description": "...", "source": "where the architecture comes from",
//     "ranks": 8, "batch_size": 32, "device_tflops": 25, "backward_factor": 2.0,
//     "layer_overhead_us": 10, "update_ns_per_element": 0.025,
//     "layers": [ { "name": "conv1", "forward_gflops": 0.236,          // per sample; or "forward_us" directly
//                   "backward_us": 1.0 (optional; else backward_factor x forward),
//                   "params": [ { "name": "conv1.weight", "shape": [64, 3, 7, 7] } ] }, ... ] }
// A layer's forward time is batch_size x forward_gflops / device_tflops plus layer_overhead_us (the kernel
// launches a layer costs however small it is); its backward is backward_factor times the compute part plus the
// overhead. Tensors are the params in file order (forward order).
#pragma once

#include <string>
#include <vector>

#include "engine/sim/workload.h"
#include "engine/status.h"

namespace pacer::engine {

// Where zoo names are looked up: the directories in $PACER_ZOO_PATH (colon-separated), then samples/zoo under
// the current directory and its parent (a build directory inside the source tree).
std::vector<std::string> defaultZooDirs();

// Loads a profile from a file path, or by name ("resnet50" or "resnet50.json") from the zoo directories.
// deviceTflops > 0 overrides the file's device throughput.
Result<Workload> loadProfile(const std::string& pathOrName, double deviceTflops = 0,
                             const std::vector<std::string>& zooDirs = defaultZooDirs());

// Parses profile JSON text (for files from elsewhere, and tests). `origin` names it in error messages.
Result<Workload> parseProfile(const std::string& jsonText, double deviceTflops = 0,
                              const std::string& origin = "profile");

// The profile names (file names without .json) found in the zoo directories, sorted, without duplicates.
std::vector<std::string> zooNames(const std::vector<std::string>& zooDirs = defaultZooDirs());

// One zoo profile as `pacer-cli zoo list` shows it. A file that fails to parse is listed with its error.
struct ZooEntry {
    std::string name;  // file name without .json
    std::string path;
    std::string description;  // the profile's "description"
    int tensors = 0;
    std::size_t parameters = 0;
    std::string error;  // empty when the profile loads
};
std::vector<ZooEntry> listZoo(const std::vector<std::string>& zooDirs = defaultZooDirs());

// The parameter count of a workload (sum of tensor elements).
std::size_t parameterCount(const Workload& workload);

}  // namespace pacer::engine
