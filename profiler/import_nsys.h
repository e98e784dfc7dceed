// Import of Nsight Systems SQLite exports (`nsys export --type sqlite`): kernels, memcpy, memset, CUDA runtime
// calls, synchronisation and NVTX ranges, one track per GPU stream and per CPU thread, one rank per process.
// Several exports of one job (one nsys session per node or per rank) merge into one run: their clocks are aligned by
// each session's recorded start, their ranks come from NCCL's ncclCommInitRank ranges, and exports of another job
// (another communicator or world size, no overlap in time) or of a rank already given are refused.
// Every export is opened read-only and checked (an SQLite file, StringIds plus at least one activity table, sane
// times) before anything is written to the project. A PyTorch DDP job recorded with emit_nvtx (and NCCL's own NVTX
// ranges) also yields its replay input, as a Kineto trace does (profiler/kineto_ddp.h); an export without it imports
// all the same and its run says what replay would need. Export schemas 2.9 (Nsight Systems 2022.2) to 3.25 (2026.2).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "profiler/run_info.h"
#include "profiler/status.h"
#include "profiler/trace_model.h"

namespace pacer::profiler {

Result<RunTrace> parseNsysSqlite(const std::vector<std::string>& files, RunInfo* info);
Result<std::int64_t> importNsysSqlite(const std::vector<std::string>& files, const std::string& projectPath);

}  // namespace pacer::profiler
