// What every reading of an observed run shares: observed_run.cpp (the workload), observed_costs.cpp (the cost
// fits) and observed_wakeups.cpp (the threads' latencies) all count the same iterations, see each collective as one
// span over the ranks, and find the layer whose backward made a unit ready the same way. Internal to engine/replay.
#pragma once

#include "engine/replay/observed_run.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

namespace pacer::engine::observed {

// The mean of the values; 0 for none.
double mean(const std::vector<double>& v);

// What a run must be before anything is read off it: ranks, tensor ids 0..n-1, spans that end after they start
// on ranks the run has. The error names the first thing wrong.
Status validateRun(const ObservedRun& run);

// The first iteration seen, left out of the medians when there are later ones (unless the warm-up is gone already).
int warmupIteration(const ObservedRun& run, ObservedSpan::Kind a, ObservedSpan::Kind b);

// Whether an iteration counts in an extraction: not the warm-up one, and among `only` when that is given.
struct Counted {
    int warmup;
    const std::vector<int>& only;  // sorted; empty = every iteration
    bool operator()(int iteration) const {
        return iteration != warmup && (only.empty() || std::binary_search(only.begin(), only.end(), iteration));
    }
};

// One collective of a run: (iteration, tensor, segment, bytes), and its span from the last rank's join to the last
// rank's leave.
using CollectiveKey = std::tuple<int, int, int, std::int64_t>;
using CollectiveSpans = std::map<CollectiveKey, std::pair<Nanos, Nanos>>;

// The run's collectives in the counted iterations: (latest start, latest end) over ranks. A collective starts for real
// when the last rank joins it and is over when the last rank leaves it: that is what the next collective waits for.
// (The shortest span would miss the time the last rank needs to finish after the first.)
CollectiveSpans lastJoinAndLeave(const ObservedRun& run, const Counted& counts);

// (iteration, layer) -> the latest end of that layer's backward over ranks: when its gradients were ready everywhere.
std::map<std::pair<int, int>, Nanos> latestBackwardEnds(const ObservedRun& run);

// The layer whose backward makes a unit ready: a span names the unit's first tensor and its bytes; a fused unit is a
// run of adjacent tensors (DDP's buckets and PACE's groups both are), found by adding neighbours, downwards or
// upwards, until the bytes match. Its last gradient comes from the lowest layer (backward runs last layer first).
// -1 when no run of whole tensors matches (a segment of one tensor: that tensor's layer).
int readyLayer(const ObservedRun& run, int tensor, std::int64_t bytes);

// Each rank's comm-thread spans (collectives and traced agreement rounds) by start, as indices into run.spans.
std::map<int, std::vector<std::size_t>> commThreadOrder(const ObservedRun& run);

// Whether `unit` is the collective that the traced round right before it on its comm thread chose.
bool chosenBy(const ObservedSpan& round, const ObservedSpan& unit);

}  // namespace pacer::engine::observed
