// Per-tensor optimizers: SGD with momentum and Adam.
//
// The engine updates each parameter tensor on its own as soon as its all-reduce ends (so that the next forward of
// that layer can start), hence update() takes one tensor. The summed gradient is scaled first (1/worldSize after a
// summing all-reduce) in place, then the step is applied. On CUDA the update runs on the given stream, or on the
// optimizer's own stream and is complete when update() returns.
#pragma once

#include "kernels/device.h"
#include "kernels/model.h"

#include <nlohmann/json_fwd.hpp>

#include <memory>
#include <string>
#include <vector>

namespace pacer::kernels {

struct OptimizerConfig {
    std::string kind = "sgd";  // "sgd" | "adam"
    float lr = 0.05f;
    float momentum = 0.f;
    float beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;
    float weightDecay = 0.f;
};

// Keys: "kind", "lr", "momentum", "beta1", "beta2", "eps", "weight_decay". Throws std::invalid_argument.
OptimizerConfig parseOptimizerConfig(const nlohmann::json& j);

class Optimizer {
public:
    // `stream`: a cudaStream_t (as void*) to run updates on, usually the model's computeStream(); nullptr for the
    // optimizer's own stream (synchronised in update()). Ignored on CPU.
    static std::unique_ptr<Optimizer> create(const OptimizerConfig& config, std::vector<ParamView> params,
                                             Device device, void* stream = nullptr);
    virtual ~Optimizer();
    // grad *= gradScale (1/worldSize after a summing all-reduce), then the update of that one tensor.
    // Throws std::invalid_argument for an unknown param index.
    virtual void update(int param, float gradScale) = 0;
    virtual int parameterCount() const = 0;
};

}  // namespace pacer::kernels
