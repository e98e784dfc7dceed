// The two exchanges of the warm-up switch, over the run's own transport: every rank's warm-up spans reach every
// rank (so rank 0 sees the latest rank of each step, as replay does), and rank 0's schedule reaches every rank.
// Both broadcast from host memory on every transport.
#pragma once

#include "engine/planning/schedule.h"
#include "engine/status.h"
#include "engine/transport/transport.h"

#include <vector>

namespace pacer::engine {

// Rank r broadcasts its spans in turn; returns every rank's spans.
Result<std::vector<ObservedSpan>> gatherSpans(Transport& transport, const std::vector<ObservedSpan>& mine);

// Rank 0's `schedule` reaches every rank (the others' argument is ignored); `base` as for decodeSchedule.
Result<Schedule> shareSchedule(Transport& transport, const Schedule& schedule, const PolicyConfig& base);

}  // namespace pacer::engine
