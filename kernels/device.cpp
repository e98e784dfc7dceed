#include "kernels/device.h"

#include "pacer/config.h"

#include <cblas.h>

#include <atomic>
#include <stdexcept>

#if PACER_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace pacer::kernels {

namespace {
// OpenBLAS keeps its own process-wide thread count; this mirrors it so callers can read it back.
std::atomic<int> g_cpuThreads{0};
}  // namespace

const char* deviceName(Device d) { return d == Device::Cuda ? "cuda" : "cpu"; }

bool cudaDeviceAvailable(std::string* why) {
#if PACER_HAVE_CUDA
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        if (why) *why = std::string("no GPU: ") + cudaGetErrorString(err);
        cudaGetLastError();  // clear the sticky error so later calls start clean
        return false;
    }
    if (count == 0) {
        if (why) *why = "no GPU: the CUDA runtime reports zero devices";
        return false;
    }
    return true;
#else
    if (why) *why = "built without CUDA";
    return false;
#endif
}

std::vector<std::string> cudaDevices(std::string* why) {
    std::vector<std::string> devices;
    if (!cudaDeviceAvailable(why)) return devices;
#if PACER_HAVE_CUDA
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
    for (int d = 0; d < count; ++d) {
        cudaDeviceProp prop{};
        if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) {
            cudaGetLastError();
            devices.push_back("GPU " + std::to_string(d));
            continue;
        }
        devices.push_back(std::string(prop.name) + ", " + std::to_string(prop.totalGlobalMem >> 20) + " MiB");
    }
#endif
    return devices;
}

void setCpuThreads(int n) {
    if (n < 1) throw std::invalid_argument("cpu threads must be >= 1, got " + std::to_string(n));
    openblas_set_num_threads(n);
    g_cpuThreads = n;
}

int cpuThreads() {
    const int n = g_cpuThreads.load();
    return n > 0 ? n : openblas_get_num_threads();
}

}  // namespace pacer::kernels
