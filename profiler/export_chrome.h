// Export of one run as Chrome trace JSON that Perfetto and chrome://tracing open: `X` events (ts/dur in µs with
// exact ns decimals), `M` names for processes (ranks) and threads (tracks), and flows from each backward to the
// all-reduce of its layer and from each CUDA API call to the GPU work it launched. A top-level "pacer" object keeps
// the run settings, tracks and tensors, so importChromeTrace brings the run back event for event.
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

#include "profiler/run_info.h"
#include "profiler/status.h"
#include "profiler/trace_model.h"

namespace pacer::profiler {

Status exportChromeTrace(const std::string& projectPath, std::int64_t runId, const std::string& outFile);
void writeChromeTrace(std::ostream& out, const RunTrace& trace, const RunInfo& info);

// Writes a file through `write` beside its target and renames it into place: a failed export leaves no half file.
// The target may not be the project being read, nor any project, nor a file that does not start with exportHead
// (only an earlier export of the same format is replaced).
Status writeFileReplacing(const std::string& projectPath, const std::string& outFile, std::string_view exportHead,
                          const std::function<void(std::ostream&)>& write);

}  // namespace pacer::profiler
