// Builds without CUDA still link against makeCudaBackend(); asking for it is a clear run-time error.
#include "kernels/backend.h"

#include <stdexcept>

namespace pacer::kernels {

std::unique_ptr<Backend> makeCudaBackend(void*) {
    throw std::runtime_error("CUDA backend: Pacer was built without CUDA");
}

}  // namespace pacer::kernels
