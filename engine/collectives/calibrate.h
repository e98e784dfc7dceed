// Fits α, β, γ on the ranks of a run, before the first collective that uses `auto`, and measures what auto chooses by.
// At each size, every candidate algorithm (candidateAlgorithms) is timed in pairs against the transport's own
// all-reduce (native): one call of each next to the other, which first alternating, kCalibrationPairs pairs per
// candidate, the candidates taking turns. The times are averaged over the ranks (one all-reduce on the transport),
// so every rank holds the same numbers and makes the same choice. Per candidate and size, the pairs' speed-ups
// (native's time over the candidate's) give a median and a 95% interval for it (engine/median_interval.h). The link
// keeps α, β, γ fitted over the candidates (for what was not measured) and each algorithm's measured times
// (LinkParams::measured): native's median, and for a candidate native's median over its median speed-up and, as its
// upper time, over the interval's low end. chooseAlgorithm weighs candidates by their upper times, so auto leaves
// native only where a candidate's speed-up is above 1 beyond the noise measured with it: a look-alike that won by
// noise (1.04 median, interval 0.92..1.12) leaves native in place, one that is clearly faster (interval 1.02..1.08)
// is taken. Why: comparing the fastest of four calls picked the algorithm with the luckier tail (the ring on 2 Gloo
// ranks at 4 MiB), which then ran at 0.88-1.01 of gloo::allreduce, and the benchmark judges medians.
// About 1.5 s on 2 Gloo loopback ranks and 4 s on 4, as threads on a loaded 2-core machine (docs/ARCHITECTURE.md).
#pragma once

#include "engine/collectives/algorithm_cost.h"
#include "engine/transport/transport.h"

#include <vector>

namespace pacer::engine {

// The sizes calibrateLinkParams times (bytes): small (latency), middle, 1 MiB and 4 MiB. Gloo's ring cuts a vector
// into segments of up to 1 MiB, so from 1 MiB up it runs as it does at the sizes the goal is judged at; without the
// 1 MiB point the choice between 256 KiB (where recursive doubling leads on 4 ranks) and 4 MiB (native) was a line
// that kept recursive doubling at 2 MiB, where it ran at 0.82 of gloo::allreduce.
std::vector<std::size_t> calibrationSizes();

// Pairs per candidate and size: 9, the fewest whose 95% interval leaves out the slowest and the fastest pair
// ([x_(2), x_(8)]), so that one call the machine descheduled does not decide; with 6 to 8 it would be [min, max].
constexpr int kCalibrationPairs = 9;

Result<LinkParams> calibrateLinkParams(Transport& transport, const Topology& topology, int channel = 0);

// One candidate timed against native at one size, call next to call: ns per call (mean over ranks), paired by index.
struct PairedTimes {
    Algorithm algorithm = Algorithm::Ring;
    int ranks = 2;
    double bytes = 0;
    std::vector<double> nativeNs, algorithmNs;
};

// The link from calibration timings: each algorithm's measured (and upper) times as described at the top, and the
// fit of α, β, γ over the candidates' median times.
Result<LinkParams> linkFromCalibration(const std::vector<PairedTimes>& timings, const Topology& topology);

}  // namespace pacer::engine
