// One rank's training run: builds the model, the data, the transport, the policy and the runtime from the
// resolved experiment, runs the iterations with the engine reducing gradients as backward produces them, and
// writes the rank's trace file.
//
// Error policy: everything the user can get wrong (experiment, model spec, settings) is a UsageError (exit 2);
// everything that goes wrong while running (a peer dies, a timeout, CUDA) is a RunError (exit 1). Both carry one
// line a person can act on.
#pragma once

#include "app/worker/worker_options.h"

#include <stdexcept>
#include <string>

namespace pacer::worker {

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};
struct RunError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Runs the rank to the end; prints progress lines (JSON) on stdout. Throws UsageError or RunError.
void runTraining(const WorkerOptions& options);

}  // namespace pacer::worker
