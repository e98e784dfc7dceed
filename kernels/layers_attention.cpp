// Multi-head self-attention and the pre-norm transformer encoder block.
#include "kernels/layer.h"

#include <cmath>
#include <stdexcept>

namespace pacer::kernels {

namespace {

// x [N][T][D] -> qkv = x Wqkv^T + b ([N][T][3D], heads side by side inside each of Q, K, V),
// P = softmax(Q K^T / sqrt(dh)) per head, O = P V, y = O Wo^T + bo. The per-head products are strided batched
// GEMMs over the heads of one sample, reading Q, K, V in place through their row stride 3D.
class SelfAttention final : public Layer {
public:
    SelfAttention(Backend& b, Rng& rng, int T, int D, int H) : Layer(b), T_(T), D_(D), H_(H) {
        if (T <= 0 || D <= 0 || H <= 0) throw std::invalid_argument("attention: sizes must be positive");
        if (D % H != 0)
            throw std::invalid_argument("attention: width " + std::to_string(D) + " is not divisible by " +
                                        std::to_string(H) + " heads");
        dh_ = D / H;
        qkv_ = makeLinear(b, rng, D, 3 * D, T);
        out_ = makeLinear(b, rng, D, D, T);
        b.scale(out_->params()[0]->value.data(), 0.5f, out_->params()[0]->count);
        for (Param* p : qkv_->params()) p->name = "qkv." + p->name;
        for (Param* p : out_->params()) p->name = "out." + p->name;
    }
    std::string kind() const override { return "attention"; }
    std::size_t inSize() const override { return std::size_t(T_) * D_; }
    std::size_t outSize() const override { return inSize(); }

    void forward(const float* x, float* y, int batch) override {
        const std::size_t tt = std::size_t(T_) * T_;
        qkv_buf_.ensure(b_, std::size_t(batch) * T_ * 3 * D_);
        probs_.ensure(b_, std::size_t(batch) * H_ * tt);
        o_.ensure(b_, std::size_t(batch) * T_ * D_);
        qkv_->forward(x, qkv_buf_.data(), batch);
        const float scale = 1.f / std::sqrt(float(dh_));
        for (int n = 0; n < batch; ++n) {
            const float* q = sampleQkv(n);
            b_.gemmBatched(false, true, T_, T_, dh_, scale, q, 3 * D_, dh_, q + D_, 3 * D_, dh_, 0.f,
                           probs_.data() + n * H_ * tt, T_, tt, H_);
        }
        b_.softmaxForward(probs_.data(), probs_.data(), batch * H_ * T_, T_);
        for (int n = 0; n < batch; ++n) {
            const float* v = sampleQkv(n) + 2 * D_;
            b_.gemmBatched(false, false, T_, dh_, T_, 1.f, probs_.data() + n * H_ * tt, T_, tt, v, 3 * D_, dh_, 0.f,
                           o_.data() + std::size_t(n) * T_ * D_, D_, dh_, H_);
        }
        out_->forward(o_.data(), y, batch);
    }

    void backward(const float* dy, float* dx, int batch) override {
        const std::size_t tt = std::size_t(T_) * T_;
        dqkv_.ensure(b_, std::size_t(batch) * T_ * 3 * D_);
        dprobs_.ensure(b_, std::size_t(batch) * H_ * tt);
        do_.ensure(b_, std::size_t(batch) * T_ * D_);
        out_->backward(dy, do_.data(), batch);
        for (int n = 0; n < batch; ++n) {
            const float* v = sampleQkv(n) + 2 * D_;
            const float* don = do_.data() + std::size_t(n) * T_ * D_;
            float* dpn = dprobs_.data() + n * H_ * tt;
            b_.gemmBatched(false, true, T_, T_, dh_, 1.f, don, D_, dh_, v, 3 * D_, dh_, 0.f, dpn, T_, tt, H_);
            b_.gemmBatched(true, false, T_, dh_, T_, 1.f, probs_.data() + n * H_ * tt, T_, tt, don, D_, dh_, 0.f,
                           sampleDqkv(n) + 2 * D_, 3 * D_, dh_, H_);
        }
        b_.softmaxBackward(dprobs_.data(), dprobs_.data(), probs_.data(), batch * H_ * T_, T_);
        const float scale = 1.f / std::sqrt(float(dh_));
        for (int n = 0; n < batch; ++n) {
            const float* q = sampleQkv(n);
            const float* dsn = dprobs_.data() + n * H_ * tt;
            b_.gemmBatched(false, false, T_, dh_, T_, scale, dsn, T_, tt, q + D_, 3 * D_, dh_, 0.f, sampleDqkv(n),
                           3 * D_, dh_, H_);
            b_.gemmBatched(true, false, T_, dh_, T_, scale, dsn, T_, tt, q, 3 * D_, dh_, 0.f, sampleDqkv(n) + D_,
                           3 * D_, dh_, H_);
        }
        qkv_->backward(dqkv_.data(), dx, batch);
    }
    std::vector<Param*> params() override {
        std::vector<Param*> out = qkv_->params();
        for (Param* p : out_->params()) out.push_back(p);
        return out;
    }
    double forwardFlopsPerSample() const override {
        return qkv_->forwardFlopsPerSample() + out_->forwardFlopsPerSample() + 4.0 * T_ * T_ * D_;
    }

private:
    const float* sampleQkv(int n) const { return qkv_buf_.data() + std::size_t(n) * T_ * 3 * D_; }
    float* sampleDqkv(int n) const { return dqkv_.data() + std::size_t(n) * T_ * 3 * D_; }

