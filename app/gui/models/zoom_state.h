// The timeline's zoom and pan state: which part of the run's full time range is visible.
//
// Kept in its own QObject (as hotspot keeps FilterAndZoomStack) so that the view, the ruler and, later, the
// compare panel can share one visible range and stay in step through visibleRangeChanged. The range is always
// kept inside the full range and never shorter than kMinVisibleNs, so repeated wheel events cannot zoom into
// nothing or pan off the data.
#pragma once

#include <QObject>

#include <cstdint>

namespace pacer::gui {

class ZoomState : public QObject {
    Q_OBJECT
public:
    static constexpr std::int64_t kMinVisibleNs = 100;

    explicit ZoomState(QObject* parent = nullptr);

    std::int64_t fullStart() const { return m_fullStart; }
    std::int64_t fullEnd() const { return m_fullEnd; }
    std::int64_t visibleStart() const { return m_start; }
    std::int64_t visibleEnd() const { return m_end; }
    std::int64_t visibleLength() const { return m_end - m_start; }
    bool isZoomed() const { return m_start != m_fullStart || m_end != m_fullEnd; }

    // A new trace: the full range changes and the whole of it becomes visible.
    void setFullRange(std::int64_t start, std::int64_t end);
    // Shows [start, end), clamped into the full range.
    void setVisibleRange(std::int64_t start, std::int64_t end);
    // factor > 1 zooms in, < 1 out; the time under the cursor (anchor) stays under the cursor.
    void zoomAround(std::int64_t anchor, double factor);
    // Moves the visible window by deltaNs (positive: later), stopping at the ends of the full range.
    void panBy(std::int64_t deltaNs);
    void resetZoom();

signals:
    void visibleRangeChanged(qint64 start, qint64 end);

private:
    void apply(std::int64_t start, std::int64_t end);

    std::int64_t m_fullStart = 0;
    std::int64_t m_fullEnd = 1;
    std::int64_t m_start = 0;
    std::int64_t m_end = 1;
};

}  // namespace pacer::gui
