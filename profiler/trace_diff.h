// The difference between two runs (captured, imported or replayed) unit by unit: what a compare view and
// `pacer-cli diff` show. A unit is a communication unit, keyed by its first tensor and segment ("unit fc1.weight
// #2", so a run and its replays line up whatever they call fused units), or, without a tensor, an op or GPU kernel
// keyed by its name (what an imported trace has instead of Pacer's units). Per key and
// run: how many there are per iteration, and their mean start (from their iteration's first event) and mean
// duration; rows of units both runs have first, each group sorted by the larger of the start and duration drifts,
// largest first.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "profiler/trace_model.h"

namespace pacer::profiler {

struct UnitStats {
    double count = 0;     // per iteration
    double start_ns = 0;  // mean, from the start of its iteration
    double dur_ns = 0;    // mean
};

struct DiffRow {
    std::string key;   // the unit's or kernel's name
    std::string kind;  // "allreduce" or "kernel"
    UnitStats a, b;
    bool inA = false, inB = false;
    double drift_ns() const;  // max(|start change|, |duration change|); a unit only in one run: its end there
};

std::vector<DiffRow> diffRuns(const RunTrace& a, const RunTrace& b);

}  // namespace pacer::profiler
