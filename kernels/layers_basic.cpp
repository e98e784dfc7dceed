// Linear, activations, layer norm, pooling, embedding and the softmax cross-entropy loss.
#include "kernels/layer.h"

#include <cmath>
#include <numeric>
#include <stdexcept>

namespace pacer::kernels {

namespace {

void requirePositive(const char* layer, std::initializer_list<std::pair<const char*, long long>> dims) {
    for (const auto& [name, v] : dims)
        if (v <= 0)
            throw std::invalid_argument(std::string(layer) + ": " + name + " must be positive, got " +
                                        std::to_string(v));
}

// y = x W^T + b over rows of `in` features; W is [out][in].
class Linear final : public Layer {
public:
    Linear(Backend& b, Rng& rng, int in, int out, int rowsPerSample)
        : Layer(b), in_(in), out_(out), rows_(rowsPerSample) {
        requirePositive("linear", {{"in", in}, {"out", out}, {"rows per sample", rowsPerSample}});
        weight_ = makeParam(b, "weight", std::size_t(in) * out, rng, std::sqrt(2.f / float(in)));
        bias_ = makeParam(b, "bias", std::size_t(out), rng, 0.f);
    }
    std::string kind() const override { return "linear"; }
    std::size_t inSize() const override { return std::size_t(rows_) * in_; }
    std::size_t outSize() const override { return std::size_t(rows_) * out_; }
    void forward(const float* x, float* y, int batch) override {
        x_ = x;
        const int rows = batch * rows_;
        b_.gemm(false, true, rows, out_, in_, 1.f, x, in_, weight_.value.data(), in_, 0.f, y, out_);
        b_.addBias(y, bias_.value.data(), rows, out_);
    }
    void backward(const float* dy, float* dx, int batch) override {
        const int rows = batch * rows_;
        b_.gemm(true, false, out_, in_, rows, 1.f, dy, out_, x_, in_, 0.f, weight_.grad.data(), in_);
        b_.biasGrad(bias_.grad.data(), dy, rows, out_);
        if (dx) b_.gemm(false, false, rows, in_, out_, 1.f, dy, out_, weight_.value.data(), in_, 0.f, dx, in_);
    }
    std::vector<Param*> params() override { return {&weight_, &bias_}; }
    double forwardFlopsPerSample() const override { return 2.0 * rows_ * in_ * out_; }

private:
    int in_, out_, rows_;
    Param weight_, bias_;
    const float* x_ = nullptr;
};

class Activation final : public Layer {
public:
    Activation(Backend& b, std::string kind, std::size_t size) : Layer(b), kind_(std::move(kind)), size_(size) {
        if (kind_ != "relu" && kind_ != "gelu")
            throw std::invalid_argument("activation must be \"relu\" or \"gelu\", got \"" + kind_ + "\"");
        requirePositive("activation", {{"size", (long long)size}});
    }
    std::string kind() const override { return kind_; }
    std::size_t inSize() const override { return size_; }
    std::size_t outSize() const override { return size_; }
    void forward(const float* x, float* y, int batch) override {
        x_ = x;
        if (kind_ == "relu") b_.reluForward(y, x, size_ * batch);
        else b_.geluForward(y, x, size_ * batch);
    }
    void backward(const float* dy, float* dx, int batch) override {
        if (!dx) return;
        if (kind_ == "relu") b_.reluBackward(dx, dy, x_, size_ * batch);
        else b_.geluBackward(dx, dy, x_, size_ * batch);
    }

private:
    std::string kind_;
    std::size_t size_;
    const float* x_ = nullptr;
};

class LayerNorm final : public Layer {
public:
    LayerNorm(Backend& b, int rowsPerSample, int dim) : Layer(b), rows_(rowsPerSample), dim_(dim) {
        requirePositive("layer norm", {{"rows per sample", rowsPerSample}, {"dim", dim}});
        Rng unused(0);
        gamma_ = makeParam(b, "gamma", std::size_t(dim), unused, 0.f, 1.f);
        beta_ = makeParam(b, "beta", std::size_t(dim), unused, 0.f, 0.f);
    }
    std::string kind() const override { return "layernorm"; }
    std::size_t inSize() const override { return std::size_t(rows_) * dim_; }
    std::size_t outSize() const override { return inSize(); }
    void forward(const float* x, float* y, int batch) override {
        x_ = x;
        const int rows = batch * rows_;
        mean_.ensure(b_, rows);
        rstd_.ensure(b_, rows);
        b_.layerNormForward(y, mean_.data(), rstd_.data(), x, gamma_.value.data(), beta_.value.data(), rows, dim_,
                            1e-5f);
    }
    void backward(const float* dy, float* dx, int batch) override {
        const int rows = batch * rows_;
        if (!dx) {  // the parameter gradients still need a place to put dx
            scratch_.ensure(b_, std::size_t(rows) * dim_);
            dx = scratch_.data();
        }
        b_.layerNormBackward(dx, gamma_.grad.data(), beta_.grad.data(), dy, x_, mean_.data(), rstd_.data(),
                             gamma_.value.data(), rows, dim_);
    }
    std::vector<Param*> params() override { return {&gamma_, &beta_}; }

private:
    int rows_, dim_;
    Param gamma_, beta_;
    Buffer<float> mean_, rstd_, scratch_;
    const float* x_ = nullptr;
};

class MaxPool2d final : public Layer {
public:
    MaxPool2d(Backend& b, int C, int H, int W, int k, int stride)
        : Layer(b), C_(C), H_(H), W_(W), k_(k), s_(stride) {
        requirePositive("max pool", {{"channels", C}, {"height", H}, {"width", W}, {"kernel", k}, {"stride", stride}});
        if (k > H || k > W) throw std::invalid_argument("max pool: kernel larger than the input");
        Ho_ = (H - k) / stride + 1;
        Wo_ = (W - k) / stride + 1;
    }
    std::string kind() const override { return "maxpool"; }
    std::size_t inSize() const override { return std::size_t(C_) * H_ * W_; }
    std::size_t outSize() const override { return std::size_t(C_) * Ho_ * Wo_; }
    void forward(const float* x, float* y, int batch) override {
        argmax_.ensure(b_, outSize() * batch);
        b_.maxPoolForward(y, argmax_.data(), x, C_ * batch, H_, W_, k_, s_, Ho_, Wo_);
    }
    void backward(const float* dy, float* dx, int batch) override {
        if (dx) b_.maxPoolBackward(dx, dy, argmax_.data(), C_ * batch, H_, W_, Ho_, Wo_);
    }

private:
    int C_, H_, W_, k_, s_, Ho_ = 0, Wo_ = 0;
    Buffer<std::int32_t> argmax_;
};

// NCHW -> NC: the mean of each channel plane.
class GlobalAvgPool final : public Layer {
public:
    GlobalAvgPool(Backend& b, int C, int H, int W) : Layer(b), C_(C), HW_(H * W) {
        requirePositive("global average pool", {{"channels", C}, {"height", H}, {"width", W}});
    }
    std::string kind() const override { return "avgpool"; }
    std::size_t inSize() const override { return std::size_t(C_) * HW_; }
    std::size_t outSize() const override { return std::size_t(C_); }
    void forward(const float* x, float* y, int batch) override { b_.rowMeanForward(y, x, C_ * batch, HW_); }
    void backward(const float* dy, float* dx, int batch) override {
        if (dx) b_.rowMeanBackward(dx, dy, C_ * batch, HW_);
    }

private:
    int C_, HW_;
};

// [N][T][D] -> [N][D]: the mean over positions, the transformer's pooling before its classifier.
class SequenceMean final : public Layer {
public:
    SequenceMean(Backend& b, int T, int D) : Layer(b), T_(T), D_(D) {
        requirePositive("sequence mean", {{"sequence length", T}, {"dim", D}});
    }
    std::string kind() const override { return "seqmean"; }
    std::size_t inSize() const override { return std::size_t(T_) * D_; }
    std::size_t outSize() const override { return std::size_t(D_); }
    void forward(const float* x, float* y, int batch) override { b_.seqMeanForward(y, x, batch, T_, D_); }
    void backward(const float* dy, float* dx, int batch) override {
        if (dx) b_.seqMeanBackward(dx, dy, batch, T_, D_);
    }

private:
    int T_, D_;
};

// Token + learned position embedding. Input: int32 token ids (validated by the model against the vocabulary).
class Embedding final : public Layer {
public:
    Embedding(Backend& b, Rng& rng, int vocab, int T, int D) : Layer(b), vocab_(vocab), T_(T), D_(D) {
        requirePositive("embedding", {{"vocab", vocab}, {"sequence length", T}, {"dim", D}});
        table_ = makeParam(b, "table", std::size_t(vocab) * D, rng, 1.f);
        pos_ = makeParam(b, "position", std::size_t(T) * D, rng, 0.1f);
    }
    std::string kind() const override { return "embedding"; }
    bool takesTokens() const override { return true; }
    std::size_t inSize() const override { return std::size_t(T_); }
    std::size_t outSize() const override { return std::size_t(T_) * D_; }
    void forward(const float* x, float* y, int batch) override {
        ids_ = reinterpret_cast<const std::int32_t*>(x);
        b_.embeddingForward(y, ids_, table_.value.data(), pos_.value.data(), batch, T_, D_);
    }
    void backward(const float* dy, float* /*dx: ids have no gradient*/, int batch) override {
        b_.embeddingBackward(table_.grad.data(), pos_.grad.data(), dy, ids_, batch, T_, D_, vocab_);
    }
    std::vector<Param*> params() override { return {&table_, &pos_}; }
    int vocab() const { return vocab_; }

private:
    int vocab_, T_, D_;
    Param table_, pos_;
    const std::int32_t* ids_ = nullptr;
};

}  // namespace

Param Layer::makeParam(Backend& b, std::string name, std::size_t count, Rng& rng, float stddev, float constant) {
    Param p;
    p.name = std::move(name);
    p.count = count;
    p.value = Buffer<float>(b, count);
    p.grad = Buffer<float>(b, count);
    std::vector<float> host(count, constant);
    if (stddev != 0.f)
        for (float& v : host) v = rng.normal() * stddev;
    b.upload(p.value.data(), host.data(), count * sizeof(float));
    return p;
}

std::unique_ptr<Layer> makeLinear(Backend& b, Rng& rng, int in, int out, int rowsPerSample) {
    return std::make_unique<Linear>(b, rng, in, out, rowsPerSample);
}
std::unique_ptr<Layer> makeActivation(Backend& b, const std::string& kind, std::size_t size) {
    return std::make_unique<Activation>(b, kind, size);
}
std::unique_ptr<Layer> makeMaxPool2d(Backend& b, int C, int H, int W, int k, int stride) {
    return std::make_unique<MaxPool2d>(b, C, H, W, k, stride);
}
std::unique_ptr<Layer> makeGlobalAvgPool(Backend& b, int C, int H, int W) {
    return std::make_unique<GlobalAvgPool>(b, C, H, W);
}
std::unique_ptr<Layer> makeLayerNorm(Backend& b, int rowsPerSample, int dim) {
    return std::make_unique<LayerNorm>(b, rowsPerSample, dim);
}
std::unique_ptr<Layer> makeEmbedding(Backend& b, Rng& rng, int vocab, int seqLen, int dim) {
    return std::make_unique<Embedding>(b, rng, vocab, seqLen, dim);
}
std::unique_ptr<Layer> makeSequenceMean(Backend& b, int seqLen, int dim) {
    return std::make_unique<SequenceMean>(b, seqLen, dim);
}

SoftmaxCrossEntropy::SoftmaxCrossEntropy(Backend& b, int classes) : b_(b), classes_(classes) {
    if (classes < 2) throw std::invalid_argument("cross-entropy needs at least 2 classes, got " + std::to_string(classes));
}

float SoftmaxCrossEntropy::forwardBackward(const float* logits, const std::int32_t* labels, float* dlogits,
                                           int batch, float lossScale) {
    rowLoss_.ensure(b_, batch);
    b_.crossEntropy(rowLoss_.data(), dlogits, logits, labels, batch, classes_, lossScale / float(batch));
    host_.resize(batch);
    b_.download(host_.data(), rowLoss_.data(), sizeof(float) * batch);
    double s = 0;
    for (float v : host_) s += v;
    return float(s / batch);
}

float SoftmaxCrossEntropy::loss(const float* logits, const std::int32_t* labels, int batch) {
    scratch_.ensure(b_, std::size_t(batch) * classes_);
    return forwardBackward(logits, labels, scratch_.data(), batch);
}

}  // namespace pacer::kernels
