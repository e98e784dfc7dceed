// The worker's figures of compute alone, as a run's metrics keep them: the model's forward pass and a whole training
// step with nothing to reduce, each timed before the first iteration and after the last (training_run.cpp's
// computeAloneMs; `forward_alone_before_ms` and so on, the ranks' mean). What `runs`, replay and compare read.
#pragma once

#include <map>
#include <string>

namespace pacer::app {

// `figure` is "forward_alone" or "step_alone": the mean of its two readings; 0 where either is missing (imported
// traces, runs captured before 2026-12-05).
double aloneFigureMs(const std::map<std::string, double>& metrics, const std::string& figure);

}  // namespace pacer::app
