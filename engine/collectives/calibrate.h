// Fits α, β, γ on the ranks of a run, before the first collective that uses `auto`, and measures what auto chooses by.
// At each size, every candidate algorithm (candidateAlgorithms) is timed in pairs against the transport's own
// all-reduce (native): one call of each next to the other, which first alternating, the point's pairs per candidate
// (9; 6 at the largest, 32 MiB, where only the bandwidth-optimal candidates are timed, below), the candidates taking
// turns; at the largest point a candidate whose lead its pairs left unsettled gets as many again, up to twice
// (unsettledLead). The times are averaged over the ranks (one all-reduce on the transport per point), so every rank
// holds the same numbers and makes the same choices. Per candidate and size, the pairs' speed-ups
// (native's time over the candidate's) give a median and a 95% interval for it (engine/median_interval.h). The link
// keeps α, β, γ fitted over the candidates (for what was not measured) and each algorithm's measured times
// (LinkParams::measured): native's median, and for a candidate native's median over its median speed-up and, as its
// upper time, over the interval's low end. chooseAlgorithm weighs candidates by their upper times, so auto leaves
// native only where a candidate's speed-up is above 1 beyond the noise measured with it: a look-alike that won by
// noise (1.04 median, interval 0.92..1.12) leaves native in place, one that is clearly faster (interval 1.02..1.08)
// is taken. Why: comparing the fastest of four calls picked the algorithm with the luckier tail (the ring on 2 Gloo
// ranks at 4 MiB), which then ran at 0.88-1.01 of gloo::allreduce, and the benchmark judges medians.
// About 3.5 s on 2 Gloo loopback ranks and 6-12 s on 4, as threads on a 2-core machine at load 4-5 (bench_collectives
// part 0; 1.2 s and 3.6 s without the 32 MiB point; docs/ARCHITECTURE.md).
#pragma once

#include "engine/collectives/algorithm_cost.h"
#include "engine/transport/transport.h"

#include <span>
#include <vector>