    int T_, D_, H_, dh_ = 0;
    std::unique_ptr<Layer> qkv_, out_;
    Buffer<float> qkv_buf_, probs_, o_, dqkv_, dprobs_, do_;
};

class EncoderBlock final : public Layer {
public:
    EncoderBlock(Backend& b, Rng& rng, int T, int D, int H, int F) : Layer(b), T_(T), D_(D), F_(F) {
        if (F <= 0) throw std::invalid_argument("encoder block: feed-forward width must be positive");
        ln1_ = makeLayerNorm(b, T, D);
        attn_ = makeSelfAttention(b, rng, T, D, H);
        ln2_ = makeLayerNorm(b, T, D);
        fc1_ = makeLinear(b, rng, D, F, T);
        act_ = makeActivation(b, "gelu", std::size_t(T) * F);
        fc2_ = makeLinear(b, rng, F, D, T);
        b.scale(fc2_->params()[0]->value.data(), 0.5f, fc2_->params()[0]->count);
        const std::pair<const char*, Layer*> named[] = {
            {"ln1.", ln1_.get()}, {"attn.", attn_.get()}, {"ln2.", ln2_.get()}, {"fc1.", fc1_.get()}, {"fc2.", fc2_.get()}};
        for (const auto& [prefix, layer] : named)
            for (Param* p : layer->params()) {
                p->name = prefix + p->name;
                params_.push_back(p);
            }
    }
    std::string kind() const override { return "encoder"; }
    std::size_t inSize() const override { return std::size_t(T_) * D_; }
    std::size_t outSize() const override { return inSize(); }

    void forward(const float* x, float* y, int batch) override {
        const std::size_t nd = std::size_t(batch) * T_ * D_, nf = std::size_t(batch) * T_ * F_;
        a1_.ensure(b_, nd);
        x1_.ensure(b_, nd);
        b1_.ensure(b_, nd);
        f1_.ensure(b_, nf);
        f2_.ensure(b_, nf);
        ln1_->forward(x, a1_.data(), batch);
        attn_->forward(a1_.data(), x1_.data(), batch);
        b_.add(x1_.data(), x1_.data(), x, nd);
        ln2_->forward(x1_.data(), b1_.data(), batch);
        fc1_->forward(b1_.data(), f1_.data(), batch);
        act_->forward(f1_.data(), f2_.data(), batch);
        fc2_->forward(f2_.data(), y, batch);
        b_.add(y, y, x1_.data(), nd);
    }
    void backward(const float* dy, float* dx, int batch) override {
        const std::size_t nd = std::size_t(batch) * T_ * D_, nf = std::size_t(batch) * T_ * F_;
        dx1_.ensure(b_, nd);
        dtmp_.ensure(b_, nd);
        df_.ensure(b_, nf);
        fc2_->backward(dy, df_.data(), batch);
        act_->backward(df_.data(), df_.data(), batch);
        fc1_->backward(df_.data(), dtmp_.data(), batch);
        ln2_->backward(dtmp_.data(), dx1_.data(), batch);
        b_.add(dx1_.data(), dx1_.data(), dy, nd);
        attn_->backward(dx1_.data(), dtmp_.data(), batch);
        ln1_->backward(dtmp_.data(), dx ? a1_.data() : nullptr, batch);  // a1 is dead by now: reuse it
        if (dx) b_.add(dx, a1_.data(), dx1_.data(), nd);
    }
    std::vector<Param*> params() override { return params_; }
    double forwardFlopsPerSample() const override {
        return attn_->forwardFlopsPerSample() + fc1_->forwardFlopsPerSample() + fc2_->forwardFlopsPerSample();
    }

private:
    int T_, D_, F_;
    std::unique_ptr<Layer> ln1_, attn_, ln2_, fc1_, act_, fc2_;
    std::vector<Param*> params_;
    Buffer<float> a1_, x1_, b1_, f1_, f2_, dx1_, dtmp_, df_;
};

}  // namespace

std::unique_ptr<Layer> makeSelfAttention(Backend& b, Rng& rng, int seqLen, int dim, int heads) {
    return std::make_unique<SelfAttention>(b, rng, seqLen, dim, heads);
}

std::unique_ptr<Layer> makeEncoderBlock(Backend& b, Rng& rng, int seqLen, int dim, int heads, int ffnDim) {
    return std::make_unique<EncoderBlock>(b, rng, seqLen, dim, heads, ffnDim);
}

}  // namespace pacer::kernels
