// The primitive operations every layer is written in, with one implementation per device.
//
// Layers, the loss and the optimizers never touch memory directly: they call a Backend for allocation, copies,
// GEMM and a fixed set of element-wise, normalisation, softmax, pooling, embedding and optimizer primitives.
// CpuBackend does them with OpenBLAS sgemm and plain loops; CudaBackend with cuBLAS and Pacer's own kernels on
// one stream. So each layer's forward/backward exists once, and a GPU-vs-CPU check compares the two backends
// on identical layer code. All matrices are row-major; all pointers are device pointers of the backend.
#pragma once

#include "kernels/device.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

namespace pacer::kernels {

struct PackRange;

class Backend {
public:
    virtual ~Backend() = default;
    virtual Device device() const = 0;
    virtual void* stream() const { return nullptr; }  // cudaStream_t on CUDA

    virtual void* allocBytes(std::size_t bytes) = 0;  // zero-filled
    virtual void freeBytes(void* p) = 0;
    virtual void upload(void* dst, const void* src, std::size_t bytes) = 0;    // host -> device
    virtual void download(void* dst, const void* src, std::size_t bytes) = 0;  // device -> host; synchronises
    virtual void copy(float* dst, const float* src, std::size_t n) = 0;
    virtual void fill(float* dst, float value, std::size_t n) = 0;
    virtual void synchronize() = 0;
    // Events on the backend's stream (cudaEvent_t as void*); the CPU backend has none and returns nullptr.
    virtual void* createEvent() { return nullptr; }
    virtual void recordEvent(void* /*event*/) {}
    virtual void destroyEvent(void* /*event*/) {}

    // C = alpha * op(A) * op(B) + beta * C, row-major, op(A) is M x K, op(B) is K x N.
    virtual void gemm(bool transA, bool transB, int M, int N, int K, float alpha, const float* A, int lda,
                      const float* B, int ldb, float beta, float* C, int ldc) = 0;
    // `batch` independent GEMMs, operand i at A + i*strideA (and so on).
    virtual void gemmBatched(bool transA, bool transB, int M, int N, int K, float alpha, const float* A, int lda,
                             std::int64_t strideA, const float* B, int ldb, std::int64_t strideB, float beta,
                             float* C, int ldc, std::int64_t strideC, int batch) = 0;

    // y = a + b (y may alias a or b).
    virtual void add(float* y, const float* a, const float* b, std::size_t n) = 0;
    // y[r][c] += bias[c]
    virtual void addBias(float* y, const float* bias, int rows, int cols) = 0;
    // db[c] = sum_r dy[r][c]  (overwrites)
    virtual void biasGrad(float* db, const float* dy, int rows, int cols) = 0;
    // y[r][i] += bias[r % channels] for a [batch*channels][inner] layout (conv bias).
    virtual void addChannelBias(float* y, const float* bias, int batch, int channels, int inner) = 0;
    // db[c] = sum_{n,i} dy[n][c][i]  (overwrites)
    virtual void channelBiasGrad(float* db, const float* dy, int batch, int channels, int inner) = 0;

    virtual void reluForward(float* y, const float* x, std::size_t n) = 0;
    virtual void reluBackward(float* dx, const float* dy, const float* x, std::size_t n) = 0;
    virtual void geluForward(float* y, const float* x, std::size_t n) = 0;  // tanh approximation
    virtual void geluBackward(float* dx, const float* dy, const float* x, std::size_t n) = 0;

    // Layer norm over the last dimension; mean/rstd keep one value per row for the backward pass.
    virtual void layerNormForward(float* y, float* mean, float* rstd, const float* x, const float* gamma,
                                  const float* beta, int rows, int cols, float eps) = 0;
    // dx overwritten; dgamma/dbeta overwritten.
    virtual void layerNormBackward(float* dx, float* dgamma, float* dbeta, const float* dy, const float* x,
                                   const float* mean, const float* rstd, const float* gamma, int rows,
                                   int cols) = 0;

    // Row-wise softmax, in place allowed.
    virtual void softmaxForward(float* y, const float* x, int rows, int cols) = 0;
    // dx = y * (dy - sum(dy*y)) row-wise (dx may alias dy).
    virtual void softmaxBackward(float* dx, const float* dy, const float* y, int rows, int cols) = 0;
    // Per-row loss -log softmax(logits)[label] and dlogits = (softmax - onehot) * gradScale.
    virtual void crossEntropy(float* rowLoss, float* dlogits, const float* logits, const std::int32_t* labels,
                              int rows, int cols, float gradScale) = 0;

