// CPU link emulation: each rank's link gets a bandwidth cap and a per-step latency, so that ranks on one
// 2-core machine see the collective times of a cluster network.
//
// A ring all-reduce over n ranks makes 2(n-1) steps and each rank sends 2(n-1)/n of the buffer, so on a link
// of bandwidth B and latency L it cannot finish before 2(n-1)·L + 2(n-1)/n · bytes / B. After the real
// collective, the rank sleeps until that time has passed since it started; on loopback the real transfer is
// usually faster, so the emulated link sets the pace.
#pragma once

#include <chrono>
#include <cstddef>
#include <thread>

namespace pacer::engine {

class LinkEmulator {
public:
    LinkEmulator(double gbps, double latencyUs, int ranks) : gbps_(gbps), latencyUs_(latencyUs), ranks_(ranks) {}

    bool active() const { return ranks_ > 1 && (gbps_ > 0 || latencyUs_ > 0); }

    std::chrono::nanoseconds allreduceTime(std::size_t bytes) const {
        const double steps = 2.0 * (ranks_ - 1);
        const double wireBytes = steps / ranks_ * static_cast<double>(bytes);
        return nanos(steps, wireBytes);
    }
    // Binomial-tree broadcast: ceil(log2 n) steps, the whole buffer on each.
    std::chrono::nanoseconds broadcastTime(std::size_t bytes) const {
        int steps = 0;
        while ((1 << steps) < ranks_) ++steps;
        return nanos(steps, static_cast<double>(steps) * bytes);
    }

    void paceSince(std::chrono::steady_clock::time_point start, std::chrono::nanoseconds emulated) const {
        if (active()) std::this_thread::sleep_until(start + emulated);
    }

private:
    std::chrono::nanoseconds nanos(double steps, double wireBytes) const {
        double ns = steps * latencyUs_ * 1e3;
        if (gbps_ > 0) ns += wireBytes * 8.0 / gbps_;  // gbps = bits per ns
        return std::chrono::nanoseconds(static_cast<long long>(ns));
    }

    double gbps_;
    double latencyUs_;
    int ranks_;
};

}  // namespace pacer::engine
