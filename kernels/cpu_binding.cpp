#include "kernels/cpu_binding.h"

#include <cblas.h>
#include <pthread.h>
#include <sched.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace pacer::kernels {

namespace {
cpu_set_t maskOf(const std::vector<int>& cpus) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c : cpus)
        if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &set);
    return set;
}
}  // namespace

std::vector<int> allowedCpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    std::vector<int> cpus;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
    for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &set)) cpus.push_back(c);
    return cpus;
}

std::vector<int> coreShare(const std::vector<int>& allowed, int localRank, int localRanks, int threadsPerRank) {
    if (localRanks < 1 || threadsPerRank < 1 || localRank < 0 || localRank >= localRanks) return {};
    const auto need = static_cast<std::size_t>(localRanks) * static_cast<std::size_t>(threadsPerRank);
    if (need > allowed.size()) return {};
    const auto first = allowed.begin() + static_cast<std::ptrdiff_t>(localRank) * threadsPerRank;
    return {first, first + threadsPerRank};
}

bool bindComputeThreads(const std::vector<int>& cpus, std::string* error) {
    if (cpus.empty()) {
        *error = "no CPUs to bind to";
        return false;
    }
    cpu_set_t set = maskOf(cpus);
    if (const int rc = pthread_setaffinity_np(pthread_self(), sizeof set, &set); rc != 0) {
        *error = std::string("cannot bind the compute thread: ") + std::strerror(rc);
        return false;
    }
    // OpenBLAS's workers, 0..n-2 (n-1 is the caller, bound above); the library started them when it loaded, with
    // the process's whole mask.
    const int blasThreads = openblas_get_num_threads();
    for (int i = 0; i + 1 < blasThreads; ++i)
        if (openblas_setaffinity(i, sizeof set, &set) != 0) {
            *error = "cannot bind OpenBLAS thread " + std::to_string(i) + ": " + std::strerror(errno);
            return false;
        }
    return true;
}

bool bindProcessThreads(const std::vector<int>& cpus, std::string* error) {
    if (cpus.empty()) {
        *error = "no CPUs to bind to";
        return false;
    }
    const cpu_set_t set = maskOf(cpus);
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task", ec)) {
        const auto tid = static_cast<pid_t>(std::strtol(entry.path().filename().c_str(), nullptr, 10));
        if (tid <= 0) continue;
        cpu_set_t got;
        CPU_ZERO(&got);
        // A thread that ended since the listing is no longer there to bind (ESRCH).
        if (sched_setaffinity(tid, sizeof set, &set) != 0 && errno != ESRCH) {
            *error = "cannot bind thread " + std::to_string(tid) + ": " + std::strerror(errno);
            return false;
        }
        if (sched_getaffinity(tid, sizeof got, &got) == 0 && !CPU_EQUAL(&got, &set)) {
            *error = "thread " + std::to_string(tid) + " kept another mask";
            return false;
        }
    }
    if (ec) {
        *error = "cannot list this process's threads: " + ec.message();
        return false;
    }
    return true;
}

}  // namespace pacer::kernels
