#include "app/gui/models/zoom_state.h"

#include <algorithm>
#include <cmath>

namespace pacer::gui {

ZoomState::ZoomState(QObject* parent) : QObject(parent) {}

void ZoomState::setFullRange(std::int64_t start, std::int64_t end)
{
    if (end <= start)
        end = start + 1;
    m_fullStart = start;
    m_fullEnd = end;
    // Force the signal even when the numbers happen to match the old range: the data behind them changed.
    m_start = m_end = 0;
    apply(start, end);
}

void ZoomState::setVisibleRange(std::int64_t start, std::int64_t end)
{
    apply(start, end);
}

void ZoomState::zoomAround(std::int64_t anchor, double factor)
{
    if (!(factor > 0.0) || !std::isfinite(factor))
        return;
    anchor = std::clamp(anchor, m_start, m_end);
    const double newLength = static_cast<double>(visibleLength()) / factor;
    const double fraction = static_cast<double>(anchor - m_start) / static_cast<double>(visibleLength());
    const auto start = anchor - static_cast<std::int64_t>(std::llround(fraction * newLength));
    apply(start, start + static_cast<std::int64_t>(std::llround(newLength)));
}

void ZoomState::panBy(std::int64_t deltaNs)
{
    const std::int64_t length = visibleLength();
    const std::int64_t start = std::clamp(m_start + deltaNs, m_fullStart, std::max(m_fullStart, m_fullEnd - length));
    apply(start, start + length);
}

void ZoomState::resetZoom()
{
    apply(m_fullStart, m_fullEnd);
}

void ZoomState::apply(std::int64_t start, std::int64_t end)
{
    const std::int64_t fullLength = m_fullEnd - m_fullStart;
    std::int64_t length = std::clamp<std::int64_t>(end - start, std::min(kMinVisibleNs, fullLength), fullLength);
    // Keep the requested centre of gravity when the length was clamped, then slide back inside the full range.
    if (length != end - start)
        start += ((end - start) - length) / 2;
    start = std::clamp(start, m_fullStart, m_fullEnd - length);
    end = start + length;
    if (start == m_start && end == m_end)
        return;
    m_start = start;
    m_end = end;
    emit visibleRangeChanged(m_start, m_end);
}

}  // namespace pacer::gui
