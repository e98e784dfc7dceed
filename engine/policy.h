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

#include <cstddef>
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
    // PACE's aim is the next forward's wait: on CPU ranks, while a layer's forward waits for its reduction, the
    // compute thread applies the updates of later layers whose reductions are done (app/worker/training_run.cpp,
    // Workload::updates_fill_waits). The baselines keep each layer's update just before its forward, after its wait,
    // as ByteScheduler's and Horovod's per-layer hooks do.
    virtual bool updatesFillWaits() const { return false; }
    // The most elements one unit can hold, so that the runtime can set up the buffer it packs units into before
    // the first iteration instead of page-faulting it in during a measured one; 0 = cannot say.
    virtual std::size_t largestUnitElements() const { return 0; }

    // The simulator's shortcut over runs of segments (SimOptions::segment_runs), which keeps a replay's cost from
    // growing with the number of segments. Right after next() returned a unit of one piece: how many more units
    // next() would return, one per call, each the following piece of the same tensor of the same size (the
    // tensor's last one may be shorter), provided nothing is heard in between but those units' own onUnitDone.
    // 0 = it cannot say (the default): the simulator then asks next() for every unit.
    virtual std::size_t unitsFollowing() const { return 0; }
    // Takes `count` (1..unitsFollowing()) of them at once, as `count` calls of next() would, and returns the one
    // piece they span (its segment is the first one's).
    virtual Piece takeUnitsFollowing(std::size_t count) {
        (void)count;
        return {};
    }
};

}  // namespace pacer::engine
