// CPU link emulation: each rank's link gets a bandwidth cap and a per-step latency, so that ranks on one
// 2-core machine see the collective times of a cluster network.
//
// A ring all-reduce over n ranks makes 2(n-1) steps and each rank sends 2(n-1)/n of the buffer, so on a link
// of bandwidth B and latency L it cannot finish before 2(n-1)·L + 2(n-1)/n · bytes / B. After the real
// collective, the rank sleeps until that time has passed since it started; on loopback the real transfer is
// usually faster, so the emulated link sets the pace.
//
// The transport's channels share one link, as they share one NIC: a collective's bytes go on the wire after
// those of the collectives issued before it (a FIFO queue at the sender), while latencies overlap. With one
// channel that is exactly the rule above.
//
// Point-to-point rounds (engine/transport/point_to_point.h) model one link per port, as on the multiported tori
// Sack & Gropp measured: each port has a queue of its own at the sender, so messages on different ports move at the
// same time. The sender holds each piece of a message back until the emulated wire has carried it (releasePiece),
// so the receiver's wait, its adds and the real transfer all overlap the emulated time, as on a real link; pacing
// at the receiver instead would let a late sender's message look early. Each port of a ring or torus has one peer
// at the far end, so the sender's queue is also the receiver's. Port 0's queue is the wire the whole collectives
// use.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <mutex>
#include <thread>
#include <vector>

namespace pacer::engine {

class LinkEmulator {
public:
    using Clock = std::chrono::steady_clock;

    LinkEmulator(double gbps, double latencyUs, int ranks) : gbps_(gbps), latencyUs_(latencyUs), ranks_(ranks) {}

    bool active() const { return ranks_ > 1 && (gbps_ > 0 || latencyUs_ > 0); }

    // When an all-reduce of `bytes` issued at `start` is over on the emulated link; reserves its wire time.
    Clock::time_point reserveAllreduce(Clock::time_point start, std::size_t bytes) {
        const double steps = 2.0 * (ranks_ - 1);
        return reserve(start, steps, steps / ranks_ * static_cast<double>(bytes));
    }
    // Binomial-tree broadcast: ceil(log2 n) steps, the whole buffer on each.
    Clock::time_point reserveBroadcast(Clock::time_point start, std::size_t bytes) {
        int steps = 0;
        while ((1 << steps) < ranks_) ++steps;
        return reserve(start, steps, static_cast<double>(steps) * bytes);
    }

    // Point-to-point: when a piece of `bytes` handed to `port` at `start` has crossed that port's link, i.e. when the
    // sender may really send it. The sender paces its pieces this way, so a receiver sees each one arrive when the
    // emulated wire would deliver it; each port has a queue of its own and ports move at the same time. One
    // latency is added to every piece: the pieces of one message follow each other, so a message pays it once.
    Clock::time_point releasePiece(Clock::time_point start, int port, std::size_t bytes) {
        if (!active()) return start;
        std::lock_guard lock(mutex_);
        if (out_.size() <= static_cast<std::size_t>(port)) out_.resize(port + 1);
        Clock::time_point& free = port == 0 ? wireFree_ : out_[port];
        free = std::max(free, start) + wireTime(static_cast<double>(bytes));
        return free + std::chrono::nanoseconds(static_cast<long long>(latencyUs_ * 1e3));
    }

    // Sleeps until the emulated link is done with a collective (no-op when emulation is off).
    void paceUntil(Clock::time_point done) const {
        if (active()) std::this_thread::sleep_until(done);
    }

private:
    std::chrono::nanoseconds wireTime(double bytes) const {  // gbps = bits per ns
        return std::chrono::nanoseconds(static_cast<long long>(gbps_ > 0 ? bytes * 8.0 / gbps_ : 0));
    }

    Clock::time_point reserve(Clock::time_point start, double steps, double wireBytes) {
        if (!active()) return start;
        const auto wire = wireTime(wireBytes);
        const auto latency = std::chrono::nanoseconds(static_cast<long long>(steps * latencyUs_ * 1e3));
        std::lock_guard lock(mutex_);
        wireFree_ = std::max(wireFree_, start) + wire;
        return wireFree_ + latency;
    }

    double gbps_;
    double latencyUs_;
    int ranks_;
    std::mutex mutex_;
    Clock::time_point wireFree_{};  // when the bytes queued so far have left
    std::vector<Clock::time_point> out_;  // point-to-point ports (out_[0] unused: port 0 is wireFree_)
};

}  // namespace pacer::engine
