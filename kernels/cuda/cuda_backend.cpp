// The CUDA backend: cuBLAS for the GEMMs, Pacer's kernels (kernels.cu) for the rest, all on one stream so that
// the order of a layer's work is the order of its calls, and events mark points on that stream.
#include "kernels/backend.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/launchers.h"

#include <cmath>

namespace pacer::kernels {

namespace {

class CudaBackend final : public Backend {
public:
    explicit CudaBackend(void* external) {
        std::string why;
        if (!cudaDeviceAvailable(&why)) throw std::runtime_error("CUDA backend: " + why);
        if (external) {
            stream_ = static_cast<cudaStream_t>(external);
        } else {
            PACER_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
            ownsStream_ = true;
        }
        PACER_CUBLAS_CHECK(cublasCreate(&blas_));
        PACER_CUBLAS_CHECK(cublasSetStream(blas_, stream_));
        // Plain FP32 (no TF32) so the GPU matches the CPU to 1e-4.
        PACER_CUBLAS_CHECK(cublasSetMathMode(blas_, CUBLAS_DEFAULT_MATH));
    }
    ~CudaBackend() override {
        cudaStreamSynchronize(stream_);
        cublasDestroy(blas_);
        if (ownsStream_) cudaStreamDestroy(stream_);
    }

    Device device() const override { return Device::Cuda; }
    void* stream() const override { return stream_; }

