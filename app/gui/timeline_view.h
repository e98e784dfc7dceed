// The timeline widget: a time ruler on top, a header column of lane names on the left, and one row of spans
// per lane (compute, communication, CUDA streams of each rank).
//
// The keys and mouse people bring from Perfetto and Tracy: W/S zoom in/out around the cursor (the centre when
// the cursor is away), A/D pan, the wheel or Ctrl+wheel zooms around the cursor (Shift+wheel scrolls lanes),
// a left drag selects a time range (rangeSelected), a right or middle drag pans, F fits the range (else the
// selected event, else the run), Escape clears, Home shows the whole run. Hover for an event's details,
// click to select, double-click to zoom onto an event. Painting runs in two phases: the model turns
// the visible part of each lane into DrawItem records in a vector reused from frame to frame, then the
// records are painted; ruler ticks and their labels are computed when the range changes, not while painting.
#pragma once

#include "app/gui/models/time_axis.h"
#include "app/gui/models/timeline_model.h"

#include <QAbstractScrollArea>
#include <QBrush>

#include <memory>
#include <vector>

namespace pacer::gui {

class ZoomState;

// A span outlined on the timeline (the analysis' critical path), by track.
struct PathMark {
    int track = 0;
    std::int64_t start = 0;
    std::int64_t end = 0;
};

class TimelineView : public QAbstractScrollArea {
    Q_OBJECT
public:
    static constexpr int kMinHeaderWidth = 110;
    static constexpr int kMaxHeaderWidth = 280;
    static constexpr int kRulerHeight = 36;
    static constexpr int kLaneHeight = 20;
    static constexpr int kLaneGap = 2;
    static constexpr int kRankGap = 8;
    static constexpr double kFoldWidthPx = 3.0;

    explicit TimelineView(QWidget* parent = nullptr);
    ~TimelineView() override;

    void setTrace(std::shared_ptr<const profiler::RunTrace> trace);
    void setIndex(std::shared_ptr<const TimelineIndex> index);  // built elsewhere, e.g. by the project loader
    // Shown in place of lanes while there is no run to draw.
    void setEmptyText(const QString& text);

    TimelineModel* model() const { return m_model; }
    ZoomState* zoom() const { return m_zoom; }

    // The mapping between time and viewport x for the current zoom and size.
    TimeAxis axis() const;
    // A lane's row in viewport coordinates (after vertical scrolling).
    QRect laneRect(int lane) const;
    int laneAt(int viewportY) const;
    // What the user sees under a viewport point: the drawn item, or nullptr.
    bool drawItemAt(QPoint viewportPos, DrawItem* item) const;
    // The tooltip text the view shows for a viewport point (empty where there is nothing).
    QString toolTipAt(QPoint viewportPos) const;
    // Width of the lane-name column: fits the longest name, within limits.
    int headerWidth() const { return m_headerWidth; }
    int selectedEvent() const { return m_selectedEvent; }
    int hoveredEvent() const { return m_hoveredEvent; }
    void selectEvent(int event);

    // The selected time range [rangeStart, rangeEnd); none when rangeEnd <= rangeStart.
    bool hasRange() const { return m_rangeEnd > m_rangeStart; }
    std::int64_t rangeStart() const { return m_rangeStart; }
    std::int64_t rangeEnd() const { return m_rangeEnd; }
    // Selects [t0, t1) and emits rangeSelected; t1 <= t0 clears the range (rangeCleared).
    void selectRange(std::int64_t t0, std::int64_t t1);
    // Outlines these spans, joined in order (an iteration's critical path); empty clears.
    void setPath(std::vector<PathMark> path);
    const std::vector<PathMark>& path() const { return m_path; }
    // F: shows the selected range, else the selected event, else the whole run.
    void fitSelection();

    QSize sizeHint() const override;

signals:
    void hoveredEventChanged(int event);   // -1 when leaving events; folded items report their first event
    void selectedEventChanged(int event);
    void rangeSelected(qint64 start, qint64 end);
    void rangeCleared();

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void leaveEvent(QEvent* event) override;
    bool viewportEvent(QEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    struct Tick {
        std::int64_t time = 0;
        QString label;
    };
    struct IterationLabel {
        std::int64_t start = 0;
        std::int64_t end = 0;
        QString label;
    };

    void rebuildLayout();
    void rebuildRuler();
    void measureNames();
    void updateScrollBar();
    void setHovered(int event);
    void paintRuler(QPainter& p, const TimeAxis& axis);
    void paintLanes(QPainter& p, const TimeAxis& axis);
    void paintHeader(QPainter& p);
    void paintRange(QPainter& p, const TimeAxis& axis);
    void paintPath(QPainter& p, const TimeAxis& axis);
    std::int64_t zoomAnchor() const;  // the time under the cursor, or the view's centre

    TimelineModel* m_model = nullptr;
    ZoomState* m_zoom = nullptr;
    QString m_emptyText;

    int m_headerWidth = kMinHeaderWidth;
    std::vector<QString> m_laneLabels;   // lane names, elided to the header once per layout
    std::vector<int> m_laneTop;          // y of each lane from the top of the lane area, before scrolling
    int m_contentHeight = 0;
    std::vector<Tick> m_ticks;           // rebuilt on zoom/resize, read by paint
    std::int64_t m_tickStep = 1;
    std::vector<IterationLabel> m_iterationLabels;
    std::vector<int> m_nameWidth;        // pixel width of each event's interned name in the current font
    std::vector<int> m_shortNameWidth;
    QString m_stepLabel;                 // "1 ms / tick", in the ruler's corner
    mutable std::vector<DrawItem> m_drawItems;  // phase one output, reused across frames
    mutable std::vector<DrawItem> m_hitItems;   // the same for hit testing one lane

    QBrush m_foldHatch;                  // made once: a brush built while painting would allocate
    QPoint m_pressPos;
    std::int64_t m_pressStart = 0;
    int m_pressScroll = 0;
    bool m_pressed = false;
    bool m_dragging = false;
    Qt::MouseButton m_pressButton = Qt::NoButton;  // left selects a range, right or middle pans
    std::int64_t m_rangeAnchor = 0;                // where a range drag started
    std::int64_t m_rangeStart = 0;
    std::int64_t m_rangeEnd = 0;
    std::vector<PathMark> m_path;
    int m_hoveredEvent = -1;
    int m_cursorX = -1;                  // the mouse's x over the lanes, for the cursor line; -1 when away
    QString m_cursorLabel;               // the time under it, set on mouse move
    int m_selectedEvent = -1;
};

}  // namespace pacer::gui
