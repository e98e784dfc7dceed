#include "app/worker/trace_writer_thread.h"

#include <pthread.h>
#include <sched.h>

namespace pacer::worker {

TraceWriterThread::TraceWriterThread(std::function<void()> write, std::chrono::milliseconds period)
    : write_(std::move(write)), period_(period), thread_([this] { loop(); }) {}

TraceWriterThread::~TraceWriterThread() {
    try {
        stop();
    } catch (...) {  // the owner that wanted the error called stop() itself
    }
}

void TraceWriterThread::stop() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
    if (thrown_) std::rethrow_exception(std::exchange(thrown_, nullptr));
}

void TraceWriterThread::loop() {
    // SCHED_IDLE: below every nice level, so it takes a core only when nothing else wants one. An unprivileged
    // thread may always lower itself; where it cannot, it writes at its inherited priority, still off the loop.
    sched_param none{};
    (void)pthread_setschedparam(pthread_self(), SCHED_IDLE, &none);
    std::unique_lock lock(mutex_);
    while (!stopping_) {
        cv_.wait_for(lock, period_, [this] { return stopping_; });
        if (stopping_) break;
        lock.unlock();
        try {
            std::lock_guard writing(writerMutex_);
            write_();
        } catch (...) {
            lock.lock();
            thrown_ = std::current_exception();
            return;
        }
        lock.lock();
    }
}

}  // namespace pacer::worker
