// What a run over shared memory recorded of its slot stores (engine/transport/shm_slot_stores.h), as its metrics
// keep them (`shm_chunks_measured`, `shm_streaming_share`, `shm_stores_fixed`, the same on every rank), in the words
// `runs` and the project tree show: a run with a high share met the host with the ranks' cores apart, which slows
// ordinary stores' transfers between them (docs/shm-slot-stores.md).
#pragma once

#include <map>
#include <string>

namespace pacer::app {

// "shared memory: streaming stores for 22% of 3200 chunks (measured faster then, as where the ranks' cores share no
// cache)", or "(fixed by PACER_SHM_STORES)"; "shared memory: ordinary stores for all 10 chunks" where none went
// streaming (an exploration counts as the way it explored from);
// empty for a run without the figures (another transport, no chunk large enough to measure, runs captured before
// 2026-12-05).
std::string describeSlotStores(const std::map<std::string, double>& metrics);

}  // namespace pacer::app
