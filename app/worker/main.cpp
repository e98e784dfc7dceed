// pacer-worker: one rank of a Pacer run. Free of Qt so that it runs on cluster nodes that have only CUDA.
// Exit codes: 0 ok, 1 the run failed (a peer died, a timeout, a CUDA error), 2 bad usage or input.
#include "app/worker/training_run.h"
#include "app/worker/worker_options.h"
#include "kernels/device.h"

#include <cstdio>
#include <exception>
#include <string_view>

int main(int argc, char** argv) {
    using namespace pacer::worker;
    // Device discovery for the GUI's experiment editor, which is free of CUDA: the worker is what runs on the GPUs.
    if (argc == 2 && std::string_view(argv[1]) == "--list-gpus") {
        std::string why;
        for (const std::string& gpu : pacer::kernels::cudaDevices(&why)) std::printf("%s\n", gpu.c_str());
        if (!why.empty()) std::fprintf(stderr, "%s\n", why.c_str());
        return 0;
    }
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
