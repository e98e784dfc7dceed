// Scheduler hint for the threads that stand in for a NIC on CPU ranks: the runtime's communication thread and
// the transport's I/O threads.
//
// Each collective is a handful of thread wake-ups (the caller, the transport's event loop, the link emulator's
// timer). Since Linux 6.6 the fair scheduler (EEVDF) lets the running thread finish its slice (~1.5 ms on two
// cores) before a woken thread of equal priority runs, so on a CPU rank, where compute threads keep every core
// busy, each wake-up could wait that long and a 4 KiB all-reduce took 1-2 ms instead of 0.2. A thread that asks
// for a short slice (sched_setattr with SCHED_OTHER and sched_runtime, Linux 6.12+; no privilege needed) gets an
// early deadline and preempts at once when it wakes. On older kernels the request is ignored or refused; both
// are harmless, so the result is only informative.
#pragma once

#include <linux/sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <dirent.h>
#include <set>
#include <string>

namespace pacer::engine {

// The slice asked for: the scheduler's minimum.
inline constexpr std::uint64_t kShortSliceNs = 100'000;

// Asks for a short scheduler slice for thread `tid` (0: the calling thread). True if the kernel accepted it.
inline bool requestShortSlice(pid_t tid = 0) {
    struct Attr {  // struct sched_attr (linux/sched/types.h), declared here so that old headers do not matter
        std::uint32_t size;
        std::uint32_t sched_policy;
        std::uint64_t sched_flags;
        std::int32_t sched_nice;
        std::uint32_t sched_priority;
        std::uint64_t sched_runtime, sched_deadline, sched_period;
    } attr{};
    attr.size = sizeof attr;
    attr.sched_policy = SCHED_NORMAL;
    // The thread keeps its nice value (the slice is set with the other parameters, so they are all given).
    errno = 0;
    const int nice = getpriority(PRIO_PROCESS, static_cast<id_t>(tid == 0 ? syscall(SYS_gettid) : tid));
    if (errno != 0) return false;
    attr.sched_nice = nice;
    attr.sched_runtime = kShortSliceNs;
    return syscall(SYS_sched_setattr, tid, &attr, 0u) == 0;
}

// Asks the kernel to fire the calling thread's timed waits on time: by default a sleeping thread's timer may fire
// up to 50 us late (its timer slack, which lets the kernel batch wake-ups). The comm thread sleeps in the link
// emulator until a collective's emulated end (LinkEmulator) and until a policy's wake time (Horovod's tick). On the
// small MLP at 10 Gb/s (2026-12-04, 4 interleaved pairs) its 800 KB unit, emulated at 680 us, took 769 us with the
// default slack and 733 us with 1 ns, a round 130 -> 122 us; the tick's round still starts about 90 us after the
// tick, with or without (waking an idle core on this virtual machine, not the slack). True if the kernel accepted.
inline bool requestPreciseTimers() { return prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL) == 0; }

// The ids of this process's threads, to find the ones a library just started.
inline std::set<pid_t> processThreads() {
    std::set<pid_t> ids;
    if (DIR* dir = opendir("/proc/self/task")) {
        while (dirent* e = readdir(dir))
            if (e->d_name[0] != '.') ids.insert(static_cast<pid_t>(std::stol(e->d_name)));
        closedir(dir);
    }
    return ids;
}

}  // namespace pacer::engine
