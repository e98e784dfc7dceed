// Import of an Nsight Systems SQLite export (`nsys export --type sqlite`): kernels, memcpy, memset, CUDA runtime
// calls, synchronisation and NVTX ranges, one track per GPU stream and per CPU thread, one rank per process.
// The export is opened read-only and checked (an SQLite file, StringIds plus at least one activity table, sane
// times) before anything is written to the project. A PyTorch DDP job recorded with emit_nvtx (and NCCL's own NVTX
// ranges) also yields its replay input, as a Kineto trace does (profiler/kineto_ddp.h); an export without it imports
// all the same and its run says what replay would need. Export schemas 2.9 (Nsight Systems 2022.2) to 3.13 (2024.5).
#pragma once

#include <cstdint>
#include <string>

#include "profiler/run_info.h"
#include "profiler/status.h"
#include "profiler/trace_model.h"

namespace pacer::profiler {

Result<RunTrace> parseNsysSqlite(const std::string& file, RunInfo* info);
Result<std::int64_t> importNsysSqlite(const std::string& file, const std::string& projectPath);

}  // namespace pacer::profiler
