// Gradient tensors and the communication units the scheduler builds from them.
//
// A tensor is one parameter's gradient (float32). Policies never touch data: they speak of tensors by id and of
// pieces of them by element range. A CommUnit is what one collective call reduces: one piece (a segment of a
// large tensor) or several pieces packed into a fused buffer (small tensors fused, a DDP bucket, a Horovod
// fusion buffer).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace pacer::engine {

// Time on the scheduler's clock: real (runtime) or virtual (simulator), int64 nanoseconds.
using Nanos = std::int64_t;
inline constexpr Nanos kNever = std::numeric_limits<Nanos>::max();

struct TensorInfo {
    int id = 0;             // index in forward (parameter) order: 0 is nearest the input
    std::string name;       // e.g. "fc1.weight"
    int layer = 0;          // the layer that owns it, in forward order
    std::size_t elements = 0;

    std::size_t bytes() const { return elements * sizeof(float); }
};

// A contiguous element range of one tensor.
struct Piece {
    int tensor = 0;
    int segment = 0;          // index of this piece within its tensor (0 when whole)
    std::size_t offset = 0;   // in elements
    std::size_t count = 0;    // in elements
};

struct CommUnit {
    std::vector<Piece> pieces;  // reduced together in one collective; more than one means a fused buffer
    int priority = 0;           // lower is more urgent (the policy's view at the time it chose the unit)

    std::size_t elements() const {
        std::size_t n = 0;
        for (const Piece& p : pieces) n += p.count;
        return n;
    }
    std::size_t bytes() const { return elements() * sizeof(float); }
};

}  // namespace pacer::engine
