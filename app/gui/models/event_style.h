// How the timeline colours events, shared by the timeline, its legend and (later) the compare panel.
//
// Compute kinds get calm, distinct hues; all-reduce units are coloured by priority on a red-to-teal ramp
// (most urgent is red) so that a preempting high-priority segment stands out against the low-priority
// tensor it interrupted.
#pragma once

#include "profiler/trace_model.h"

#include <QColor>
#include <QString>

namespace pacer::gui {

// A short human name for the kind: "forward", "all-reduce", "CUDA kernel".
QString eventKindLabel(profiler::EventKind kind);

// The fill colour of a non-communication event kind (all-reduce uses priorityColour).
QRgb kindColour(profiler::EventKind kind);

// Colour of an all-reduce unit whose priority sits at position t in [0, 1] of the run's priority range
// (0 = most urgent).
QRgb priorityColour(double t);

// The colour the timeline fills an event with, given the run's priority range.
QRgb eventColour(const profiler::TraceEvent& event, int minPriority, int maxPriority);

// The colour of a folded run of sub-pixel events: a muted version of the first event's colour.
QRgb foldedColour(QRgb first);

}  // namespace pacer::gui
