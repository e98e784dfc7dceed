// pacer-worker: one rank of a Pacer run. Free of Qt so that it runs on cluster nodes that have only CUDA.
// Exit codes: 0 ok, 1 the run failed (a peer died, a timeout, a CUDA error), 2 bad usage or input.
#include "app/worker/training_run.h"
#include "app/worker/worker_options.h"

#include <cstdio>
#include <exception>

int main(int argc, char** argv) {
    using namespace pacer::worker;
    std::string error;
    bool help = false;
    auto options = parseWorkerOptions(argc, argv, &error, &help);
    if (help) {
        std::fputs(workerUsage(), stdout);
        return 0;
    }
    if (!options) {
        std::fprintf(stderr, "pacer-worker: error: %s\n%s", error.c_str(), workerUsage());
        return 2;
    }
    try {
        runTraining(*options);
        return 0;
    } catch (const UsageError& e) {
        std::fprintf(stderr, "pacer-worker: rank %d: error: %s\n", options->rank, e.what());
        return 2;
    } catch (const RunError& e) {
        std::fprintf(stderr, "pacer-worker: rank %d: error: %s\n", options->rank, e.what());
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "pacer-worker: rank %d: error: %s\n", options->rank, e.what());
        return 1;
    }
}