namespace pacer::engine {

// Pairs per candidate and size: 9, the fewest whose 95% interval leaves out the slowest and the fastest pair
// ([x_(2), x_(8)]), so that one call the machine descheduled does not decide; with 6 to 8 it would be [min, max].
constexpr int kCalibrationPairs = 9;

// One size calibrateLinkParams times, and how many pairs of calls per candidate it times there.
struct CalibrationPoint {
    std::size_t bytes = 0;
    int pairs = kCalibrationPairs;
};

// The sizes calibrateLinkParams times: small (latency), middle, 1 MiB, 4 MiB and 32 MiB. Gloo's ring cuts a vector
// into segments of up to 1 MiB, so from 1 MiB up it runs as it does at the sizes the goal is judged at; without the
// 1 MiB point the choice between 256 KiB (where recursive doubling leads on 4 ranks) and 4 MiB (native) was a line
// that kept recursive doubling at 2 MiB, where it ran at 0.82 of gloo::allreduce. The 32 MiB point: beyond the
// largest point auto only extrapolates (each time grows by its model's bytes), and with 4 MiB the largest it ran
// Gloo's own at every large size, where the ring led gloo::allreduce (bench_collectives, threads, load 3-4 on 2
// cores): at 16 MiB by 1.05 [0.98..1.09] (2 ranks) and 1.02 [0.96..1.19] (4 ranks), inside the noise, so a 16 MiB
// point found it clearly faster in 1 of 6 calibrations; at 32 MiB by 1.13 and 1.26, at 64 MiB by 1.12 and 1.24.
std::vector<CalibrationPoint> calibrationPoints();

// Pairs at the 32 MiB point: 6, the fewest with a 95% interval ([min, max]). One 32 MiB call takes 8-25 times one at
// 1 MiB (4 and 2 ranks), and with 9 pairs the point took calibration from 0.7 to 2.7 s on 2 Gloo ranks and from 4.9 to 14.2 s
// on 4 (load 4). Fewer pairs do not loosen the rule: a candidate no faster than native has all 6 speed-ups above 1
// with probability at most 2^-6 = 1.6%, against 10/512 = 2.0% for 8 of 9 with 9 pairs, and one call the machine
// descheduled can only lower the low end (keep native), never pick a candidate. What they cost is power: a candidate
// that wins a pair with probability p is taken with p^6 against p^9 + 9p^8(1-p), 0.53 against 0.77 at p = 0.9.
constexpr int kLargestPointPairs = 6;

// At the largest point, when it is large enough that the bytes decide (kBandwidthBoundBytes), only the candidates
// whose bytes on the critical path are the least by the formulas (within kLargestPointReach) are timed there, each
// with the pairs of those left out: on 4 ranks ring and halving-doubling 9 pairs each instead of 6 with recursive
// doubling (which moves log2(4) = 2 vectors per rank against 1.5), in the same time. A candidate that wins a pair
// with probability 0.9 is then taken with probability 0.77 instead of 0.53. Where every candidate moves as many
// bytes (2 ranks), nothing changes. A candidate left out there gets the times of the first one timed, scaled by the
// formulas' ratio of their bytes.
constexpr double kLargestPointReach = 1.05;
// From 16 MiB: the ring's 6 steps on 4 ranks cost about 0.3 ms there against 15-30 ms of transfer on loopback. At
// 4 MiB recursive doubling (2 steps) still ran ahead of the ring on 4 ranks in 23 of 24 calibrations
// (bench_collectives part 0, with 4 MiB the largest point).
constexpr std::size_t kBandwidthBoundBytes = std::size_t{16} << 20;
std::vector<Algorithm> timedAtLargestPoint(int ranks, const Topology& topology, double bytes);

// `points`: calibrationPoints(); others for the benchmark that weighs what a point costs (by increasing bytes).
Result<LinkParams> calibrateLinkParams(Transport& transport, const Topology& topology, int channel = 0,
                                       const std::vector<CalibrationPoint>& points = calibrationPoints());

// One candidate timed against native at one size, call next to call: ns per call (mean over ranks), paired by index.
struct PairedTimes {
    Algorithm algorithm = Algorithm::Ring;
    int ranks = 2;
    double bytes = 0;
    std::vector<double> nativeNs, algorithmNs;
    // Not timed: another candidate's times scaled by the formulas' bytes (the largest point; kept out of the fit).
    bool derived = false;
};

// Another look at the largest point: where no candidate timed there is settled ahead of native (its interval's low
// end above 1) but one leads by its median (above 1, the highest), that one is timed again in as many pairs as it
// had, and its interval comes from all of them; up to kLooksAtLargestPoint looks in all. unsettledLead takes the
// candidates' times at the largest point (the derived ones left out) and names the one to look at again, Native for
// none. Why: on 4 Gloo ranks the ring led gloo::allreduce at 32 MiB by 1.14 [1.05..1.22] in the benchmark, but its 9
// pairs at calibration, with calls of 55-123 ms at load 1-4, settled that lead in 5 of 10 calibrations (medians
// 1.09-1.26, low ends 0.81-1.07; 8 of 9 pairs must be above 1), and auto then ran gloo::allreduce there; with a
// second look 8 of 10, interleaved (docs/ARCHITECTURE.md). With 18 pairs 14 must be above 1, with 27 20: a candidate
// that wins a pair with probability 0.8 is taken with 0.87 over three looks, 0.75 over two, 0.44 in one (6 pairs
// a look, 2 ranks: 0.74, 0.58, 0.26); one no faster than native with 3.3%, 3.0%, 2.0% (3.6%, 3.0%, 1.6%). A look
// costs its pairs only where it is taken.
Algorithm unsettledLead(std::span<const PairedTimes> atLargestPoint);
constexpr int kLooksAtLargestPoint = 3;

// The link from calibration timings: each algorithm's measured (and upper) times as described at the top, and the
// fit of α, β, γ over the candidates' median times.
Result<LinkParams> linkFromCalibration(const std::vector<PairedTimes>& timings, const Topology& topology);

}  // namespace pacer::engine
