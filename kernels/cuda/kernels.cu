// Pacer's own CUDA kernels: element-wise, bias, normalisation, softmax/loss, im2col, pooling, embedding,
// optimizer and pack/unpack work. Written for clarity first: grid-stride loops, one block per row for the row
// reductions. The matrix products go to cuBLAS (cuda_backend.cpp).
#include "kernels/cuda/check.h"
#include "kernels/cuda/launchers.h"

#include <algorithm>
#include <cfloat>

namespace pacer::kernels::cuda {

namespace {

constexpr int kThreads = 256;
constexpr float kGeluC = 0.7978845608028654f;
constexpr float kGeluA = 0.044715f;

cudaStream_t st(void* s) { return static_cast<cudaStream_t>(s); }
unsigned blocksFor(std::size_t n) { return unsigned(std::min<std::size_t>((n + kThreads - 1) / kThreads, 65535)); }

#define GRID_STRIDE(i, n) \
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < (n); i += std::size_t(blockDim.x) * gridDim.x)

// Sum over the block (blockDim.x == kThreads); every thread gets the result.
__device__ float blockSum(float v) {
    __shared__ float shared[kThreads / 32];
    __shared__ float total;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0) shared[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        float w = threadIdx.x < kThreads / 32 ? shared[threadIdx.x] : 0.f;
        for (int o = 16; o > 0; o >>= 1) w += __shfl_down_sync(0xffffffffu, w, o);
        if (threadIdx.x == 0) total = w;
    }
    __syncthreads();
    const float r = total;
    __syncthreads();  // so a following call can reuse the shared slots
    return r;
}

__device__ float blockMax(float v) {
    __shared__ float shared[kThreads / 32];
    __shared__ float total;
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, o));
    if ((threadIdx.x & 31) == 0) shared[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        float w = threadIdx.x < kThreads / 32 ? shared[threadIdx.x] : -FLT_MAX;
        for (int o = 16; o > 0; o >>= 1) w = fmaxf(w, __shfl_down_sync(0xffffffffu, w, o));
        if (threadIdx.x == 0) total = w;
    }
    __syncthreads();
    const float r = total;
    __syncthreads();
    return r;
}

