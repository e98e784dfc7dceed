// What every rank runs after warm-up, and its wire form.
//
// Rank 0 chooses (engine/planning/warmup_schedule.h) and broadcasts; every rank decodes the same words, so the
// settings and the unit order are identical everywhere by construction. Only what the choice may change travels
// (segment size, fusion, order, channels, the plan); the rest of the policy is the experiment's, which every rank
// read from the same resolved file.
#pragma once

#include "engine/policy_config.h"
#include "engine/replay/observed_run.h"
#include "engine/status.h"
#include "engine/tensor.h"

#include <cstdint>
#include <vector>

namespace pacer::engine {

struct Schedule {
    PolicyConfig policy;
    bool plan_order = false;     // false: dynamic order (one channel)
    int channels = 1;
    std::vector<CommUnit> plan;  // plan order: the unit order of one iteration
    bool tuned = false;          // the settings were chosen by tunePace
    double predicted_ms = 0;     // replay's prediction for these settings
    // Its band (PredictionBand, from the warm-up's iterations: scheduleFromWarmup), 0 and 0 where there is none.
    double predicted_low_ms = 0, predicted_high_ms = 0;
};

// [segment, fuse_below, tuned, plan_order, channels, predicted_us, low_us, high_us, groups, (size, ids...)...,
// units, (priority, pieces, (tensor, segment, offset, count)...)...] as int64.
std::vector<std::int64_t> encodeSchedule(const Schedule& schedule);
// `base` supplies the policy's other settings. Fails on a truncated or malformed message.
Result<Schedule> decodeSchedule(const std::vector<std::int64_t>& words, const PolicyConfig& base);

// Warm-up spans travel to rank 0 as [count, (kind, rank, iteration, layer, tensor, segment, bytes, start, end)...].
std::vector<std::int64_t> encodeSpans(const std::vector<ObservedSpan>& spans);
Result<std::vector<ObservedSpan>> decodeSpans(const std::vector<std::int64_t>& words);

}  // namespace pacer::engine
