// Fused-buffer helpers for the engine: gather several tensor ranges into one contiguous buffer before a
// collective, scatter the reduced result back, and scale a buffer (1/worldSize after a summing all-reduce).
// CPU versions work on host memory; CUDA versions enqueue one kernel on `stream` (cudaStream_t as void*, nullptr
// for the default stream) and throw std::runtime_error when built without CUDA.
#pragma once

#include <cstddef>
#include <vector>

namespace pacer::kernels {

struct PackRange {
    float* data = nullptr;  // start of the range (device pointer for the CUDA versions)
    std::size_t count = 0;  // floats
};

// dst receives the ranges back to back; returns the floats written.
std::size_t packCpu(float* dst, const std::vector<PackRange>& ranges);
std::size_t unpackCpu(const float* src, const std::vector<PackRange>& ranges);
void scaleCpu(float* data, std::size_t count, float factor);

std::size_t packCuda(float* dst, const std::vector<PackRange>& ranges, void* stream);
std::size_t unpackCuda(const float* src, const std::vector<PackRange>& ranges, void* stream);
void scaleCuda(float* data, std::size_t count, float factor, void* stream);

}  // namespace pacer::kernels
