// The layers of the three model families, each with forward, backward and its parameters.
//
// A Layer maps a batch of samples of inSize() floats to outSize() floats through a Backend, so the same code runs
// on the CPU and the GPU. forward() may keep x until backward() (the model keeps activations alive for that);
// backward() writes (never accumulates) its parameter gradients and, when dx is non-null, the input gradient.
// Composite layers (a ResNet block, a transformer encoder block) own sub-layers; to the model and its hooks they
// are one layer. Layers throw std::invalid_argument for impossible shapes at construction.
#pragma once

#include "kernels/backend.h"
#include "kernels/rng.h"

#include <memory>
#include <string>
#include <vector>

namespace pacer::kernels {

struct Param {
    std::string name;  // relative to the layer, e.g. "weight"
    std::size_t count = 0;
    Buffer<float> value;
    Buffer<float> grad;
};

class Layer {
public:
    explicit Layer(Backend& b) : b_(b) {}
    virtual ~Layer() = default;
    Layer(const Layer&) = delete;
    Layer& operator=(const Layer&) = delete;

    virtual std::string kind() const = 0;
    virtual std::size_t inSize() const = 0;   // floats (or token ids) per sample
    virtual std::size_t outSize() const = 0;  // floats per sample
    // True when the input is int32 token ids (the embedding): x then points at ids stored in the input slot.
    virtual bool takesTokens() const { return false; }
    virtual void forward(const float* x, float* y, int batch) = 0;
    virtual void backward(const float* dy, float* dx, int batch) = 0;
    // Stable pointers; the order is the layer's parameter order. Composite layers prefix sub-layer names.
    virtual std::vector<Param*> params() { return {}; }
    // Rough multiply-adds per sample of forward, for the benchmark's GFLOP/s figures.
    virtual double forwardFlopsPerSample() const { return 0; }

protected:
    // A parameter of `count` floats filled with N(0, stddev) (or `constant` when stddev == 0) from rng.
    static Param makeParam(Backend& b, std::string name, std::size_t count, Rng& rng, float stddev,
                           float constant = 0.f);
    Backend& b_;
};

std::unique_ptr<Layer> makeLinear(Backend& b, Rng& rng, int in, int out, int rowsPerSample = 1);
std::unique_ptr<Layer> makeActivation(Backend& b, const std::string& kind, std::size_t size);  // "relu" | "gelu"
std::unique_ptr<Layer> makeConv2d(Backend& b, Rng& rng, int C, int H, int W, int Cout, int k, int stride, int pad);
std::unique_ptr<Layer> makeMaxPool2d(Backend& b, int C, int H, int W, int k, int stride);
std::unique_ptr<Layer> makeGlobalAvgPool(Backend& b, int C, int H, int W);
std::unique_ptr<Layer> makeLayerNorm(Backend& b, int rowsPerSample, int dim);
std::unique_ptr<Layer> makeSelfAttention(Backend& b, Rng& rng, int seqLen, int dim, int heads);
std::unique_ptr<Layer> makeEmbedding(Backend& b, Rng& rng, int vocab, int seqLen, int dim);
std::unique_ptr<Layer> makeSequenceMean(Backend& b, int seqLen, int dim);
// conv3x3 -> relu -> conv3x3, plus the input, then relu (shape preserving).
std::unique_ptr<Layer> makeResidualBlock(Backend& b, Rng& rng, int C, int H, int W);
// Pre-norm encoder block: x + attn(LN(x)), then + W2 gelu(W1 LN(.)).
std::unique_ptr<Layer> makeEncoderBlock(Backend& b, Rng& rng, int seqLen, int dim, int heads, int ffnDim);

// Mean softmax cross-entropy over a batch of logits rows. Not a Layer: it ends the chain and starts backward.
class SoftmaxCrossEntropy {
public:
    SoftmaxCrossEntropy(Backend& b, int classes);
    // Returns the mean loss (synchronises); dlogits = d(mean loss)/d(logits) * lossScale.
    float forwardBackward(const float* logits, const std::int32_t* labels, float* dlogits, int batch,
                          float lossScale = 1.f);
    float loss(const float* logits, const std::int32_t* labels, int batch);
    int classes() const { return classes_; }

private:
    Backend& b_;
    int classes_;
    Buffer<float> rowLoss_, scratch_;
    std::vector<float> host_;
};

}  // namespace pacer::kernels
