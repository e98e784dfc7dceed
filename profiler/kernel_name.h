// The name a timeline shows for a GPU kernel. CUPTI reports the mangled symbol
// ("_ZN7cutlass7Kernel2I41cutlass_80_simt_sgemm_64x64_8x5_nn_align1EEvNT_6ParamsE"); Nsight Systems shows the
// function's own name, so does Pacer: demangled, without return type, namespaces and parameter list, with its
// template arguments ("Kernel2<cutlass_80_simt_sgemm_64x64_8x5_nn_align1>"), since for library kernels those
// are what tells one from another. Names that are not mangled C++ (cuBLAS's "sm80_xmma_gemm_...", NCCL's
// "ncclDevKernel_...") pass through unchanged.
#pragma once

#include <string>
#include <string_view>

namespace pacer::profiler {

std::string kernelDisplayName(std::string_view symbol);

}  // namespace pacer::profiler
