#include "app/gui/models/time_axis.h"

#include <cmath>
#include <algorithm>
#include <cstdlib>

namespace pacer::gui {

std::int64_t TimeAxis::toTime(double x) const
{
    return start + static_cast<std::int64_t>(std::llround((x - left) * nsPerPixel()));
}

std::int64_t niceTickStep(std::int64_t visibleNs, double widthPx, double minSpacingPx)
{
    if (visibleNs <= 0 || widthPx <= 0.0)
        return 1;
    // ns that minSpacingPx pixels cover; the step is the first 1-2-5 value not below it.
    const double minStep = static_cast<double>(visibleNs) * minSpacingPx / widthPx;
    std::int64_t decade = 1;
    while (true) {
        for (const std::int64_t mantissa : {1, 2, 5}) {
            const std::int64_t step = mantissa * decade;
            if (static_cast<double>(step) >= minStep)
                return step;
        }
        if (decade > (INT64_MAX / 100))
            return decade * 10;
        decade *= 10;
    }
}

namespace {

struct Unit {
    std::int64_t ns;
    const char* suffix;
};

Unit unitFor(std::int64_t magnitude)
{
    if (magnitude >= 1'000'000'000)
        return {1'000'000'000, "s"};
    if (magnitude >= 1'000'000)
        return {1'000'000, "ms"};
    if (magnitude >= 1'000)
        return {1'000, "µs"};
    return {1, "ns"};
}

}  // namespace

QString formatTickLabel(std::int64_t t, std::int64_t step)
{
    if (t == 0)
        return QStringLiteral("0");
    if (step <= 0)
        step = 1;
    // The unit follows the time itself ("250 µs", then "1.25 ms"); decimals follow the step.
    const Unit unit = unitFor(std::max<std::int64_t>(std::llabs(t), step));
    // Decimals enough to tell two neighbouring ticks apart: a 250 µs step in ms needs two.
    int decimals = 0;
    for (std::int64_t s = step; s % unit.ns != 0 && decimals < 9; s *= 10)
        ++decimals;
    const double value = static_cast<double>(t) / static_cast<double>(unit.ns);
    return QStringLiteral("%1 %2").arg(value, 0, 'f', decimals).arg(QString::fromUtf8(unit.suffix));
}

QString formatDuration(std::int64_t ns)
{
    const Unit unit = unitFor(std::llabs(ns));
    if (unit.ns == 1)
        return QStringLiteral("%1 ns").arg(ns);
    const double value = static_cast<double>(ns) / static_cast<double>(unit.ns);
    const int decimals = std::fabs(value) >= 100 ? 1 : std::fabs(value) >= 10 ? 2 : 3;
    return QStringLiteral("%1 %2").arg(value, 0, 'f', decimals).arg(QString::fromUtf8(unit.suffix));
}

QString formatBytes(std::int64_t bytes)
{
    static const char* const suffixes[] = {"KiB", "MiB", "GiB", "TiB"};
    if (std::llabs(bytes) < 1024)
        return QStringLiteral("%1 B").arg(bytes);
    double value = static_cast<double>(bytes);
    int i = -1;
    while (std::fabs(value) >= 1024.0 && i < 3) {
        value /= 1024.0;
        ++i;
    }
    return QStringLiteral("%1 %2").arg(value, 0, 'f', 1).arg(QString::fromUtf8(suffixes[i]));
}

}  // namespace pacer::gui
