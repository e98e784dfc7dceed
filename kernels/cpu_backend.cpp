// CPU implementation of the kernel primitives: OpenBLAS sgemm for the matrix products, plain loops written so the
// compiler can vectorise them for everything else. Single-threaded outside OpenBLAS on purpose (one rank, one
// core by default).
#include "kernels/backend.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>

namespace pacer::kernels {

namespace {

constexpr float kGeluC = 0.7978845608028654f;  // sqrt(2/pi)
constexpr float kGeluA = 0.044715f;

class CpuBackend final : public Backend {
public:
    Device device() const override { return Device::Cpu; }

    void* allocBytes(std::size_t bytes) override {
        void* p = std::calloc(1, bytes);
        if (!p) throw std::bad_alloc();
        return p;
    }
    void freeBytes(void* p) override { std::free(p); }
    void upload(void* dst, const void* src, std::size_t bytes) override { std::memcpy(dst, src, bytes); }
    void download(void* dst, const void* src, std::size_t bytes) override { std::memcpy(dst, src, bytes); }
    void copy(float* dst, const float* src, std::size_t n) override { std::memmove(dst, src, n * sizeof(float)); }
    void fill(float* dst, float value, std::size_t n) override { std::fill(dst, dst + n, value); }
    void synchronize() override {}

    void gemm(bool ta, bool tb, int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
              float beta, float* C, int ldc) override {
        cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, M, N, K, alpha,
                    A, lda, B, ldb, beta, C, ldc);
    }
    void gemmBatched(bool ta, bool tb, int M, int N, int K, float alpha, const float* A, int lda,
                     std::int64_t strideA, const float* B, int ldb, std::int64_t strideB, float beta, float* C,
                     int ldc, std::int64_t strideC, int batch) override {
        for (int i = 0; i < batch; ++i)
            gemm(ta, tb, M, N, K, alpha, A + i * strideA, lda, B + i * strideB, ldb, beta, C + i * strideC, ldc);
    }

