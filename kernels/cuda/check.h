// Checking macros for CUDA runtime and cuBLAS calls: a failure becomes std::runtime_error naming the call site.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#define PACER_CUDA_CHECK(expr)                                                                                    \
    do {                                                                                                          \
        const cudaError_t pacer_err_ = (expr);                                                                    \
        if (pacer_err_ != cudaSuccess)                                                                            \
            throw std::runtime_error(std::string(__FILE__) + ":" + std::to_string(__LINE__) + ": " #expr ": " +   \
                                     cudaGetErrorString(pacer_err_));                                             \
    } while (0)

#define PACER_CUBLAS_CHECK(expr)                                                                                  \
    do {                                                                                                          \
        const cublasStatus_t pacer_st_ = (expr);                                                                  \
        if (pacer_st_ != CUBLAS_STATUS_SUCCESS)                                                                   \
            throw std::runtime_error(std::string(__FILE__) + ":" + std::to_string(__LINE__) + ": " #expr ": " +   \
                                     cublasGetStatusString(pacer_st_));                                           \
    } while (0)

// After a kernel launch: configuration errors surface here, execution errors at the next synchronisation.
#define PACER_CUDA_LAUNCHED() PACER_CUDA_CHECK(cudaGetLastError())
