// Writes the trace to the rank file beside the training loop, not inside it.
//
// Until 2026-12-04 the training loop wrote every 20th iteration's trace itself: the small MLP's every 20th
// iteration took 1.2-1.4 ms longer (2.5-3.8% of each run's measured time, more under fifo, whose events are more,
// than under ddp; the peer rank waited for it in the next collective), and a GPU rank's CUPTI flush of 20
// iterations took 30 ms against iterations of 1 ms. Here a thread of its own, at SCHED_IDLE, writes whenever a
// core has nothing else to run: on a CPU rank the compute and communication threads always come first, and what
// it has not written when the loop ends is written after the run's measured window closes.
#pragma once

#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

namespace pacer::worker {

class TraceWriterThread {
public:
    // `write` moves what the tracers hold to the rank file; it is called on this object's thread, every `period`,
    // under writerMutex(). What it throws stops the thread and is rethrown by stop().
    TraceWriterThread(std::function<void()> write, std::chrono::milliseconds period);
    ~TraceWriterThread();  // stops, dropping any error (call stop() to see it)
    TraceWriterThread(const TraceWriterThread&) = delete;
    TraceWriterThread& operator=(const TraceWriterThread&) = delete;

    // Held while the thread writes: whoever else uses the rank file mid-run takes it too.
    std::mutex& writerMutex() { return writerMutex_; }

    // Ends the thread after the write in progress, if any; rethrows what a write threw. Idempotent.
    void stop();

private:
    void loop();

    std::function<void()> write_;
    std::chrono::milliseconds period_;
    std::mutex writerMutex_;
    std::mutex mutex_;
    std::condition_variable cv_;
    bool stopping_ = false;
    std::exception_ptr thrown_;
    std::thread thread_;
};

}  // namespace pacer::worker