    void add(float* y, const float* a, const float* b, std::size_t n) override {
        for (std::size_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
    }
    void addBias(float* y, const float* bias, int rows, int cols) override {
        for (int r = 0; r < rows; ++r) {
            float* row = y + std::size_t(r) * cols;
            for (int c = 0; c < cols; ++c) row[c] += bias[c];
        }
    }
    void biasGrad(float* db, const float* dy, int rows, int cols) override {
        std::fill(db, db + cols, 0.f);
        for (int r = 0; r < rows; ++r) {
            const float* row = dy + std::size_t(r) * cols;
            for (int c = 0; c < cols; ++c) db[c] += row[c];
        }
    }
    void addChannelBias(float* y, const float* bias, int batch, int channels, int inner) override {
        for (int n = 0; n < batch; ++n)
            for (int c = 0; c < channels; ++c) {
                float* p = y + (std::size_t(n) * channels + c) * inner;
                for (int i = 0; i < inner; ++i) p[i] += bias[c];
            }
    }
    void channelBiasGrad(float* db, const float* dy, int batch, int channels, int inner) override {
        for (int c = 0; c < channels; ++c) {
            float s = 0.f;
            for (int n = 0; n < batch; ++n) {
                const float* p = dy + (std::size_t(n) * channels + c) * inner;
                for (int i = 0; i < inner; ++i) s += p[i];
            }
            db[c] = s;
        }
    }

    void reluForward(float* y, const float* x, std::size_t n) override {
        for (std::size_t i = 0; i < n; ++i) y[i] = x[i] > 0.f ? x[i] : 0.f;
    }
    void reluBackward(float* dx, const float* dy, const float* x, std::size_t n) override {
        for (std::size_t i = 0; i < n; ++i) dx[i] = x[i] > 0.f ? dy[i] : 0.f;
    }
    void geluForward(float* y, const float* x, std::size_t n) override {
        for (std::size_t i = 0; i < n; ++i) {
            const float v = x[i];
            y[i] = 0.5f * v * (1.f + std::tanh(kGeluC * (v + kGeluA * v * v * v)));
        }
    }
    void geluBackward(float* dx, const float* dy, const float* x, std::size_t n) override {
        for (std::size_t i = 0; i < n; ++i) {
            const float v = x[i];
            const float t = std::tanh(kGeluC * (v + kGeluA * v * v * v));
            const float dt = (1.f - t * t) * kGeluC * (1.f + 3.f * kGeluA * v * v);
            dx[i] = dy[i] * (0.5f * (1.f + t) + 0.5f * v * dt);
        }
    }

    void layerNormForward(float* y, float* mean, float* rstd, const float* x, const float* gamma,
                          const float* beta, int rows, int cols, float eps) override {
        for (int r = 0; r < rows; ++r) {
            const float* xr = x + std::size_t(r) * cols;
            float* yr = y + std::size_t(r) * cols;
            float m = 0.f;
            for (int c = 0; c < cols; ++c) m += xr[c];
            m /= float(cols);
            float var = 0.f;
            for (int c = 0; c < cols; ++c) var += (xr[c] - m) * (xr[c] - m);
            var /= float(cols);
            const float rs = 1.f / std::sqrt(var + eps);
            for (int c = 0; c < cols; ++c) yr[c] = (xr[c] - m) * rs * gamma[c] + beta[c];
            mean[r] = m;
            rstd[r] = rs;
        }
    }
    void layerNormBackward(float* dx, float* dgamma, float* dbeta, const float* dy, const float* x,
                           const float* mean, const float* rstd, const float* gamma, int rows, int cols) override {
        std::fill(dgamma, dgamma + cols, 0.f);
        std::fill(dbeta, dbeta + cols, 0.f);
        for (int r = 0; r < rows; ++r) {
            const float* xr = x + std::size_t(r) * cols;
            const float* dyr = dy + std::size_t(r) * cols;
            float* dxr = dx + std::size_t(r) * cols;
            float sumG = 0.f, sumGX = 0.f;  // sums of g = dy*gamma and g*xhat over the row
            for (int c = 0; c < cols; ++c) {
                const float xhat = (xr[c] - mean[r]) * rstd[r];
                const float g = dyr[c] * gamma[c];
                sumG += g;
                sumGX += g * xhat;
                dgamma[c] += dyr[c] * xhat;
                dbeta[c] += dyr[c];
            }
            const float inv = 1.f / float(cols);
            for (int c = 0; c < cols; ++c) {
                const float xhat = (xr[c] - mean[r]) * rstd[r];
                dxr[c] = rstd[r] * (dyr[c] * gamma[c] - inv * sumG - xhat * inv * sumGX);
            }
        }
    }

    void softmaxForward(float* y, const float* x, int rows, int cols) override {
        for (int r = 0; r < rows; ++r) {
            const float* xr = x + std::size_t(r) * cols;
            float* yr = y + std::size_t(r) * cols;
            float mx = -std::numeric_limits<float>::infinity();
            for (int c = 0; c < cols; ++c) mx = std::max(mx, xr[c]);
            float s = 0.f;
            for (int c = 0; c < cols; ++c) {
                yr[c] = std::exp(xr[c] - mx);
                s += yr[c];
            }
            const float inv = 1.f / s;
            for (int c = 0; c < cols; ++c) yr[c] *= inv;
        }
    }
    void softmaxBackward(float* dx, const float* dy, const float* y, int rows, int cols) override {
        for (int r = 0; r < rows; ++r) {
            const float* dyr = dy + std::size_t(r) * cols;
            const float* yr = y + std::size_t(r) * cols;
            float* dxr = dx + std::size_t(r) * cols;
            float dot = 0.f;
            for (int c = 0; c < cols; ++c) dot += dyr[c] * yr[c];
            for (int c = 0; c < cols; ++c) dxr[c] = yr[c] * (dyr[c] - dot);
        }
    }
    void crossEntropy(float* rowLoss, float* dlogits, const float* logits, const std::int32_t* labels, int rows,
                      int cols, float gradScale) override {
        for (int r = 0; r < rows; ++r) {
            const float* lr = logits + std::size_t(r) * cols;
            float* dr = dlogits + std::size_t(r) * cols;
            float mx = -std::numeric_limits<float>::infinity();
            for (int c = 0; c < cols; ++c) mx = std::max(mx, lr[c]);
            float s = 0.f;
            for (int c = 0; c < cols; ++c) s += std::exp(lr[c] - mx);
            const float logZ = mx + std::log(s);
            rowLoss[r] = logZ - lr[labels[r]];
            for (int c = 0; c < cols; ++c)
                dr[c] = (std::exp(lr[c] - logZ) - (c == labels[r] ? 1.f : 0.f)) * gradScale;
        }
    }

    void im2col(float* col, const float* x, int C, int H, int W, int k, int stride, int pad, int Ho,
                int Wo) override {
        for (int c = 0; c < C; ++c)
            for (int ki = 0; ki < k; ++ki)
                for (int kj = 0; kj < k; ++kj) {
                    float* out = col + ((std::size_t(c) * k + ki) * k + kj) * Ho * Wo;
                    for (int oy = 0; oy < Ho; ++oy) {
                        const int iy = oy * stride - pad + ki;
                        for (int ox = 0; ox < Wo; ++ox) {
                            const int ix = ox * stride - pad + kj;
                            out[oy * Wo + ox] = (iy >= 0 && iy < H && ix >= 0 && ix < W)
                                                    ? x[(std::size_t(c) * H + iy) * W + ix]
                                                    : 0.f;
                        }
                    }
                }
    }
    void col2im(float* dx, const float* col, int C, int H, int W, int k, int stride, int pad, int Ho,
                int Wo) override {
        std::fill(dx, dx + std::size_t(C) * H * W, 0.f);
        for (int c = 0; c < C; ++c)
            for (int ki = 0; ki < k; ++ki)
                for (int kj = 0; kj < k; ++kj) {
                    const float* in = col + ((std::size_t(c) * k + ki) * k + kj) * Ho * Wo;
                    for (int oy = 0; oy < Ho; ++oy) {
                        const int iy = oy * stride - pad + ki;
                        if (iy < 0 || iy >= H) continue;
                        for (int ox = 0; ox < Wo; ++ox) {
                            const int ix = ox * stride - pad + kj;
                            if (ix >= 0 && ix < W) dx[(std::size_t(c) * H + iy) * W + ix] += in[oy * Wo + ox];
                        }
                    }
                }
    }
    void maxPoolForward(float* y, std::int32_t* argmax, const float* x, int planes, int H, int W, int k,
                        int stride, int Ho, int Wo) override {
        for (int p = 0; p < planes; ++p) {
            const float* xp = x + std::size_t(p) * H * W;
            for (int oy = 0; oy < Ho; ++oy)
                for (int ox = 0; ox < Wo; ++ox) {
                    int best = (oy * stride) * W + ox * stride;
                    for (int ki = 0; ki < k; ++ki)
                        for (int kj = 0; kj < k; ++kj) {
                            const int idx = (oy * stride + ki) * W + ox * stride + kj;
                            if (xp[idx] > xp[best]) best = idx;
                        }
                    const std::size_t o = (std::size_t(p) * Ho + oy) * Wo + ox;
                    y[o] = xp[best];
                    argmax[o] = best;
                }
        }
    }
    void maxPoolBackward(float* dx, const float* dy, const std::int32_t* argmax, int planes, int H, int W, int Ho,
                         int Wo) override {
        std::fill(dx, dx + std::size_t(planes) * H * W, 0.f);
        for (int p = 0; p < planes; ++p)
            for (int o = 0; o < Ho * Wo; ++o)
                dx[std::size_t(p) * H * W + argmax[std::size_t(p) * Ho * Wo + o]] += dy[std::size_t(p) * Ho * Wo + o];
    }
    void rowMeanForward(float* y, const float* x, int rows, int cols) override {
        for (int r = 0; r < rows; ++r) {
            float s = 0.f;
            for (int c = 0; c < cols; ++c) s += x[std::size_t(r) * cols + c];
            y[r] = s / float(cols);
        }
    }
    void rowMeanBackward(float* dx, const float* dy, int rows, int cols) override {
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < cols; ++c) dx[std::size_t(r) * cols + c] = dy[r] / float(cols);
    }
    void seqMeanForward(float* y, const float* x, int N, int T, int D) override {
        std::fill(y, y + std::size_t(N) * D, 0.f);
        for (int n = 0; n < N; ++n)
            for (int t = 0; t < T; ++t)
                for (int d = 0; d < D; ++d) y[std::size_t(n) * D + d] += x[(std::size_t(n) * T + t) * D + d];
        scale(y, 1.f / float(T), std::size_t(N) * D);
    }
    void seqMeanBackward(float* dx, const float* dy, int N, int T, int D) override {
        for (int n = 0; n < N; ++n)
            for (int t = 0; t < T; ++t)
                for (int d = 0; d < D; ++d) dx[(std::size_t(n) * T + t) * D + d] = dy[std::size_t(n) * D + d] / float(T);
    }

