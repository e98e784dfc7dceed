// Where a model runs and what this process may use there.
//
// The kernels run on the CPU (OpenBLAS sgemm plus plain loops) or on one CUDA GPU (cuBLAS plus Pacer's own
// kernels). CUDA support is decided at build time (PACER_HAVE_CUDA) and a GPU at run time: a build with CUDA on a
// machine without a GPU says so through cudaDeviceAvailable() instead of failing later.
#pragma once

#include <string>
#include <vector>

namespace pacer::kernels {

enum class Device { Cpu, Cuda };

const char* deviceName(Device d);

// False, with the reason in *why, when built without CUDA or when no usable GPU is present.
bool cudaDeviceAvailable(std::string* why = nullptr);

// The GPUs this process may use, one line each ("NVIDIA H200, 143771 MiB"), in device order; empty, with the
// reason in *why, when cudaDeviceAvailable() is false. What `pacer-worker --list-gpus` prints for the GUI.
std::vector<std::string> cudaDevices(std::string* why = nullptr);

// OpenBLAS threads for this process. Default 1, so that several ranks on one host do not fight over cores.
// Throws std::invalid_argument for n < 1.
void setCpuThreads(int n);
int cpuThreads();

}  // namespace pacer::kernels
