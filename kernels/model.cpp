#include "kernels/model.h"

#include "kernels/backend.h"
#include "kernels/layer.h"

#include <stdexcept>

namespace pacer::kernels {

namespace {

// One chain of layers on one backend, ending in the softmax cross-entropy loss.
class ChainModel final : public Model {
public:
    ChainModel(const ModelSpec& spec, std::uint64_t seed, Device device)
        : spec_(spec), device_(device), backend_(makeBackend(device)), loss_(*backend_, spec.classes) {
        spec_.validate();
        Rng rng(mixKey(seed, 0x6d6f64656c696e69ull));
        build(rng);
        for (std::size_t i = 0; i < layers_.size(); ++i) {
            const std::string lname = layerName(int(i));
            for (Param* p : layers_[i]->params())
                params_.push_back(ParamView{lname + "." + p->name, int(i), p->value.data(), p->grad.data(), p->count});
            maxAct_ = std::max(maxAct_, std::max(layers_[i]->inSize(), layers_[i]->outSize()));
        }
        for (std::size_t p = 0; p < params_.size(); ++p) events_.push_back(backend_->createEvent());
    }
    ~ChainModel() override {
        for (void* e : events_) backend_->destroyEvent(e);
    }

    const ModelSpec& spec() const override { return spec_; }
    Device device() const override { return device_; }
    int layerCount() const override { return int(layers_.size()); }
    std::string layerName(int layer) const override {
        check(layer);
        return layers_[layer]->kind() + std::to_string(layer);
    }
    std::vector<ParamView> parameters() override { return params_; }

    float trainStep(const Batch& batch, const LayerHooks& hooks) override {
        const int n = stage(batch);
        forward(n, &hooks);
        const float loss = loss_.forwardBackward(acts_.back().data(), labels_.data(), gradA_.data(), n);
        float* dy = gradA_.data();
        float* dx = gradB_.data();
        std::size_t p = params_.size();
        for (int i = layerCount() - 1; i >= 0; --i) {
            if (hooks.beforeBackward) hooks.beforeBackward(i);
            layers_[i]->backward(dy, i > 0 ? dx : nullptr, n);
            while (p > 0 && params_[p - 1].layer == i) backend_->recordEvent(events_[--p]);
            if (hooks.afterBackward) hooks.afterBackward(i);
            std::swap(dy, dx);
        }
        return loss;
    }
    float evaluateLoss(const Batch& batch) override {
        const int n = stage(batch);
        forward(n, nullptr);
        return loss_.loss(acts_.back().data(), labels_.data(), n);
    }
    void* gradientReadyEvent(int param) override {
        if (param < 0 || param >= int(params_.size()))
            throw std::invalid_argument("gradientReadyEvent: no parameter " + std::to_string(param));
        return events_[param];
    }
    void* computeStream() override { return backend_->stream(); }
    double layerForwardFlops(int layer) const override {
        check(layer);
        return layers_[layer]->forwardFlopsPerSample();
    }
    std::vector<std::vector<float>> parameterValues() override { return hostCopies(false); }
    std::vector<std::vector<float>> parameterGradients() override { return hostCopies(true); }

private:
    void check(int layer) const {
        if (layer < 0 || layer >= int(layers_.size()))
            throw std::invalid_argument("model: no layer " + std::to_string(layer));
    }
    void add(std::unique_ptr<Layer> l) {
        if (!layers_.empty() && layers_.back()->outSize() != l->inSize())
            throw std::logic_error("model: layer sizes do not chain");  // a bug in build(), not bad input
        layers_.push_back(std::move(l));
    }
    void build(Rng& rng) {
        Backend& b = *backend_;
        const ModelSpec& s = spec_;
        if (s.family == "mlp") {
            int in = s.input;
            for (int i = 0; i + 1 < s.depth; ++i) {
                add(makeLinear(b, rng, in, s.width));
                add(makeActivation(b, s.activation, std::size_t(s.width)));
                in = s.width;
            }
            add(makeLinear(b, rng, in, s.classes));
        } else if (s.family == "cnn") {
            int c = s.width, hw = s.image;
            add(makeConv2d(b, rng, s.channels, hw, hw, c, 3, 1, 1));
            add(makeActivation(b, "relu", std::size_t(c) * hw * hw));
            for (int st = 0; st < s.stages; ++st) {
                if (st > 0) {  // downsample: halve the image, double the channels
                    add(makeMaxPool2d(b, c, hw, hw, 2, 2));
                    hw /= 2;
                    add(makeConv2d(b, rng, c, hw, hw, 2 * c, 3, 1, 1));
                    c *= 2;
                    add(makeActivation(b, "relu", std::size_t(c) * hw * hw));
                }
                for (int i = 0; i < s.depth; ++i) add(makeResidualBlock(b, rng, c, hw, hw));
            }
            add(makeGlobalAvgPool(b, c, hw, hw));
            add(makeLinear(b, rng, c, s.classes));
        } else {
            add(makeEmbedding(b, rng, s.vocab, s.seqLen, s.width));
            for (int i = 0; i < s.depth; ++i)
                add(makeEncoderBlock(b, rng, s.seqLen, s.width, s.heads, s.width * s.ffnMult));
            add(makeLayerNorm(b, s.seqLen, s.width));
            add(makeSequenceMean(b, s.seqLen, s.width));
            add(makeLinear(b, rng, s.width, s.classes));
        }
    }