    void embeddingForward(float* y, const std::int32_t* ids, const float* table, const float* pos, int N, int T,
                          int D) override {
        for (int n = 0; n < N; ++n)
            for (int t = 0; t < T; ++t) {
                const float* e = table + std::size_t(ids[n * T + t]) * D;
                const float* p = pos + std::size_t(t) * D;
                float* out = y + (std::size_t(n) * T + t) * D;
                for (int d = 0; d < D; ++d) out[d] = e[d] + p[d];
            }
    }
    void embeddingBackward(float* dtable, float* dpos, const float* dy, const std::int32_t* ids, int N, int T,
                           int D, int vocab) override {
        std::fill(dtable, dtable + std::size_t(vocab) * D, 0.f);
        std::fill(dpos, dpos + std::size_t(T) * D, 0.f);
        for (int n = 0; n < N; ++n)
            for (int t = 0; t < T; ++t) {
                const float* g = dy + (std::size_t(n) * T + t) * D;
                float* e = dtable + std::size_t(ids[n * T + t]) * D;
                float* p = dpos + std::size_t(t) * D;
                for (int d = 0; d < D; ++d) {
                    e[d] += g[d];
                    p[d] += g[d];
                }
            }
    }

    void scale(float* x, float s, std::size_t n) override {
        for (std::size_t i = 0; i < n; ++i) x[i] *= s;
    }
    void sgdStep(float* w, float* g, float* v, std::size_t n, float gradScale, float lr, float momentum,
                 float weightDecay) override {
        for (std::size_t i = 0; i < n; ++i) {
            g[i] *= gradScale;
            v[i] = momentum * v[i] + g[i] + weightDecay * w[i];
            w[i] -= lr * v[i];
        }
    }
    void adamStep(float* w, float* g, float* m, float* v, std::size_t n, float gradScale, float lr, float beta1,
                  float beta2, float eps, float weightDecay, int t) override {
        const float c1 = 1.f - std::pow(beta1, float(t));
        const float c2 = 1.f - std::pow(beta2, float(t));
        for (std::size_t i = 0; i < n; ++i) {
            g[i] *= gradScale;
            const float gi = g[i] + weightDecay * w[i];
            m[i] = beta1 * m[i] + (1.f - beta1) * gi;
            v[i] = beta2 * v[i] + (1.f - beta2) * gi * gi;
            w[i] -= lr * (m[i] / c1) / (std::sqrt(v[i] / c2) + eps);
        }
    }
};

}  // namespace

std::unique_ptr<Backend> makeCpuBackend() { return std::make_unique<CpuBackend>(); }

std::unique_ptr<Backend> makeBackend(Device d) { return d == Device::Cuda ? makeCudaBackend() : makeCpuBackend(); }

}  // namespace pacer::kernels
