// The calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID) in ns: what the engine's own threads spend, read by the
// runtime after each collective and by the start-up all-reduces (collectives/collective_cpu.h). The profiler keeps
// its own reading (profiler/clock.h), since the engine does not link the profiler.
#pragma once

#include "engine/tensor.h"

#include <ctime>

namespace pacer::engine {

inline Nanos threadCpuNs() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<Nanos>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace pacer::engine
