#include "engine/start_priority_launcher.h"

#include <utility>

namespace pacer::engine {

StartPriorityLauncher::StartPriorityLauncher() : thread_([this] { loop(); }) {}

StartPriorityLauncher::~StartPriorityLauncher() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    cv_.notify_all();
    thread_.join();
}

void StartPriorityLauncher::run(const std::function<void()>& work) {
    std::lock_guard oneCaller(callMutex_);
    std::unique_lock lock(mutex_);
    work_ = &work;
    thrown_ = nullptr;
    cv_.notify_all();
    cv_.wait(lock, [&] { return work_ == nullptr; });
    if (std::exception_ptr e = std::exchange(thrown_, nullptr)) std::rethrow_exception(e);
}

void StartPriorityLauncher::loop() {
    std::unique_lock lock(mutex_);
    for (;;) {
        cv_.wait(lock, [&] { return stopping_ || work_ != nullptr; });
        if (work_ == nullptr) return;  // stopping, nothing pending
        const std::function<void()>* work = work_;
        lock.unlock();
        std::exception_ptr thrown;
        try {
            (*work)();
        } catch (...) {
            thrown = std::current_exception();
        }
        lock.lock();
        thrown_ = thrown;
        work_ = nullptr;
        cv_.notify_all();
    }
}

}  // namespace pacer::engine