__global__ void fillK(float* y, float v, std::size_t n) { GRID_STRIDE(i, n) y[i] = v; }
__global__ void addK(float* y, const float* a, const float* b, std::size_t n) { GRID_STRIDE(i, n) y[i] = a[i] + b[i]; }
__global__ void scaleK(float* x, std::size_t n, float f) { GRID_STRIDE(i, n) x[i] *= f; }
__global__ void addBiasK(float* y, const float* bias, std::size_t n, int cols) { GRID_STRIDE(i, n) y[i] += bias[i % cols]; }
__global__ void biasGradK(float* db, const float* dy, int rows, int cols) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    float s = 0.f;
    for (int r = 0; r < rows; ++r) s += dy[std::size_t(r) * cols + c];
    db[c] = s;
}
__global__ void addChannelBiasK(float* y, const float* bias, std::size_t n, int channels, int inner) {
    GRID_STRIDE(i, n) y[i] += bias[(i / inner) % channels];
}
__global__ void channelBiasGradK(float* db, const float* dy, int batch, int channels, int inner) {
    const int c = blockIdx.x;
    float s = 0.f;
    for (int n = 0; n < batch; ++n)
        for (int i = threadIdx.x; i < inner; i += blockDim.x) s += dy[(std::size_t(n) * channels + c) * inner + i];
    s = blockSum(s);
    if (threadIdx.x == 0) db[c] = s;
}
__global__ void reluK(float* y, const float* x, std::size_t n) { GRID_STRIDE(i, n) y[i] = x[i] > 0.f ? x[i] : 0.f; }
__global__ void reluBackK(float* dx, const float* dy, const float* x, std::size_t n) {
    GRID_STRIDE(i, n) dx[i] = x[i] > 0.f ? dy[i] : 0.f;
}
__global__ void geluK(float* y, const float* x, std::size_t n) {
    GRID_STRIDE(i, n) {
        const float v = x[i];
        y[i] = 0.5f * v * (1.f + tanhf(kGeluC * (v + kGeluA * v * v * v)));
    }
}
__global__ void geluBackK(float* dx, const float* dy, const float* x, std::size_t n) {
    GRID_STRIDE(i, n) {
        const float v = x[i];
        const float t = tanhf(kGeluC * (v + kGeluA * v * v * v));
        const float dt = (1.f - t * t) * kGeluC * (1.f + 3.f * kGeluA * v * v);
        dx[i] = dy[i] * (0.5f * (1.f + t) + 0.5f * v * dt);
    }
}
__global__ void layerNormK(float* y, float* mean, float* rstd, const float* x, const float* g, const float* b,
                           int cols, float eps) {
    const std::size_t row = blockIdx.x;
    const float* xr = x + row * cols;
    float s = 0.f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += xr[c];
    const float m = blockSum(s) / float(cols);
    float v = 0.f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) v += (xr[c] - m) * (xr[c] - m);
    const float rs = rsqrtf(blockSum(v) / float(cols) + eps);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) y[row * cols + c] = (xr[c] - m) * rs * g[c] + b[c];
    if (threadIdx.x == 0) {
        mean[row] = m;
        rstd[row] = rs;
    }
}
__global__ void layerNormBackK(float* dx, const float* dy, const float* x, const float* mean, const float* rstd,
                               const float* g, int cols) {
    const std::size_t row = blockIdx.x;
    const float m = mean[row], rs = rstd[row];
    float sg = 0.f, sgx = 0.f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float gi = dy[row * cols + c] * g[c];
        sg += gi;
        sgx += gi * (x[row * cols + c] - m) * rs;
    }
    sg = blockSum(sg);
    sgx = blockSum(sgx);
    const float inv = 1.f / float(cols);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float xhat = (x[row * cols + c] - m) * rs;
        dx[row * cols + c] = rs * (dy[row * cols + c] * g[c] - inv * sg - xhat * inv * sgx);
    }
}
__global__ void layerNormParamGradK(float* dg, float* db, const float* dy, const float* x, const float* mean,
                                    const float* rstd, int rows, int cols) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    float sg = 0.f, sb = 0.f;
    for (int r = 0; r < rows; ++r) {
        const float d = dy[std::size_t(r) * cols + c];
        sg += d * (x[std::size_t(r) * cols + c] - mean[r]) * rstd[r];
        sb += d;
    }
    dg[c] = sg;
    db[c] = sb;
}
__global__ void softmaxK(float* y, const float* x, int cols) {
    const std::size_t row = blockIdx.x;
    float mx = -FLT_MAX;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) mx = fmaxf(mx, x[row * cols + c]);
    mx = blockMax(mx);
    float s = 0.f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += __expf(x[row * cols + c] - mx);
    const float inv = 1.f / blockSum(s);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) y[row * cols + c] = __expf(x[row * cols + c] - mx) * inv;
}
__global__ void softmaxBackK(float* dx, const float* dy, const float* y, int cols) {
    const std::size_t row = blockIdx.x;
    float dot = 0.f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) dot += dy[row * cols + c] * y[row * cols + c];
    dot = blockSum(dot);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) dx[row * cols + c] = y[row * cols + c] * (dy[row * cols + c] - dot);
}
__global__ void crossEntropyK(float* rowLoss, float* dl, const float* logits, const std::int32_t* labels, int cols,
                              float gradScale) {
    const std::size_t row = blockIdx.x;
    const float* l = logits + row * cols;
    float mx = -FLT_MAX;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) mx = fmaxf(mx, l[c]);
    mx = blockMax(mx);
    float s = 0.f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(l[c] - mx);
    const float logZ = mx + logf(blockSum(s));
    const int label = labels[row];
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        dl[row * cols + c] = (expf(l[c] - logZ) - (c == label ? 1.f : 0.f)) * gradScale;
    if (threadIdx.x == 0) rowLoss[row] = logZ - l[label];
}
__global__ void im2colK(float* col, const float* x, int C, int H, int W, int k, int stride, int pad, int Ho, int Wo) {
    const std::size_t n = std::size_t(C) * k * k * Ho * Wo;
    GRID_STRIDE(i, n) {
        const int ox = int(i % Wo), oy = int((i / Wo) % Ho);
        const std::size_t r = i / (std::size_t(Ho) * Wo);
        const int kj = int(r % k), ki = int((r / k) % k), c = int(r / (k * k));
        const int iy = oy * stride - pad + ki, ix = ox * stride - pad + kj;
        col[i] = (iy >= 0 && iy < H && ix >= 0 && ix < W) ? x[(std::size_t(c) * H + iy) * W + ix] : 0.f;
    }
}
// One thread per input pixel gathers every column entry that read it: no atomics, deterministic.
__global__ void col2imK(float* dx, const float* col, int C, int H, int W, int k, int stride, int pad, int Ho, int Wo) {
    const std::size_t n = std::size_t(C) * H * W;
    GRID_STRIDE(i, n) {
        const int ix = int(i % W), iy = int((i / W) % H), c = int(i / (std::size_t(H) * W));
        float s = 0.f;
        for (int ki = 0; ki < k; ++ki) {
            const int ty = iy + pad - ki;
            if (ty < 0 || ty % stride) continue;
            const int oy = ty / stride;
            if (oy >= Ho) continue;
            for (int kj = 0; kj < k; ++kj) {
                const int tx = ix + pad - kj;
                if (tx < 0 || tx % stride) continue;
                const int ox = tx / stride;
                if (ox >= Wo) continue;
                s += col[((std::size_t(c) * k + ki) * k + kj) * Ho * Wo + oy * Wo + ox];
            }
        }
        dx[i] = s;
    }
}
__global__ void maxPoolK(float* y, std::int32_t* argmax, const float* x, int planes, int H, int W, int k, int stride,
                         int Ho, int Wo) {
    const std::size_t n = std::size_t(planes) * Ho * Wo;
    GRID_STRIDE(i, n) {
        const int ox = int(i % Wo), oy = int((i / Wo) % Ho);
        const std::size_t p = i / (std::size_t(Ho) * Wo);
        const float* xp = x + p * H * W;
        int best = oy * stride * W + ox * stride;
        for (int ki = 0; ki < k; ++ki)
            for (int kj = 0; kj < k; ++kj) {
                const int idx = (oy * stride + ki) * W + ox * stride + kj;
                if (xp[idx] > xp[best]) best = idx;
            }
        y[i] = xp[best];
        argmax[i] = best;
    }
}
__global__ void maxPoolBackK(float* dx, const float* dy, const std::int32_t* argmax, int H, int W, int Ho, int Wo,
                             std::size_t n) {
    GRID_STRIDE(i, n) {
        const std::size_t p = i / (std::size_t(Ho) * Wo);
        atomicAdd(dx + p * H * W + argmax[i], dy[i]);
    }
}
__global__ void rowMeanK(float* y, const float* x, int cols) {
    const std::size_t row = blockIdx.x;
    float s = 0.f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += x[row * cols + c];
    s = blockSum(s);
    if (threadIdx.x == 0) y[row] = s / float(cols);
}
__global__ void rowMeanBackK(float* dx, const float* dy, std::size_t n, int cols) {
    GRID_STRIDE(i, n) dx[i] = dy[i / cols] / float(cols);
}
__global__ void seqMeanK(float* y, const float* x, int N, int T, int D) {
    const std::size_t n = std::size_t(N) * D;
    GRID_STRIDE(i, n) {
        const std::size_t s = i / D, d = i % D;
        float acc = 0.f;
        for (int t = 0; t < T; ++t) acc += x[(s * T + t) * D + d];
        y[i] = acc / float(T);
    }
}
__global__ void seqMeanBackK(float* dx, const float* dy, int T, int D, std::size_t n) {
    GRID_STRIDE(i, n) dx[i] = dy[(i / (std::size_t(T) * D)) * D + i % D] / float(T);
}
__global__ void embeddingK(float* y, const std::int32_t* ids, const float* table, const float* pos, int T, int D,
                           std::size_t n) {
    GRID_STRIDE(i, n) {
        const std::size_t tok = i / D;  // n*T + t
        const int d = int(i % D), t = int(tok % T);
        y[i] = table[std::size_t(ids[tok]) * D + d] + pos[std::size_t(t) * D + d];
    }
}
__global__ void embeddingBackK(float* dtable, float* dpos, const float* dy, const std::int32_t* ids, int T, int D,
                               std::size_t n) {
    GRID_STRIDE(i, n) {
        const std::size_t tok = i / D;
        const int d = int(i % D), t = int(tok % T);
        atomicAdd(dtable + std::size_t(ids[tok]) * D + d, dy[i]);
        atomicAdd(dpos + std::size_t(t) * D + d, dy[i]);
    }
}
__global__ void sgdK(float* w, float* g, float* v, std::size_t n, float gs, float lr, float mom, float wd) {
    GRID_STRIDE(i, n) {
        g[i] *= gs;
        v[i] = mom * v[i] + g[i] + wd * w[i];
        w[i] -= lr * v[i];
    }
}
__global__ void adamK(float* w, float* g, float* m, float* v, std::size_t n, float gs, float lr, float b1, float b2,
                      float eps, float wd, float c1, float c2) {
    GRID_STRIDE(i, n) {
        g[i] *= gs;
        const float gi = g[i] + wd * w[i];
        m[i] = b1 * m[i] + (1.f - b1) * gi;
        v[i] = b2 * v[i] + (1.f - b2) * gi * gi;
        w[i] -= lr * (m[i] / c1) / (sqrtf(v[i] / c2) + eps);
    }
}

