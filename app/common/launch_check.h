// What a local launch refuses before any worker starts, in one place for every way a run is started: `pacer-cli
// capture` (through the launcher) and the GUI's experiment editor call the same function, so a setting is refused
// with the same sentence wherever it was typed.
//
// On top of the experiment's own validation (experiment.cpp) this checks that the model is well formed and that its
// ranks can hold it in this machine's memory, and that the policy settings are ones the engine accepts whatever the
// model is, and the workers' settings from the environment (PACER_BIND, PACER_SHM_STORES). What depends on the
// model's tensors (manual priorities, fusion groups) is left to each worker.
#pragma once

#include "app/common/experiment.h"
#include "engine/transport/transport.h"

#include <optional>
#include <string>

namespace pacer::app {

// PACER_BIND, how CPU ranks are placed on cores (kernels/cpu_binding.h): "cores" or unset, each rank's threads on
// cores of its own, its communication threads too where the host has no core to spare for them; "compute", the
// compute threads alone, the communication threads free; "none", wherever the scheduler puts them. nullopt with
// *error set to one line for anything else. The worker reads it, the launcher checks it first.
enum class CoreBinding { Cores, Compute, None };
std::optional<CoreBinding> coreBindingSetting(const char* value, std::string* error);

// PACER_SHM_STORES, how the shared-memory all-reduce writes the slots its peers read
// (engine/transport/shm_slot_stores.h): "auto" or unset, measured while it runs; "cached" or "streaming", fixed (to
// compare them, or to rule the choice out). nullopt with *error set to one line for anything else.
std::optional<engine::SlotStores> slotStoresSetting(const char* value, std::string* error);

// The experiment with the overrides applied, or nullopt with *error set to one line.
std::optional<Experiment> resolveForLaunch(Experiment experiment, const ExperimentOverrides& overrides,
                                           std::string* error);

}  // namespace pacer::app