    // One image [C][H][W] <-> columns [C*k*k][Ho*Wo]. col2im overwrites dx.
    virtual void im2col(float* col, const float* x, int C, int H, int W, int k, int stride, int pad, int Ho,
                        int Wo) = 0;
    virtual void col2im(float* dx, const float* col, int C, int H, int W, int k, int stride, int pad, int Ho,
                        int Wo) = 0;
    // Max pooling over planes [planes][H][W]; argmax keeps the winning input index for backward.
    virtual void maxPoolForward(float* y, std::int32_t* argmax, const float* x, int planes, int H, int W, int k,
                                int stride, int Ho, int Wo) = 0;
    virtual void maxPoolBackward(float* dx, const float* dy, const std::int32_t* argmax, int planes, int H, int W,
                                 int Ho, int Wo) = 0;  // overwrites dx
    // Mean over the last dimension: y[r] = mean_c x[r][c]; backward spreads dy[r]/cols.
    virtual void rowMeanForward(float* y, const float* x, int rows, int cols) = 0;
    virtual void rowMeanBackward(float* dx, const float* dy, int rows, int cols) = 0;
    // Mean over the middle dimension of [N][T][D]: y[n][d] = mean_t x[n][t][d].
    virtual void seqMeanForward(float* y, const float* x, int N, int T, int D) = 0;
    virtual void seqMeanBackward(float* dx, const float* dy, int N, int T, int D) = 0;

    // y[n][t] = table[ids[n][t]] + pos[t]; ids checked against vocab on the host by the caller.
    virtual void embeddingForward(float* y, const std::int32_t* ids, const float* table, const float* pos, int N,
                                  int T, int D) = 0;
    // dtable, dpos overwritten.
    virtual void embeddingBackward(float* dtable, float* dpos, const float* dy, const std::int32_t* ids, int N,
                                   int T, int D, int vocab) = 0;

    // x *= s
    virtual void scale(float* x, float s, std::size_t n) = 0;
    // v = momentum*v + (g*gradScale + wd*w); w -= lr*v   (g scaled in place first, so callers see it)
    virtual void sgdStep(float* w, float* g, float* v, std::size_t n, float gradScale, float lr, float momentum,
                         float weightDecay) = 0;
    // Adam with bias correction for step t (1-based); g scaled in place first.
    virtual void adamStep(float* w, float* g, float* m, float* v, std::size_t n, float gradScale, float lr,
                          float beta1, float beta2, float eps, float weightDecay, int t) = 0;
};

// Owning device buffer of T allocated through a Backend.
template <typename T>
class Buffer {
public:
    Buffer() = default;
    Buffer(Backend& b, std::size_t n) : backend_(&b), n_(n) {
        if (n) data_ = static_cast<T*>(b.allocBytes(n * sizeof(T)));
    }
    Buffer(Buffer&& o) noexcept { *this = std::move(o); }
    Buffer& operator=(Buffer&& o) noexcept {
        if (this != &o) {
            release();
            backend_ = std::exchange(o.backend_, nullptr);
            data_ = std::exchange(o.data_, nullptr);
            n_ = std::exchange(o.n_, 0);
        }
        return *this;
    }
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    ~Buffer() { release(); }

    // Grows (never shrinks) to at least n elements; contents are not kept.
    void ensure(Backend& b, std::size_t n) {
        if (n > n_ || backend_ != &b) *this = Buffer(b, n);
    }
    T* data() const { return data_; }
    std::size_t size() const { return n_; }

private:
    void release() {
        if (data_) backend_->freeBytes(data_);
        data_ = nullptr;
        n_ = 0;
    }
    Backend* backend_ = nullptr;
    T* data_ = nullptr;
    std::size_t n_ = 0;
};

// The CPU backend (thread-compatible: one per model). The CUDA backend creates its own stream and cuBLAS handle;
// it throws std::runtime_error when built without CUDA or when no GPU is present.
std::unique_ptr<Backend> makeCpuBackend();
// `stream` (cudaStream_t as void*): work goes on that stream instead of a new one owned by the backend.
std::unique_ptr<Backend> makeCudaBackend(void* stream = nullptr);
std::unique_ptr<Backend> makeBackend(Device d);

}  // namespace pacer::kernels
