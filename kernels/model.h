// A trainable model of one family, built from a ModelSpec, with the hooks the all-reduce engine needs.
//
// The model is a chain of layers in forward order (a composite block is one layer). trainStep() runs forward,
// the mean softmax cross-entropy loss and backward, calling the hooks around every layer so that the engine can
// (a) hold layer i's forward until its reduced and updated parameters are in place and (b) start reducing a
// layer's gradients the moment its backward ends. On CUDA, each parameter also gets an event recorded on the
// compute stream when its gradient is complete, so the engine's stream can wait on exactly that gradient.
#pragma once

#include "kernels/dataset.h"
#include "kernels/device.h"
#include "kernels/model_spec.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace pacer::kernels {

struct ParamView {
    std::string name;  // e.g. "linear0.weight", "encoder1.attn.qkv.weight"
    int layer = 0;     // the owning layer, forward order
    float* value = nullptr;  // device pointers under Cuda
    float* grad = nullptr;
    std::size_t count = 0;
};

struct LayerHooks {  // any may be empty; layer indexes are forward order
    std::function<void(int layer)> beforeForward;  // the worker waits here for this layer's reduced+updated params
    std::function<void(int layer)> afterForward;
    std::function<void(int layer)> beforeBackward;
    std::function<void(int layer)> afterBackward;  // this layer's parameter gradients are complete
};

class Model {
public:
    // Throws std::invalid_argument for a bad spec, std::runtime_error when Cuda is asked for and unavailable.
    static std::unique_ptr<Model> create(const ModelSpec& spec, std::uint64_t seed, Device device = Device::Cpu);
    virtual ~Model();

    virtual const ModelSpec& spec() const = 0;
    virtual Device device() const = 0;
    virtual int layerCount() const = 0;
    virtual std::string layerName(int layer) const = 0;
    virtual std::vector<ParamView> parameters() = 0;  // forward order; stable pointers
    // forward + mean loss over the batch + backward; grads are overwritten (not accumulated); returns the loss.
    // Throws std::invalid_argument when the batch does not fit the model (sizes, labels, token ids).
    virtual float trainStep(const Batch& batch, const LayerHooks& hooks) = 0;
    virtual float evaluateLoss(const Batch& batch) = 0;
    // GPU: a cudaEvent_t (as void*) recorded on the compute stream when parameter p's gradient is complete;
    // nullptr on CPU. Valid inside/after afterBackward of p's layer.
    virtual void* gradientReadyEvent(int param) = 0;
    virtual void* computeStream() = 0;  // cudaStream_t or nullptr
    // Multiply-adds of one sample's forward in layer i (for the benchmark's rates).
    virtual double layerForwardFlops(int layer) const = 0;
    // Host copies of all parameter values, forward order (synchronises): for tests and checkpoints.
    virtual std::vector<std::vector<float>> parameterValues() = 0;
    virtual std::vector<std::vector<float>> parameterGradients() = 0;
};

}  // namespace pacer::kernels
