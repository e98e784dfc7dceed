// Fits α, β, γ on the ranks of a run, before the first collective that uses `auto`: every rank times each candidate
// algorithm (candidateAlgorithms) and the transport's own all-reduce at a few sizes; the times are averaged over the
// ranks (one all-reduce on the transport), so that every rank holds the same numbers and makes the same choice. The
// link keeps both: α, β, γ fitted over the algorithms (for what was not measured), and each algorithm's measured
// times (LinkParams::measured), by which auto chooses: at every size timed it picks what ran fastest there, the
// transport's own all-reduce included, and between and beyond them it follows each one's own measured line.
// About a hundred milliseconds on loopback.
#pragma once

#include "engine/collectives/algorithm_cost.h"
#include "engine/transport/transport.h"

#include <vector>

namespace pacer::engine {

// The sizes calibrateLinkParams times (bytes): small (latency), middle, and large enough that Gloo's ring runs
// several of its 1 MiB segments per rank, as it does at the sizes the goal is judged at.
std::vector<std::size_t> calibrationSizes();

Result<LinkParams> calibrateLinkParams(Transport& transport, const Topology& topology, int channel = 0);

// The link from calibration timings (native samples are the transport's own all-reduce): the fit of α, β, γ over the
// others, and every algorithm's measured times.
Result<LinkParams> linkFromCalibration(const std::vector<CollectiveSample>& samples, const Topology& topology);

}  // namespace pacer::engine
