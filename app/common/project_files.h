// Project files as the CLI and the GUI make them: a new empty project, and a run imported from other tools'
// traces (Chrome trace JSON from the PyTorch profiler / Kineto or Horovod, Nsight Systems SQLite exports). One
// code path for `pacer-cli import` and the GUI's File ▸ Import, so both refuse the same inputs with the same words.
#pragma once

#include "profiler/status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pacer::app {

// Creates an empty project (the schema, no runs). An existing file is refused, never overwritten.
profiler::Status createProject(const std::string& path);

// Imports `files` as one new run of `projectPath` (created when missing; an existing file must be a project).
// format: "chrome" (one or more files, one per rank) or "nsys" (one SQLite export).
profiler::Result<std::int64_t> importTraces(const std::string& format, const std::vector<std::string>& files,
                                            const std::string& projectPath);

}  // namespace pacer::app