    void* allocBytes(std::size_t bytes) override {
        void* p = nullptr;
        PACER_CUDA_CHECK(cudaMalloc(&p, bytes));
        PACER_CUDA_CHECK(cudaMemsetAsync(p, 0, bytes, stream_));
        return p;
    }
    void freeBytes(void* p) override {
        cudaStreamSynchronize(stream_);  // work queued on this memory must finish first
        cudaFree(p);
    }
    void upload(void* dst, const void* src, std::size_t bytes) override {
        PACER_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream_));
        PACER_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the host buffer may go away after we return
    }
    void download(void* dst, const void* src, std::size_t bytes) override {
        PACER_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream_));
        PACER_CUDA_CHECK(cudaStreamSynchronize(stream_));
    }
    void copy(float* dst, const float* src, std::size_t n) override {
        PACER_CUDA_CHECK(cudaMemcpyAsync(dst, src, n * sizeof(float), cudaMemcpyDeviceToDevice, stream_));
    }
    void fill(float* dst, float value, std::size_t n) override { cuda::fill(dst, value, n, stream_); }
    void synchronize() override { PACER_CUDA_CHECK(cudaStreamSynchronize(stream_)); }
    void* createEvent() override {
        cudaEvent_t e = nullptr;
        PACER_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        return e;
    }
    void recordEvent(void* e) override { PACER_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(e), stream_)); }
    void destroyEvent(void* e) override { cudaEventDestroy(static_cast<cudaEvent_t>(e)); }

    // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: swap the operands, keep the flags.
    void gemm(bool ta, bool tb, int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
              float beta, float* C, int ldc) override {
        PACER_CUBLAS_CHECK(cublasSgemm(blas_, tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N, N, M, K,
                                       &alpha, B, ldb, A, lda, &beta, C, ldc));
    }
    void gemmBatched(bool ta, bool tb, int M, int N, int K, float alpha, const float* A, int lda,
                     std::int64_t strideA, const float* B, int ldb, std::int64_t strideB, float beta, float* C,
                     int ldc, std::int64_t strideC, int batch) override {
        PACER_CUBLAS_CHECK(cublasSgemmStridedBatched(blas_, tb ? CUBLAS_OP_T : CUBLAS_OP_N,
                                                     ta ? CUBLAS_OP_T : CUBLAS_OP_N, N, M, K, &alpha, B, ldb, strideB,
                                                     A, lda, strideA, &beta, C, ldc, strideC, batch));
    }

    void add(float* y, const float* a, const float* b, std::size_t n) override { cuda::add(y, a, b, n, stream_); }
    void addBias(float* y, const float* bias, int rows, int cols) override { cuda::addBias(y, bias, rows, cols, stream_); }
    void biasGrad(float* db, const float* dy, int rows, int cols) override { cuda::biasGrad(db, dy, rows, cols, stream_); }
    void addChannelBias(float* y, const float* bias, int batch, int channels, int inner) override {
        cuda::addChannelBias(y, bias, batch, channels, inner, stream_);
    }
    void channelBiasGrad(float* db, const float* dy, int batch, int channels, int inner) override {
        cuda::channelBiasGrad(db, dy, batch, channels, inner, stream_);
    }
    void reluForward(float* y, const float* x, std::size_t n) override { cuda::relu(y, x, n, stream_); }
    void reluBackward(float* dx, const float* dy, const float* x, std::size_t n) override {
        cuda::reluBackward(dx, dy, x, n, stream_);
    }
    void geluForward(float* y, const float* x, std::size_t n) override { cuda::gelu(y, x, n, stream_); }
    void geluBackward(float* dx, const float* dy, const float* x, std::size_t n) override {
        cuda::geluBackward(dx, dy, x, n, stream_);
    }
    void layerNormForward(float* y, float* mean, float* rstd, const float* x, const float* gamma, const float* beta,
                          int rows, int cols, float eps) override {
        cuda::layerNorm(y, mean, rstd, x, gamma, beta, rows, cols, eps, stream_);
    }
    void layerNormBackward(float* dx, float* dgamma, float* dbeta, const float* dy, const float* x, const float* mean,
                           const float* rstd, const float* gamma, int rows, int cols) override {
        cuda::layerNormBackward(dx, dgamma, dbeta, dy, x, mean, rstd, gamma, rows, cols, stream_);
    }
    void softmaxForward(float* y, const float* x, int rows, int cols) override { cuda::softmax(y, x, rows, cols, stream_); }
    void softmaxBackward(float* dx, const float* dy, const float* y, int rows, int cols) override {
        cuda::softmaxBackward(dx, dy, y, rows, cols, stream_);
    }
    void crossEntropy(float* rowLoss, float* dlogits, const float* logits, const std::int32_t* labels, int rows,
                      int cols, float gradScale) override {
        cuda::crossEntropy(rowLoss, dlogits, logits, labels, rows, cols, gradScale, stream_);
    }
    void im2col(float* col, const float* x, int C, int H, int W, int k, int stride, int pad, int Ho, int Wo) override {
        cuda::im2col(col, x, C, H, W, k, stride, pad, Ho, Wo, stream_);
    }
    void col2im(float* dx, const float* col, int C, int H, int W, int k, int stride, int pad, int Ho, int Wo) override {
        cuda::col2im(dx, col, C, H, W, k, stride, pad, Ho, Wo, stream_);
    }
    void maxPoolForward(float* y, std::int32_t* argmax, const float* x, int planes, int H, int W, int k, int stride,
                        int Ho, int Wo) override {
        cuda::maxPool(y, argmax, x, planes, H, W, k, stride, Ho, Wo, stream_);
    }
    void maxPoolBackward(float* dx, const float* dy, const std::int32_t* argmax, int planes, int H, int W, int Ho,
                         int Wo) override {
        cuda::maxPoolBackward(dx, dy, argmax, planes, H, W, Ho, Wo, stream_);
    }
    void rowMeanForward(float* y, const float* x, int rows, int cols) override { cuda::rowMean(y, x, rows, cols, stream_); }
    void rowMeanBackward(float* dx, const float* dy, int rows, int cols) override {
        cuda::rowMeanBackward(dx, dy, rows, cols, stream_);
    }
    void seqMeanForward(float* y, const float* x, int N, int T, int D) override { cuda::seqMean(y, x, N, T, D, stream_); }
    void seqMeanBackward(float* dx, const float* dy, int N, int T, int D) override {
        cuda::seqMeanBackward(dx, dy, N, T, D, stream_);
    }
    void embeddingForward(float* y, const std::int32_t* ids, const float* table, const float* pos, int N, int T,
                          int D) override {
        cuda::embedding(y, ids, table, pos, N, T, D, stream_);
    }
    void embeddingBackward(float* dtable, float* dpos, const float* dy, const std::int32_t* ids, int N, int T, int D,
                           int vocab) override {
        cuda::embeddingBackward(dtable, dpos, dy, ids, N, T, D, vocab, stream_);
    }
    void scale(float* x, float s, std::size_t n) override { cuda::scale(x, n, s, stream_); }
    void sgdStep(float* w, float* g, float* v, std::size_t n, float gradScale, float lr, float momentum,
                 float weightDecay) override {
        cuda::sgd(w, g, v, n, gradScale, lr, momentum, weightDecay, stream_);
    }
    void adamStep(float* w, float* g, float* m, float* v, std::size_t n, float gradScale, float lr, float beta1,
                  float beta2, float eps, float weightDecay, int t) override {
        const float c1 = 1.f - std::pow(beta1, float(t)), c2 = 1.f - std::pow(beta2, float(t));
        cuda::adam(w, g, m, v, n, gradScale, lr, beta1, beta2, eps, weightDecay, c1, c2, stream_);
    }

private:
    cudaStream_t stream_ = nullptr;
    bool ownsStream_ = false;
    cublasHandle_t blas_ = nullptr;
};

}  // namespace

std::unique_ptr<Backend> makeCudaBackend(void* stream) { return std::make_unique<CudaBackend>(stream); }

}  // namespace pacer::kernels
