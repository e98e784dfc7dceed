// 2-D convolution as im2col + GEMM, and the ResNet-style basic block built from it.
#include "kernels/layer.h"

#include <cmath>
#include <stdexcept>

namespace pacer::kernels {

namespace {

// Input [C][H][W] per sample, weight [Cout][C*k*k], output [Cout][Ho][Wo]. One image at a time through a
// reused column buffer: memory stays at one image's columns instead of the whole batch's.
class Conv2d final : public Layer {
public:
    Conv2d(Backend& b, Rng& rng, int C, int H, int W, int Cout, int k, int stride, int pad)
        : Layer(b), C_(C), H_(H), W_(W), Cout_(Cout), k_(k), s_(stride), pad_(pad) {
        if (C <= 0 || H <= 0 || W <= 0 || Cout <= 0 || k <= 0 || stride <= 0 || pad < 0)
            throw std::invalid_argument("conv2d: channels, sizes, kernel and stride must be positive, pad >= 0");
        if (H + 2 * pad < k || W + 2 * pad < k) throw std::invalid_argument("conv2d: kernel larger than padded input");
        Ho_ = (H + 2 * pad - k) / stride + 1;
        Wo_ = (W + 2 * pad - k) / stride + 1;
        const std::size_t fanIn = std::size_t(C) * k * k;
        weight_ = makeParam(b, "weight", fanIn * Cout, rng, std::sqrt(2.f / float(fanIn)));
        bias_ = makeParam(b, "bias", std::size_t(Cout), rng, 0.f);
        col_ = Buffer<float>(b, fanIn * Ho_ * Wo_);
    }
    std::string kind() const override { return "conv2d"; }
    std::size_t inSize() const override { return std::size_t(C_) * H_ * W_; }
    std::size_t outSize() const override { return std::size_t(Cout_) * Ho_ * Wo_; }
    int outHeight() const { return Ho_; }
    int outWidth() const { return Wo_; }

    void forward(const float* x, float* y, int batch) override {
        x_ = x;
        const int ck = C_ * k_ * k_, hw = Ho_ * Wo_;
        for (int n = 0; n < batch; ++n) {
            b_.im2col(col_.data(), x + n * inSize(), C_, H_, W_, k_, s_, pad_, Ho_, Wo_);
            b_.gemm(false, false, Cout_, hw, ck, 1.f, weight_.value.data(), ck, col_.data(), hw, 0.f,
                    y + n * outSize(), hw);
        }
        b_.addChannelBias(y, bias_.value.data(), batch, Cout_, hw);
    }
    void backward(const float* dy, float* dx, int batch) override {
        const int ck = C_ * k_ * k_, hw = Ho_ * Wo_;
        b_.channelBiasGrad(bias_.grad.data(), dy, batch, Cout_, hw);
        for (int n = 0; n < batch; ++n) {
            const float* dyn = dy + n * outSize();
            b_.im2col(col_.data(), x_ + n * inSize(), C_, H_, W_, k_, s_, pad_, Ho_, Wo_);
            b_.gemm(false, true, Cout_, ck, hw, 1.f, dyn, hw, col_.data(), hw, n == 0 ? 0.f : 1.f,
                    weight_.grad.data(), ck);
            if (dx) {
                b_.gemm(true, false, ck, hw, Cout_, 1.f, weight_.value.data(), ck, dyn, hw, 0.f, col_.data(), hw);
                b_.col2im(dx + n * inSize(), col_.data(), C_, H_, W_, k_, s_, pad_, Ho_, Wo_);
            }
        }
    }
    std::vector<Param*> params() override { return {&weight_, &bias_}; }
    double forwardFlopsPerSample() const override { return 2.0 * Cout_ * C_ * k_ * k_ * Ho_ * Wo_; }

private:
    int C_, H_, W_, Cout_, k_, s_, pad_, Ho_ = 0, Wo_ = 0;
    Param weight_, bias_;
    Buffer<float> col_;
    const float* x_ = nullptr;
};

class ResidualBlock final : public Layer {
public:
    ResidualBlock(Backend& b, Rng& rng, int C, int H, int W)
        : Layer(b),
          conv1_(b, rng, C, H, W, C, 3, 1, 1),
          conv2_(b, rng, C, H, W, C, 3, 1, 1),
          relu1_(makeActivation(b, "relu", std::size_t(C) * H * W)),
          relu2_(makeActivation(b, "relu", std::size_t(C) * H * W)) {
        // Start each block near the identity so deep stacks train from the first step (as zero-init of the
        // last layer in a residual branch does).
        b.scale(conv2_.params()[0]->value.data(), 0.25f, conv2_.params()[0]->count);
        for (Param* p : conv1_.params()) p->name = "conv1." + p->name;
        for (Param* p : conv2_.params()) p->name = "conv2." + p->name;
    }
    std::string kind() const override { return "resblock"; }
    std::size_t inSize() const override { return conv1_.inSize(); }
    std::size_t outSize() const override { return conv1_.inSize(); }
    void forward(const float* x, float* y, int batch) override {
        const std::size_t n = inSize() * batch;
        h1_.ensure(b_, n);
        h2_.ensure(b_, n);
        sum_.ensure(b_, n);
        conv1_.forward(x, h1_.data(), batch);
        relu1_->forward(h1_.data(), h2_.data(), batch);
        conv2_.forward(h2_.data(), sum_.data(), batch);
        b_.add(sum_.data(), sum_.data(), x, n);
        relu2_->forward(sum_.data(), y, batch);
    }
    void backward(const float* dy, float* dx, int batch) override {
        const std::size_t n = inSize() * batch;
        dsum_.ensure(b_, n);
        dh_.ensure(b_, n);
        relu2_->backward(dy, dsum_.data(), batch);
        conv2_.backward(dsum_.data(), dh_.data(), batch);
        relu1_->backward(dh_.data(), dh_.data(), batch);
        conv1_.backward(dh_.data(), dx ? h1_.data() : nullptr, batch);  // h1 is no longer needed: reuse it
        if (dx) b_.add(dx, h1_.data(), dsum_.data(), n);
    }
    std::vector<Param*> params() override {
        std::vector<Param*> out;
        for (Layer* l : {static_cast<Layer*>(&conv1_), static_cast<Layer*>(&conv2_)})
            for (Param* p : l->params()) out.push_back(p);
        return out;
    }
    double forwardFlopsPerSample() const override {
        return conv1_.forwardFlopsPerSample() + conv2_.forwardFlopsPerSample();
    }

private:
    Conv2d conv1_, conv2_;
    std::unique_ptr<Layer> relu1_, relu2_;
    Buffer<float> h1_, h2_, sum_, dsum_, dh_;
};

}  // namespace

std::unique_ptr<Layer> makeConv2d(Backend& b, Rng& rng, int C, int H, int W, int Cout, int k, int stride, int pad) {
    return std::make_unique<Conv2d>(b, rng, C, H, W, Cout, k, stride, pad);
}

std::unique_ptr<Layer> makeResidualBlock(Backend& b, Rng& rng, int C, int H, int W) {
    return std::make_unique<ResidualBlock>(b, rng, C, H, W);
}

}  // namespace pacer::kernels