// Up to kPackBatch ranges per launch travel in the kernel's parameters: no device-side table to allocate.
constexpr int kPackBatch = 32;
struct PackTable {
    float* ptr[kPackBatch];
    std::size_t count[kPackBatch];
    std::size_t offset[kPackBatch];
};
__global__ void packK(float* buf, PackTable t, bool unpack) {
    const int r = blockIdx.y;
    float* p = t.ptr[r];
    float* b = buf + t.offset[r];
    GRID_STRIDE(i, t.count[r]) {
        if (unpack) p[i] = b[i];
        else b[i] = p[i];
    }
}

}  // namespace

#define LAUNCH(kernel, blocks, ...)                                \
    do {                                                           \
        if ((blocks) > 0) {                                        \
            kernel<<<(blocks), kThreads, 0, st(s)>>>(__VA_ARGS__); \
            PACER_CUDA_LAUNCHED();                                 \
        }                                                          \
    } while (0)

void fill(float* y, float v, std::size_t n, void* s) { LAUNCH(fillK, blocksFor(n), y, v, n); }
void add(float* y, const float* a, const float* b, std::size_t n, void* s) { LAUNCH(addK, blocksFor(n), y, a, b, n); }
void scale(float* x, std::size_t n, float f, void* s) { LAUNCH(scaleK, blocksFor(n), x, n, f); }
void addBias(float* y, const float* bias, int rows, int cols, void* s) {
    const std::size_t n = std::size_t(rows) * cols;
    LAUNCH(addBiasK, blocksFor(n), y, bias, n, cols);
}
void biasGrad(float* db, const float* dy, int rows, int cols, void* s) {
    LAUNCH(biasGradK, blocksFor(cols), db, dy, rows, cols);
}
void addChannelBias(float* y, const float* bias, int batch, int channels, int inner, void* s) {
    const std::size_t n = std::size_t(batch) * channels * inner;
    LAUNCH(addChannelBiasK, blocksFor(n), y, bias, n, channels, inner);
}
void channelBiasGrad(float* db, const float* dy, int batch, int channels, int inner, void* s) {
    LAUNCH(channelBiasGradK, unsigned(channels), db, dy, batch, channels, inner);
}
void relu(float* y, const float* x, std::size_t n, void* s) { LAUNCH(reluK, blocksFor(n), y, x, n); }
void reluBackward(float* dx, const float* dy, const float* x, std::size_t n, void* s) {
    LAUNCH(reluBackK, blocksFor(n), dx, dy, x, n);
}
void gelu(float* y, const float* x, std::size_t n, void* s) { LAUNCH(geluK, blocksFor(n), y, x, n); }
void geluBackward(float* dx, const float* dy, const float* x, std::size_t n, void* s) {
    LAUNCH(geluBackK, blocksFor(n), dx, dy, x, n);
}
void layerNorm(float* y, float* mean, float* rstd, const float* x, const float* g, const float* b, int rows, int cols,
               float eps, void* s) {
    LAUNCH(layerNormK, unsigned(rows), y, mean, rstd, x, g, b, cols, eps);
}
void layerNormBackward(float* dx, float* dg, float* db, const float* dy, const float* x, const float* mean,
                       const float* rstd, const float* g, int rows, int cols, void* s) {
    LAUNCH(layerNormBackK, unsigned(rows), dx, dy, x, mean, rstd, g, cols);
    LAUNCH(layerNormParamGradK, blocksFor(cols), dg, db, dy, x, mean, rstd, rows, cols);
}
void softmax(float* y, const float* x, int rows, int cols, void* s) { LAUNCH(softmaxK, unsigned(rows), y, x, cols); }
void softmaxBackward(float* dx, const float* dy, const float* y, int rows, int cols, void* s) {
    LAUNCH(softmaxBackK, unsigned(rows), dx, dy, y, cols);
}
void crossEntropy(float* rowLoss, float* dlogits, const float* logits, const std::int32_t* labels, int rows, int cols,
                  float gradScale, void* s) {
    LAUNCH(crossEntropyK, unsigned(rows), rowLoss, dlogits, logits, labels, cols, gradScale);
}
void im2col(float* col, const float* x, int C, int H, int W, int k, int stride, int pad, int Ho, int Wo, void* s) {
    LAUNCH(im2colK, blocksFor(std::size_t(C) * k * k * Ho * Wo), col, x, C, H, W, k, stride, pad, Ho, Wo);
}
void col2im(float* dx, const float* col, int C, int H, int W, int k, int stride, int pad, int Ho, int Wo, void* s) {
    LAUNCH(col2imK, blocksFor(std::size_t(C) * H * W), dx, col, C, H, W, k, stride, pad, Ho, Wo);
}
void maxPool(float* y, std::int32_t* argmax, const float* x, int planes, int H, int W, int k, int stride, int Ho,
             int Wo, void* s) {
    LAUNCH(maxPoolK, blocksFor(std::size_t(planes) * Ho * Wo), y, argmax, x, planes, H, W, k, stride, Ho, Wo);
}
void maxPoolBackward(float* dx, const float* dy, const std::int32_t* argmax, int planes, int H, int W, int Ho, int Wo,
                     void* s) {
    fill(dx, 0.f, std::size_t(planes) * H * W, s);
    const std::size_t n = std::size_t(planes) * Ho * Wo;
    LAUNCH(maxPoolBackK, blocksFor(n), dx, dy, argmax, H, W, Ho, Wo, n);
}
void rowMean(float* y, const float* x, int rows, int cols, void* s) { LAUNCH(rowMeanK, unsigned(rows), y, x, cols); }
void rowMeanBackward(float* dx, const float* dy, int rows, int cols, void* s) {
    const std::size_t n = std::size_t(rows) * cols;
    LAUNCH(rowMeanBackK, blocksFor(n), dx, dy, n, cols);
}
void seqMean(float* y, const float* x, int N, int T, int D, void* s) {
    LAUNCH(seqMeanK, blocksFor(std::size_t(N) * D), y, x, N, T, D);
}
void seqMeanBackward(float* dx, const float* dy, int N, int T, int D, void* s) {
    const std::size_t n = std::size_t(N) * T * D;
    LAUNCH(seqMeanBackK, blocksFor(n), dx, dy, T, D, n);
}
void embedding(float* y, const std::int32_t* ids, const float* table, const float* pos, int N, int T, int D, void* s) {
    const std::size_t n = std::size_t(N) * T * D;
    LAUNCH(embeddingK, blocksFor(n), y, ids, table, pos, T, D, n);
}
void embeddingBackward(float* dtable, float* dpos, const float* dy, const std::int32_t* ids, int N, int T, int D,
                       int vocab, void* s) {
    fill(dtable, 0.f, std::size_t(vocab) * D, s);
    fill(dpos, 0.f, std::size_t(T) * D, s);
    const std::size_t n = std::size_t(N) * T * D;
    LAUNCH(embeddingBackK, blocksFor(n), dtable, dpos, dy, ids, T, D, n);
}
void sgd(float* w, float* g, float* v, std::size_t n, float gradScale, float lr, float momentum, float wd, void* s) {
    LAUNCH(sgdK, blocksFor(n), w, g, v, n, gradScale, lr, momentum, wd);
}
void adam(float* w, float* g, float* m, float* v, std::size_t n, float gradScale, float lr, float b1, float b2,
          float eps, float wd, float c1, float c2, void* s) {
    LAUNCH(adamK, blocksFor(n), w, g, m, v, n, gradScale, lr, b1, b2, eps, wd, c1, c2);
}
std::size_t packRanges(float* buf, const std::vector<PackRange>& ranges, bool unpack, void* s) {
    std::size_t offset = 0;
    for (std::size_t first = 0; first < ranges.size(); first += kPackBatch) {
        PackTable t{};
        const int count = int(std::min<std::size_t>(kPackBatch, ranges.size() - first));
        std::size_t largest = 0;
        for (int r = 0; r < count; ++r) {
            t.ptr[r] = ranges[first + r].data;
            t.count[r] = ranges[first + r].count;
            t.offset[r] = offset;
            offset += t.count[r];
            largest = std::max(largest, t.count[r]);
        }
        if (largest == 0) continue;
        packK<<<dim3(blocksFor(largest), unsigned(count)), kThreads, 0, st(s)>>>(buf, t, unpack);
        PACER_CUDA_LAUNCHED();
    }
    return offset;
}

}  // namespace pacer::kernels::cuda
