// What a run over shared memory recorded of its slot stores (engine/transport/shm_slot_stores.h), as its metrics
// keep them (`shm_chunks_measured`, `shm_streaming_share`, the same on every rank), in the words `runs` and the
// project tree show: a run with a high share met the host with the ranks' cores apart, which slows every transfer
// between them (docs/shm-slot-stores.md).
#pragma once

#include <map>
#include <string>

namespace pacer::app {

// "shared memory: 22% of 3200 chunks written with streaming stores (measured faster then, as where the ranks' cores
// share no cache)", the reason only from 10% up (the choice's own exploration writes about 2%); empty for a run
// without the figures (another transport, no chunk large enough to measure, runs captured before 2026-12-05).
std::string describeSlotStores(const std::map<std::string, double>& metrics);

}  // namespace pacer::app
