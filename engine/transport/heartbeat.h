// Liveness of the peer ranks, so that a failed collective can say which rank stopped.
//
// Each rank touches <rendezvous>/pacer-heartbeat-<rank> every 200 ms from a small thread. When a collective
// fails or times out, diagnose() looks at the peers' files: a peer whose file has not changed for a second has
// died or hangs (SIGSTOP, a crash, a lost node). Files work across nodes wherever the rendezvous directory is
// shared, which it must be anyway for the FileStore.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace pacer::engine {

class Heartbeat {
public:
    Heartbeat(std::string dir, int rank, int size);
    ~Heartbeat();
    Heartbeat(const Heartbeat&) = delete;
    Heartbeat& operator=(const Heartbeat&) = delete;

    // Names the peers that stopped, waiting up to `patience` for a just-killed peer's file to go stale.
    // Returns e.g. "rank 2 stopped responding (no heartbeat for 1.4 s)", "rank 3 never joined", or a note that
    // all peers are alive (then one is stuck).
    std::string diagnose(std::chrono::milliseconds patience = std::chrono::milliseconds(1500)) const;

    // The heartbeat file of `rank` in rendezvous directory `dir`.
    static std::string pathOf(const std::string& dir, int rank);

private:
    std::string pathOf(int rank) const { return pathOf(dir_, rank); }
    void beat() const;
    void run();

    std::string dir_;
    int rank_;
    int size_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stop_ = false;
    std::thread thread_;
};

}  // namespace pacer::engine