    // Checks the batch against the model and puts inputs and labels on the device; returns the batch size.
    int stage(const Batch& batch) {
        const int n = batch.size;
        if (n < 1) throw std::invalid_argument("batch: size must be >= 1, got " + std::to_string(n));
        if (int(batch.labels.size()) != n)
            throw std::invalid_argument("batch: " + std::to_string(batch.labels.size()) + " labels for " +
                                        std::to_string(n) + " samples");
        for (int l : batch.labels)
            if (l < 0 || l >= spec_.classes)
                throw std::invalid_argument("batch: label " + std::to_string(l) + " outside [0, " +
                                            std::to_string(spec_.classes) + ")");
        const std::size_t in = spec_.inputSize() * n;
        input_.ensure(*backend_, in);
        if (spec_.tokenInput()) {
            if (batch.tokens.size() != in)
                throw std::invalid_argument("batch: expected " + std::to_string(in) + " token ids, got " +
                                            std::to_string(batch.tokens.size()));
            for (std::int32_t t : batch.tokens)
                if (t < 0 || t >= spec_.vocab)
                    throw std::invalid_argument("batch: token id " + std::to_string(t) + " outside vocabulary of " +
                                                std::to_string(spec_.vocab));
            backend_->upload(input_.data(), batch.tokens.data(), in * sizeof(std::int32_t));
        } else {
            if (batch.inputs.size() != in)
                throw std::invalid_argument("batch: expected " + std::to_string(in) + " input floats, got " +
                                            std::to_string(batch.inputs.size()));
            backend_->upload(input_.data(), batch.inputs.data(), in * sizeof(float));
        }
        labels_.ensure(*backend_, n);
        static_assert(sizeof(int) == sizeof(std::int32_t));
        backend_->upload(labels_.data(), batch.labels.data(), n * sizeof(std::int32_t));
        acts_.resize(layers_.size());
        for (std::size_t i = 0; i < layers_.size(); ++i) acts_[i].ensure(*backend_, layers_[i]->outSize() * n);
        gradA_.ensure(*backend_, maxAct_ * n);
        gradB_.ensure(*backend_, maxAct_ * n);
        return n;
    }
    void forward(int n, const LayerHooks* hooks) {
        const float* x = input_.data();
        for (int i = 0; i < layerCount(); ++i) {
            if (hooks && hooks->beforeForward) hooks->beforeForward(i);
            layers_[i]->forward(x, acts_[i].data(), n);
            if (hooks && hooks->afterForward) hooks->afterForward(i);
            x = acts_[i].data();
        }
    }
    std::vector<std::vector<float>> hostCopies(bool grads) {
        std::vector<std::vector<float>> out;
        for (const ParamView& p : params_) {
            out.emplace_back(p.count);
            backend_->download(out.back().data(), grads ? p.grad : p.value, p.count * sizeof(float));
        }
        return out;
    }

    ModelSpec spec_;
    Device device_;
    std::unique_ptr<Backend> backend_;
    std::vector<std::unique_ptr<Layer>> layers_;
    SoftmaxCrossEntropy loss_;
    std::vector<ParamView> params_;
    std::vector<void*> events_;
    std::size_t maxAct_ = 0;
    Buffer<float> input_;  // floats, or int32 token ids for token models (same width)
    Buffer<std::int32_t> labels_;
    std::vector<Buffer<float>> acts_;
    Buffer<float> gradA_, gradB_;
};

}  // namespace

Model::~Model() = default;

std::unique_ptr<Model> Model::create(const ModelSpec& spec, std::uint64_t seed, Device device) {
    return std::make_unique<ChainModel>(spec, seed, device);
}

}  // namespace pacer::kernels
