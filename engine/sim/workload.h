// What the simulator needs to know about one training iteration, wherever it came from: a captured trace,
// an imported one, or a model-zoo profile.
#pragma once

#include "engine/tensor.h"

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace pacer::engine {

struct LayerTimes {
    std::string name;
    Nanos forward = 0;
    Nanos backward = 0;  // backward runs layers in reverse order; a layer's gradients are ready when it ends
};

struct Workload {
    std::vector<TensorInfo> tensors;  // forward order; tensors[i].id == i
    std::vector<LayerTimes> layers;   // forward order; tensors[].layer indexes this
    // Optimizer step cost, applied per tensor when its reduction is done. A double because real steps cost a
    // fraction of a nanosecond per element on a GPU (memory bound: ~20 B moved per element).
    double update_ns_per_element = 0;
    int ranks = 2;
    std::string name;  // the model's name (zoo profile) or the run it was extracted from; informational

    // The optimizer step for `elements` elements, on the compute stream.
    Nanos updateNanos(std::size_t elements) const {
        return static_cast<Nanos>(std::llround(update_ns_per_element * static_cast<double>(elements)));
    }
};

// All-reduce cost t(bytes) = alpha + bytes / bandwidth, fitted from observed segments (or set by what-if knobs).
struct CostModel {
    double alpha_ns = 20'000;        // per collective call
    double ns_per_byte = 0.8;        // 1 / bandwidth (0.8 ns/B is 10 Gb/s)
    Nanos at(std::size_t bytes) const { return static_cast<Nanos>(std::llround(alpha_ns + ns_per_byte * bytes)); }
};

}  // namespace pacer::engine
