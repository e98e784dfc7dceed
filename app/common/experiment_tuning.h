// What an experiment fixes of the self-tuning pace's choice, and so what is left for it to choose after warm-up.
// The worker tunes by it; replay and compare read it from a run's stored experiment to predict what `capture
// --policy pace` of that experiment would run. One reading for both: when replay read only the order and channels,
// it self-tuned the segment size that the experiment had set (a run at 2 MiB predicted as one at 4 MiB, and
// 5% faster than either ran).
#pragma once

#include "app/common/experiment.h"
#include "engine/planning/self_tune.h"
#include "engine/policy_config.h"

namespace pacer::app {

// `policy` is the experiment's policy as parsed (its name may be other than pace: then nothing is tuned).
// A segment size given fixes the granularity, and pace then keeps its documented fusion (greedy below
// fuse_below_bytes, or the groups given); the order and channels are fixed where given, the channels on GPUs always.
engine::TuneRequest fixedByExperiment(const Experiment& experiment, const engine::PolicyConfig& policy);

}  // namespace pacer::app
