#include "kernels/pack.h"

#include "pacer/config.h"

#include <cstring>
#include <stdexcept>

#if PACER_HAVE_CUDA
#include "kernels/cuda/launchers.h"
#endif

namespace pacer::kernels {

std::size_t packCpu(float* dst, const std::vector<PackRange>& ranges) {
    std::size_t off = 0;
    for (const PackRange& r : ranges) {
        std::memcpy(dst + off, r.data, r.count * sizeof(float));
        off += r.count;
    }
    return off;
}

std::size_t unpackCpu(const float* src, const std::vector<PackRange>& ranges) {
    std::size_t off = 0;
    for (const PackRange& r : ranges) {
        std::memcpy(r.data, src + off, r.count * sizeof(float));
        off += r.count;
    }
    return off;
}

void scaleCpu(float* data, std::size_t count, float factor) {
    for (std::size_t i = 0; i < count; ++i) data[i] *= factor;
}

#if PACER_HAVE_CUDA
std::size_t packCuda(float* dst, const std::vector<PackRange>& ranges, void* stream) {
    return cuda::packRanges(dst, ranges, /*unpack=*/false, stream);
}
std::size_t unpackCuda(const float* src, const std::vector<PackRange>& ranges, void* stream) {
    return cuda::packRanges(const_cast<float*>(src), ranges, /*unpack=*/true, stream);
}
void scaleCuda(float* data, std::size_t count, float factor, void* stream) { cuda::scale(data, count, factor, stream); }
#else
std::size_t packCuda(float*, const std::vector<PackRange>&, void*) {
    throw std::runtime_error("packCuda: Pacer was built without CUDA");
}
std::size_t unpackCuda(const float*, const std::vector<PackRange>&, void*) {
    throw std::runtime_error("unpackCuda: Pacer was built without CUDA");
}
void scaleCuda(float*, std::size_t, float, void*) { throw std::runtime_error("scaleCuda: Pacer was built without CUDA"); }
#endif

}  // namespace pacer::kernels
