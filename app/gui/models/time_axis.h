// Time-to-pixel mapping for the timeline, and the time ruler's tick steps and labels.
//
// A plain value type so that the mapping can be tested without widgets (QTEST_GUILESS_MAIN) and copied freely
// into the paint path. Times are int64 nanoseconds on the trace's clock; pixels are doubles in widget
// coordinates, so sub-pixel spans keep their true width until the folding step decides what to do with them.
#pragma once

#include <QString>

#include <cstdint>

namespace pacer::gui {

struct TimeAxis {
    std::int64_t start = 0;  // ns shown at x == left
    std::int64_t end = 1;    // ns shown at x == left + width
    double left = 0.0;       // px
    double width = 1.0;      // px, > 0

    std::int64_t length() const { return end > start ? end - start : 1; }
    double pixelsPerNs() const { return width / static_cast<double>(length()); }
    double nsPerPixel() const { return static_cast<double>(length()) / width; }
    double toX(std::int64_t t) const { return left + static_cast<double>(t - start) * pixelsPerNs(); }
    std::int64_t toTime(double x) const;
};

// The ruler's step: the smallest 1, 2 or 5 × 10^k ns whose ticks are at least minSpacingPx apart when
// visibleNs spans widthPx. Never below 1 ns.
std::int64_t niceTickStep(std::int64_t visibleNs, double widthPx, double minSpacingPx = 90.0);

// A ruler label for time t (relative to the run's start) in the unit that fits t: "0", "250 µs", "1.25 ms",
// "3 s", with as many decimals as the step needs to tell neighbouring ticks apart and no more.
QString formatTickLabel(std::int64_t t, std::int64_t step);

// A duration for people: "830 ns", "12.4 µs", "3.21 ms", "1.50 s".
QString formatDuration(std::int64_t ns);

// A size for people: "512 B", "96.0 KiB", "25.0 MiB".
QString formatBytes(std::int64_t bytes);

}  // namespace pacer::gui
