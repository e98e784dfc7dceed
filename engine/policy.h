// The scheduling policy interface: plain code, no I/O, no threads, no clock of its own.
//
// One scheduler, two clocks (docs/ARCHITECTURE.md): the runtime drives a Policy with the real clock and a
// transport; the simulator drives the very same object with a virtual clock and a cost model. A policy only
// hears events and answers "what goes on the wire next".
//
// Protocol, per iteration:
//   beginIteration(now)
//   onGradientReady(t, now)            for every tensor, in the order backward produces them
//   next(now) -> unit                  whenever the link is idle; nullopt means "nothing to send yet"
//   onUnitDone(unit, now)              when that unit's collective has finished on this rank
// until finished() is true. A policy may hold ready work back (Horovod's cycle, DDP's bucket fill): then it
// says through wakeTime() when next() should be asked again even if no event arrives.
// The link carries one unit at a time; a higher priority "preempts" a lower one at the next unit boundary.
#pragma once

#include "engine/tensor.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pacer::engine {

class Policy {
public:
    virtual ~Policy() = default;

    virtual std::string_view name() const = 0;
    virtual void beginIteration(Nanos now) = 0;
    virtual void onGradientReady(int tensor, Nanos now) = 0;
    virtual std::optional<CommUnit> next(Nanos now) = 0;
    virtual void onUnitDone(const CommUnit& unit, Nanos now) = 0;
    // True once every element of every tensor has been issued and reported done this iteration.
    virtual bool finished() const = 0;
    // When next() may return work that it held back, with no further event; kNever if it holds nothing back.
    virtual Nanos wakeTime() const { return kNever; }
    // DDP keeps its optimizer barrier: no parameter is updated before every tensor is reduced.
    virtual bool updateWaitsForAll() const { return false; }
};

}  // namespace pacer::engine
