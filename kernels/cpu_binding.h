// Which cores a CPU rank computes on.
//
// CPU ranks of one host leave core placement to the kernel's scheduler unless told otherwise, and it does not
// keep them apart: on this 2-core machine two ranks' compute threads were found queued on one core for 1-4 ms at a
// time while the other core idled (perf sched_switch; a transformer layer of 0.6 ms took 1.75), most often right
// after a wait for a collective, where the waking thread lands on the core of the thread that woke it. As MPI's
// `--bind-to core` and torchrun's per-rank core lists do, each local rank's compute threads get cores of their own:
// local rank l of L takes the l-th run of `threadsPerRank` cores among those the process may use. The
// communication threads are left free to run wherever a core is idle, standing in for a NIC, where the host has a
// core to spare for them; where it has none, they go on the rank's cores too (bindProcessThreads): floating onto
// another rank's core, a comm thread preempts that rank's compute and pulls its own rank's gradients across
// caches (docs/ARCHITECTURE.md: 80 of 96 interleaved pairs faster bound so, median 0.969 of the time).
#pragma once

#include <string>
#include <vector>

namespace pacer::kernels {

// The CPUs this process may run on (its affinity mask: a cgroup or `taskset` may narrow it), ascending.
std::vector<int> allowedCpus();

// Local rank `localRank`'s share of `allowed`: `threadsPerRank` CPUs, the localRank-th such run. Empty where the
// host's ranks do not each get cores of their own (localRanks x threadsPerRank above the CPUs allowed), or for a
// local rank outside 0..localRanks-1: binding there would stack ranks on cores the scheduler could have spread.
std::vector<int> coreShare(const std::vector<int>& allowed, int localRank, int localRanks, int threadsPerRank);

// Binds the calling thread and OpenBLAS's worker threads to `cpus`. Call it from the compute thread, after the
// threads that must stay free (communication, tracing) were started: threads inherit their creator's mask. False,
// with the reason in *error, if the kernel refused.
bool bindComputeThreads(const std::vector<int>& cpus, std::string* error);

// Binds every thread of this process to `cpus` (the communication, transport and tracer threads with the compute
// ones), and reads the masks back: false, with the reason in *error, unless every thread then runs on `cpus` alone.
// Threads the process starts later inherit their creator's mask.
bool bindProcessThreads(const std::vector<int>& cpus, std::string* error);

}  // namespace pacer::kernels
