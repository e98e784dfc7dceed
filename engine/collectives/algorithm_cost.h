// α-β-γ cost models of the all-reduce algorithms, and the choice among them.
//
// α: latency of one message step (ns); β: time per byte on one link (ns/B); γ: time per byte to add (ns/B).
// For n ranks and m bytes (Thakur, Rabenseifner & Gropp, "Optimization of Collective Communication Operations in
// MPICH", 2005; p = 2^⌊log2 n⌋, and ranks beyond p cost one extra step before and one after, each moving m):
//   ring                 2(n−1)·α + 2(n−1)/n·m·β + (n−1)/n·m·γ
//   recursive doubling   log2 p·(α + m·β + m·γ)                            [+ 2α + 2mβ + mγ if n ≠ p]
//   halving-doubling     2·log2 p·α + 2(p−1)/p·m·β + (p−1)/p·m·γ           [+ 2α + 2mβ + mγ if n ≠ p]
// and for the multiported torus of dimensions k_1..k_D (Sack & Gropp 2015): the vector in 2·D parts on 2·D
// ports at once, each part a reduce-scatter and an allgather over every dimension:
//   torus                2·Σ(k_i − 1)·α + 2(n−1)/n·(m / 2D)·β + (n−1)/n·m·γ       (k_1 = … = k_D)
// (one core adds every part, so γ is not divided). On uneven shapes (8×4×4) the parts, which advance in lockstep,
// wait in some rounds for a part with larger blocks or share a port with another: the β term is then summed round
// by round over the busiest port (torusBytesPerByte in the .cpp), which equals the formula on a cubic torus. A single-port topology (flat, ring) carries one message at a
// time per rank; the formulas above assume that for all but the torus.
#pragma once

#include "engine/collectives/allreduce_algorithms.h"
#include "engine/collectives/topology.h"
#include "engine/status.h"

#include <cstddef>
#include <utility>
#include <vector>

namespace pacer::engine {

// Times of one algorithm measured on the ranks (calibrateLinkParams): (bytes, ns) points by increasing bytes, and
// at the same sizes the slowest time the calibration could not rule out (`upper`, empty: the points themselves).
struct MeasuredCost {
    Algorithm algorithm = Algorithm::Native;
    std::vector<std::pair<double, double>> points;
    std::vector<std::pair<double, double>> upper = {};
    // Piecewise linear through the points (or the upper points); before the first and after the last, the line
    // through the two nearest (never below 0). One point: that time at every size.
    double at(double bytes) const;
    double upperAt(double bytes) const;
};

// Which time of a measured algorithm a cost means: its median, or the slowest its calibration allows (95%).
enum class CostBound { Median, Upper };

struct LinkParams {
    double alpha_ns = 20'000;  // per message step
    double beta_ns_per_byte = 0.8;  // 10 Gb/s
    double gamma_ns_per_byte = 0.1;  // an add of float32 at ~10 GB/s
    // What the ranks measured (calibrateLinkParams), per algorithm. An algorithm with measured times is weighed by
    // them, not by the model: one fit of α, β, γ for all algorithms misses each one's measured times by some percent,
    // and that was enough for auto to leave the transport's own all-reduce where it had measured fastest. The
    // transport's own all-reduce (native) is a candidate only when measured; the others are then weighed by their
    // upper times, so that one leaves native only where it is faster beyond the calibration's noise. Beyond the
    // largest size measured, each grows from its last time by its model's cost per byte (native as the ring).
    // Empty: emulated links, replay.
    std::vector<MeasuredCost> measured = {};
    const MeasuredCost* measuredCost(Algorithm algorithm) const;
    bool nativeKnown() const { return measuredCost(Algorithm::Native) != nullptr; }
};

// The time of one all-reduce of `bytes` over `ranks` ranks: measured (interpolated; its median or upper times) where
// the link has the algorithm's measured times, otherwise the model; native only when measured (0 for one rank, for
// auto, and for native unknown).
double allreduceCostNs(Algorithm algorithm, int ranks, const Topology& topology, double bytes, const LinkParams& link,
                       CostBound bound = CostBound::Median);

// The algorithms that can run on this topology and rank count: ring, recursive doubling and halving-doubling
// everywhere; the torus on a torus topology.
std::vector<Algorithm> candidateAlgorithms(int ranks, const Topology& topology);

// The candidate with the lowest upper cost (allreduceCostNs with CostBound::Upper; the first in candidateAlgorithms
// order on a tie); native, when the link has its measured times, comes before them all, so a tie keeps the
// transport's own all-reduce. Upper and median costs are the same where nothing measured an upper time.
Algorithm chooseAlgorithm(int ranks, const Topology& topology, std::size_t bytes, const LinkParams& link);

// One observed all-reduce, for fitting.
struct CollectiveSample {
    Algorithm algorithm = Algorithm::Ring;
    int ranks = 2;
    double bytes = 0;
    double ns = 0;
};

// Least-squares α, β, γ (relative error) from observed all-reduces on one topology. Each sample's modelled time is
// linear in the three: c_α·α + c_β·β + c_γ·γ. With a single algorithm and rank count, β and γ always come in the
// same ratio and cannot be told apart; then γ is kept at `gammaIfUnknown`. Where noise makes a free fit negative,
// the best fit with γ held and/or α at 0 is taken. Fails with fewer than two distinct sizes or no fit ≥ 0.
Result<LinkParams> fitLinkParams(const std::vector<CollectiveSample>& samples, const Topology& topology,
                                 double gammaIfUnknown = LinkParams{}.gamma_ns_per_byte);

// What link emulation at `gbps` and `latencyUs` per port means for α and β (γ as given).
LinkParams emulatedLink(double gbps, double latencyUs, double gamma_ns_per_byte = LinkParams{}.gamma_ns_per_byte);

}  // namespace pacer::engine
