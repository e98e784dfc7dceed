// The settings a self-tuning `pace` chose, as a run records them: run metrics (every rank writes the same), so
// no schema change is needed and a merge keeps them. The worker writes them, `runs`, `compare` and replay read
// them; the keys live here alone.
#pragma once

#include "engine/planning/schedule.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pacer::app {

// "tuned" = 1, the segment size, order, channels, prediction and its band, and each fusion group as its first
// id -> last id.
std::vector<std::pair<std::string, double>> tuningMetrics(const engine::Schedule& schedule);

// The chosen settings of a run (its policy otherwise `base`), or nothing when the run did not tune itself. A run
// recorded before the prediction had a band (2026-12-06) gives kBandNotRecorded for both of its ends.
std::optional<engine::Schedule> tuningFromMetrics(const std::map<std::string, double>& metrics,
                                                  const engine::PolicyConfig& base);

inline constexpr double kBandNotRecorded = -1;

// One short line: "plan order, 2 channels, 1 MiB segments, 3 fusion groups" (or "fused below 64 KiB", "no fusion").
std::string describeSettings(const engine::Schedule& schedule);
// What the tuning predicted for those settings, with its band where it has one: "predicted 9.855 ms/iter at
// warm-up (band 8.120..11.604 ms)", or why there is none (nothing where the run did not record one). The worker's
// line, `runs` and the schedule editor say it alike, each with the range mark its other bands use: ".." where
// `replay` and `compare` print theirs, " – " in the workbench.
std::string describeWarmupPrediction(const engine::Schedule& schedule, const char* range = "..");

}  // namespace pacer::app
