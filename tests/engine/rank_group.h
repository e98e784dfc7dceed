// Ranks as threads for the engine tests: N Gloo transports over TCP loopback with a FileStore in a temp dir,
// as Gloo's own tests do, and a helper that runs one function per rank and collects their Statuses.
#pragma once

#include "engine/trace_sink.h"
#include "engine/transport/transport.h"

#include <QTemporaryDir>

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace pacer::engine::testing {

// Connects `ranks` thread ranks through `make` (makeGlooTransport, makeSharedMemoryTransport, ...).
inline Result<std::vector<std::unique_ptr<Transport>>> connectRanksWith(
    Result<std::unique_ptr<Transport>> (*make)(const TransportOptions&), int ranks, const QString& dir,
    std::chrono::milliseconds timeout = std::chrono::milliseconds(20000), double gbps = 0, double latencyUs = 0,
    int channels = 1, const std::function<void(TransportOptions&)>& adjust = {}) {
    std::vector<std::unique_ptr<Transport>> transports(ranks);
    std::vector<Status> errors(ranks);
    std::vector<std::thread> threads;
    for (int r = 0; r < ranks; ++r) {
        threads.emplace_back([&, r] {
            TransportOptions o;
            o.rank = r;
            o.size = ranks;
            o.rendezvous_dir = dir.toStdString();
            o.timeout = timeout;
            o.link_gbps = gbps;
            o.link_latency_us = latencyUs;
            o.channels = channels;
            if (adjust) adjust(o);
            auto t = make(o);
            if (t.ok()) transports[r] = std::move(t.value());
            else errors[r] = t.status();
        });
    }
    for (auto& t : threads) t.join();
    for (const Status& s : errors)
        if (!s.ok()) return s;
    return transports;
}

inline Result<std::vector<std::unique_ptr<Transport>>> connectRanks(int ranks, const QString& dir,
                                                                    std::chrono::milliseconds timeout = std::chrono::milliseconds(20000),
                                                                    double gbps = 0, double latencyUs = 0, int channels = 1) {
    return connectRanksWith(makeGlooTransport, ranks, dir, timeout, gbps, latencyUs, channels);
}

// Runs fn(rank) on one thread per rank; returns each rank's Status.
inline std::vector<Status> onEveryRank(int ranks, const std::function<Status(int)>& fn) {
    std::vector<Status> results(ranks);
    std::vector<std::thread> threads;
    for (int r = 0; r < ranks; ++r) threads.emplace_back([&, r] { results[r] = fn(r); });
    for (auto& t : threads) t.join();
    return results;
}

// Every rank reduces data[r] on channel 0 and data[ranks + r] on channel 1 at once, from two threads.
inline std::vector<Status> reduceOnTwoChannels(std::vector<std::unique_ptr<Transport>>& group,
                                               std::vector<std::vector<float>>& data) {
    const int ranks = static_cast<int>(group.size());
    return onEveryRank(ranks, [&](int r) {
        Status second;
        std::thread other([&] { second = group[r]->allreduceOn(1, data[ranks + r].data(), data[ranks + r].size()); });
        Status first = group[r]->allreduceOn(0, data[r].data(), data[r].size());
        other.join();
        return first.ok() ? second : first;
    });
}

class RecordingSink final : public TraceSink {
public:
    void onComm(const CommEvent& e) override {
        {
            std::lock_guard lock(mutex_);
            events_.push_back(e);
            log_.push_back({false, events_.size() - 1});
        }
        recorded_.notify_all();
    }
    void onRound(const RoundEvent& e) override {
        std::lock_guard lock(mutex_);
        rounds_.push_back(e);
        log_.push_back({true, rounds_.size() - 1});
    }
    std::vector<CommEvent> events() const {
        std::lock_guard lock(mutex_);
        return events_;
    }
    std::vector<RoundEvent> rounds() const {
        std::lock_guard lock(mutex_);
        return rounds_;
    }
    // Units and rounds in the order they were reported: (is a round, index into rounds() or events()).
    std::vector<std::pair<bool, std::size_t>> log() const {
        std::lock_guard lock(mutex_);
        return log_;
    }
    // Blocks until `count` units have completed (or the timeout passed): lets a test order its steps by what the
    // runtime did instead of by sleeping and hoping.
    bool waitForEvents(std::size_t count, std::chrono::milliseconds timeout) const {
        std::unique_lock lock(mutex_);
        return recorded_.wait_for(lock, timeout, [&] { return events_.size() >= count; });
    }

private:
    mutable std::mutex mutex_;
    mutable std::condition_variable recorded_;
    std::vector<CommEvent> events_;
    std::vector<RoundEvent> rounds_;
    std::vector<std::pair<bool, std::size_t>> log_;
};

}  // namespace pacer::engine::testing
