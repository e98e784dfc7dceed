// How the ranks of a run are wired, as the collective algorithms and their cost models see it.
//
// flat:  every rank reaches every other through one port (a switch; the default, what a node with one NIC has).
// ring:  rank r is wired to r-1 and r+1 only, through one port: the single-port ring the torus is compared with.
// torus: ranks on an X×Y×… grid with wrap-around links; a node has 2·D ports, one per direction of each
//        dimension (dimension 0 varies fastest: rank = x + X·(y + Y·z)). Sack & Gropp's multiported torus.
#pragma once

#include "engine/status.h"

#include <string>
#include <vector>

namespace pacer::engine {

struct Topology {
    enum class Kind { Flat, Ring, Torus };
    Kind kind = Kind::Flat;
    std::vector<int> dims;  // torus only: the size of each dimension

    static Topology flat() { return {}; }
    static Topology ring() { return {Kind::Ring, {}}; }
    static Topology torus(std::vector<int> dims) { return {Kind::Torus, std::move(dims)}; }

    // Links per node that can carry data at the same time: 2·D for a torus, 1 otherwise.
    int ports() const { return kind == Kind::Torus ? 2 * static_cast<int>(dims.size()) : 1; }
    // Ranks the topology holds (torus: the product of its dimensions; 0 = any count).
    int ranks() const;
    // The coordinates of a rank on the torus grid, and back.
    std::vector<int> coordinates(int rank) const;
    int rankAt(const std::vector<int>& coordinates) const;
    // The rank one step from `rank` along dimension `dim` in direction `dir` (+1 or -1), wrapping around.
    int neighbor(int rank, int dim, int dir) const;
    // The port a message from `rank` to `peer` leaves on: on a torus the direction of the first dimension in
    // which they differ, along the shorter way round; port 0 elsewhere.
    int portTowards(int rank, int peer) const;
    // Port index of direction `dir` (+1/-1) of dimension `dim` on a torus.
    static int portOf(int dim, int dir) { return 2 * dim + (dir > 0 ? 0 : 1); }

    std::string describe() const;  // "flat", "ring", "torus 2x2x2"
    bool operator==(const Topology&) const = default;
};

// Checks the topology against a rank count: a torus needs dimensions ≥ 1 whose product is the rank count.
Status validate(const Topology& topology, int ranks);

// Parses "flat", "ring", "torus" (a near-cubic 3-D shape for the rank count, see balancedTorus) or
// "torus:4x4x2" (dimensions given).
Result<Topology> parseTopology(const std::string& text, int ranks);

// The most nearly cubic D-dimensional shape whose product is `ranks` (D = 3 by default), largest dimension first;
// dimensions of size 1 are dropped (7 ranks: a ring of 7, i.e. torus 7).
Topology balancedTorus(int ranks, int dimensions = 3);

}  // namespace pacer::engine
