// Starts work (and the threads it creates) at the priority the process started with, from a thread that kept it.
//
// A Linux thread inherits its creator's nice value, and an unprivileged thread cannot raise it back. A CPU rank's
// compute thread lowers its own priority so that the communication threads (the engine's and Gloo's, standing in
// for a NIC) get a core when a collective needs one (app/worker/training_run.cpp, yieldToCommunication). A runtime
// that thread started later, at the warm-up switch of plan order or a self-tuned pace, ran its comm thread at the
// lowered priority too: its collectives waited behind the peer's compute for the rest of the run (42 M MLP over
// Gloo, 2 ranks on 2 cores: a self-tuned pace at 511-679 ms per iteration where the same settings given explicitly,
// started before the loop, ran at 452-475). Creating runtimes here keeps their threads at the start priority.
#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace pacer::engine {

class StartPriorityLauncher {
public:
    // Create it before any thread of the process lowers its priority: its thread inherits its creator's.
    StartPriorityLauncher();
    ~StartPriorityLauncher();
    StartPriorityLauncher(const StartPriorityLauncher&) = delete;
    StartPriorityLauncher& operator=(const StartPriorityLauncher&) = delete;

    // Runs `work` on the launcher's thread and returns when it has; what it throws is rethrown here. The work is
    // local (constructing objects, starting threads), so the wait is as bounded as the work itself.
    void run(const std::function<void()>& work);

private:
    void loop();

    std::mutex callMutex_;  // one run() at a time
    std::mutex mutex_;
    std::condition_variable cv_;
    const std::function<void()>* work_ = nullptr;  // set by run(), cleared by the launcher's thread when done
    std::exception_ptr thrown_;
    bool stopping_ = false;
    std::thread thread_;  // last: started once the members above exist
};

}  // namespace pacer::engine
