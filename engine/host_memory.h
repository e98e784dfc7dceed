// How much memory this machine can still give without swapping: what a run or a benchmark checks its own needs
// against before it allocates, so an impossible size is a clear error instead of a bad_alloc in some thread.
#pragma once

#include <cstdint>

namespace pacer::engine {

// MemAvailable from /proc/meminfo in bytes; 0 when it cannot be read (then callers check nothing).
std::uint64_t availableHostMemoryBytes();

}  // namespace pacer::engine
