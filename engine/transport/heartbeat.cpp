#include "engine/transport/heartbeat.h"

#include <sys/stat.h>

#include <cstdio>
#include <ctime>
#include <vector>

namespace pacer::engine {
namespace {

constexpr auto kBeatEvery = std::chrono::milliseconds(200);
constexpr double kStaleSeconds = 1.0;

double wallSeconds() {
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

// Age in seconds of a heartbeat file; negative if it does not exist.
double ageOf(const std::string& path) {
    struct stat st{};
    if (stat(path.c_str(), &st) != 0) return -1;
    return wallSeconds() - (static_cast<double>(st.st_mtim.tv_sec) + st.st_mtim.tv_nsec * 1e-9);
}

}  // namespace

Heartbeat::Heartbeat(std::string dir, int rank, int size) : dir_(std::move(dir)), rank_(rank), size_(size) {
    beat();
    thread_ = std::thread([this] { run(); });
}

Heartbeat::~Heartbeat() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

std::string Heartbeat::pathOf(const std::string& dir, int rank) {
    return dir + "/pacer-heartbeat-" + std::to_string(rank);
}

void Heartbeat::beat() const {
    const std::string path = pathOf(rank_);
    if (FILE* f = std::fopen(path.c_str(), "w")) {  // rewriting updates the mtime, also on network filesystems
        std::fprintf(f, "%d\n", rank_);
        std::fclose(f);
    }
}

void Heartbeat::run() {
    std::unique_lock lock(mutex_);
    while (!stop_) {
        lock.unlock();
        beat();
        lock.lock();
        wake_.wait_for(lock, kBeatEvery, [this] { return stop_; });
    }
}

std::string Heartbeat::diagnose(std::chrono::milliseconds patience) const {
    const auto deadline = std::chrono::steady_clock::now() + patience;
    for (;;) {
        int stalest = -1;
        double stalestAge = 0;
        std::vector<int> stale;
        for (int r = 0; r < size_; ++r) {
            if (r == rank_) continue;
            const double age = ageOf(pathOf(r));
            if (age > kStaleSeconds) {
                stale.push_back(r);
                if (age > stalestAge) stalest = r, stalestAge = age;
            }
        }
        if (stalest >= 0) {
            char age[32];
            std::snprintf(age, sizeof age, "%.1f", stalestAge);
            std::string msg = "rank " + std::to_string(stalest) + " stopped responding (no heartbeat for " + age + " s)";
            if (stale.size() > 1) {
                msg += "; also silent:";
                for (int r : stale)
                    if (r != stalest) msg += " rank " + std::to_string(r);
            }
            return msg;
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            std::string missing;  // no heartbeat file at all: the rank never started or never reached rendezvous
            for (int r = 0; r < size_; ++r)
                if (r != rank_ && ageOf(pathOf(r)) < 0) missing += (missing.empty() ? "" : ", ") + std::to_string(r);
            if (!missing.empty()) return "rank " + missing + " never joined";
            return "every peer rank is still alive, so one of them is stuck";
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
}

}  // namespace pacer::engine
