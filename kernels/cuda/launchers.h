// Host-side launchers for Pacer's own CUDA kernels (kernels.cu). Streams are cudaStream_t passed as void* so this
// header needs no CUDA headers; every launcher checks the launch and throws std::runtime_error with file:line.
// Only compiled when PACER_HAVE_CUDA.
#pragma once

#include "kernels/pack.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pacer::kernels::cuda {

void fill(float* y, float v, std::size_t n, void* s);
void add(float* y, const float* a, const float* b, std::size_t n, void* s);
void scale(float* x, std::size_t n, float f, void* s);
void addBias(float* y, const float* bias, int rows, int cols, void* s);
void biasGrad(float* db, const float* dy, int rows, int cols, void* s);
void addChannelBias(float* y, const float* bias, int batch, int channels, int inner, void* s);
void channelBiasGrad(float* db, const float* dy, int batch, int channels, int inner, void* s);
void relu(float* y, const float* x, std::size_t n, void* s);
void reluBackward(float* dx, const float* dy, const float* x, std::size_t n, void* s);
void gelu(float* y, const float* x, std::size_t n, void* s);
void geluBackward(float* dx, const float* dy, const float* x, std::size_t n, void* s);
void layerNorm(float* y, float* mean, float* rstd, const float* x, const float* g, const float* b, int rows, int cols,
               float eps, void* s);
void layerNormBackward(float* dx, float* dg, float* db, const float* dy, const float* x, const float* mean,
                       const float* rstd, const float* g, int rows, int cols, void* s);
void softmax(float* y, const float* x, int rows, int cols, void* s);
void softmaxBackward(float* dx, const float* dy, const float* y, int rows, int cols, void* s);
void crossEntropy(float* rowLoss, float* dlogits, const float* logits, const std::int32_t* labels, int rows, int cols,
                  float gradScale, void* s);
void im2col(float* col, const float* x, int C, int H, int W, int k, int stride, int pad, int Ho, int Wo, void* s);
void col2im(float* dx, const float* col, int C, int H, int W, int k, int stride, int pad, int Ho, int Wo, void* s);
void maxPool(float* y, std::int32_t* argmax, const float* x, int planes, int H, int W, int k, int stride, int Ho,
             int Wo, void* s);
void maxPoolBackward(float* dx, const float* dy, const std::int32_t* argmax, int planes, int H, int W, int Ho, int Wo,
                     void* s);
void rowMean(float* y, const float* x, int rows, int cols, void* s);
void rowMeanBackward(float* dx, const float* dy, int rows, int cols, void* s);
void seqMean(float* y, const float* x, int N, int T, int D, void* s);
void seqMeanBackward(float* dx, const float* dy, int N, int T, int D, void* s);
void embedding(float* y, const std::int32_t* ids, const float* table, const float* pos, int N, int T, int D, void* s);
void embeddingBackward(float* dtable, float* dpos, const float* dy, const std::int32_t* ids, int N, int T, int D,
                       int vocab, void* s);
void sgd(float* w, float* g, float* v, std::size_t n, float gradScale, float lr, float momentum, float wd, void* s);
void adam(float* w, float* g, float* m, float* v, std::size_t n, float gradScale, float lr, float b1, float b2,
          float eps, float wd, float c1, float c2, void* s);
// Gathers the ranges into buf back to back (unpack = false) or scatters buf into them; returns floats moved.
std::size_t packRanges(float* buf, const std::vector<PackRange>& ranges, bool unpack, void* s);

}  // namespace pacer::kernels::cuda
