// CPU time of another thread of this process, by its kernel thread id: how the transports account for the threads
// they run besides their callers (Gloo's event loop), whose work on a CPU rank is part of what a collective takes
// from compute.
#pragma once

#include <sys/types.h>
#include <time.h>

#include <atomic>
#include <cstdint>

namespace pacer::engine {

// The kernel's per-thread CPU clock of `tid` (the clock id that glibc's pthread_getcpuclockid builds: the inverted
// id above three type bits, "per thread" and "scheduler time"); -1 when `tid` is not a live thread of this process.
inline std::int64_t threadCpuNs(pid_t tid) {
    constexpr unsigned kPerThread = 4, kSchedulerClock = 2;
    const auto clock = static_cast<clockid_t>((~static_cast<unsigned>(tid) << 3) | kPerThread | kSchedulerClock);
    timespec ts{};
    if (clock_gettime(clock, &ts) != 0) return -1;
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// A CPU total that several threads read and share out (the channels of one runtime, the transport's threads'
// total): each take() gets what the total grew by since any caller's previous one, so no nanosecond goes to two.
class CpuShare {
public:
    void reset(std::int64_t total) { seen_.store(total); }
    std::int64_t take(std::int64_t total) {
        std::int64_t seen = seen_.load();
        while (total > seen && !seen_.compare_exchange_weak(seen, total)) {
        }
        return total > seen ? total - seen : 0;
    }

private:
    std::atomic<std::int64_t> seen_{0};
};

}  // namespace pacer::engine
