// Fits α, β, γ on the ranks of a run, before the first collective that uses `auto`: every rank times ring,
// recursive doubling and halving-doubling at two sizes on the point-to-point layer, and the transport's own
// all-reduce at the same sizes; the times are averaged over the ranks (one all-reduce on the transport), and each
// rank fits the same numbers (fitLinkParams, and native's line through its two points), so that every rank then
// makes the same choice: auto runs one of Pacer's algorithms only where the fit says it beats the transport's own.
// A few tens of milliseconds on loopback.
#pragma once

#include "engine/collectives/algorithm_cost.h"
#include "engine/transport/transport.h"

namespace pacer::engine {

Result<LinkParams> calibrateLinkParams(Transport& transport, const Topology& topology, int channel = 0);

}  // namespace pacer::engine
