// A point-to-point layer that moves no data: it runs one rank's side of an algorithm on a virtual clock and, if
// asked, records every round. What it is for:
//   - the schedule of an algorithm at any scale without the ranks (one rank of a 4,096-rank torus in
//     milliseconds), timed by the α-β-γ link model, so that the closed-form costs can be checked against what the
//     algorithm really sends (tests/bench/bench_collectives);
//   - the tests' proof that every rank issues matching sends and receives (each rank run on its own, then the
//     records compared).
// A round costs α plus, over the rank's ports, the longest queue of bytes (sends and receives queue per port
// separately: full-duplex links) times β; reduceSum costs γ per byte. Data pointers are only recorded.
#pragma once

#include "engine/collectives/algorithm_cost.h"
#include "engine/transport/point_to_point.h"

#include <vector>

namespace pacer::engine {

struct RecordedOp {
    int peer = 0;
    std::size_t count = 0;
    int port = 0;
    int tag = 0;
    bool operator==(const RecordedOp&) const = default;
};

struct RecordedRound {
    int collective = 0;  // how many beginCollective() calls came before, minus one
    int round = 0;
    std::vector<RecordedOp> sends, receives;
};

class DryRunPointToPoint final : public PointToPoint {
public:
    DryRunPointToPoint(int rank, int size, LinkParams link, bool record = false)
        : rank_(rank), size_(size), link_(link), record_(record) {}
    int rank() const override { return rank_; }
    int size() const override { return size_; }
    void beginCollective() override { ++collective_; }
    Status exchange(int round, std::span<const P2POp> sends, std::span<const P2POp> receives) override;
    Status reduceSum(float* dst, const float* src, std::size_t count) override;
    Result<float*> scratch(int index, std::size_t count) override;

    double elapsedNs() const { return elapsedNs_; }
    int rounds() const { return rounds_; }
    const std::vector<RecordedRound>& record() const { return recorded_; }

private:
    int rank_, size_;
    LinkParams link_;
    bool record_;
    int collective_ = -1;
    double elapsedNs_ = 0;
    int rounds_ = 0;
    std::vector<RecordedRound> recorded_;
    float dummy_ = 0;
};

}  // namespace pacer::engine
