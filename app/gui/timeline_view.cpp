#include "app/gui/timeline_view.h"

#include "app/gui/models/zoom_state.h"

#include <QApplication>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace pacer::gui {

namespace {

const QColor kBackground(0xfb, 0xfb, 0xfc);
const QColor kRankBand(0xf1, 0xf3, 0xf6);
const QColor kHeaderBackground(0xf5, 0xf6, 0xf8);
const QColor kRulerBackground(0xee, 0xf0, 0xf3);
const QColor kGridLine(0xe2, 0xe5, 0xea);
const QColor kTickLine(0x8a, 0x93, 0x9f);
const QColor kText(0x2b, 0x31, 0x3b);
const QColor kMutedText(0x6b, 0x72, 0x80);
const QColor kSelection(0x11, 0x18, 0x27);
const QColor kIterationBand(0xdd, 0xe3, 0xeb);

}  // namespace

TimelineView::TimelineView(QWidget* parent)
    : QAbstractScrollArea(parent), m_model(new TimelineModel(this)), m_zoom(new ZoomState(this))
{
    setObjectName(QStringLiteral("timeline"));
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setFrameShape(QFrame::NoFrame);
    setFocusPolicy(Qt::StrongFocus);
    viewport()->setMouseTracking(true);
    viewport()->setAttribute(Qt::WA_OpaquePaintEvent);
    connect(m_zoom, &ZoomState::visibleRangeChanged, this, [this] {
        rebuildRuler();
        viewport()->update();
    });
    connect(verticalScrollBar(), &QScrollBar::valueChanged, viewport(), qOverload<>(&QWidget::update));
    // A large run's window arrived: the old window's event indices mean nothing in the new one.
    connect(m_model, &TimelineModel::windowChanged, this, [this] {
        setHovered(-1);
        selectEvent(-1);
        viewport()->update();
    });
    m_foldHatch = QBrush(QColor(0x11, 0x18, 0x27, 60), Qt::BDiagPattern);
    m_drawItems.reserve(4096);
    m_hitItems.reserve(256);
}

TimelineView::~TimelineView() = default;

QSize TimelineView::sizeHint() const
{
    return {900, kRulerHeight + std::max(m_contentHeight, 4 * (kLaneHeight + kLaneGap)) + 4};
}

void TimelineView::setTrace(std::shared_ptr<const profiler::RunTrace> trace)
{
    setIndex(buildTimelineIndex(std::move(trace)));
}

void TimelineView::setIndex(std::shared_ptr<const TimelineIndex> index)
{
    m_hoveredEvent = -1;
    m_selectedEvent = -1;
    m_model->setIndex(std::move(index));
    m_iterationLabels.clear();
    for (const IterationMark& mark : m_model->iterations())
        m_iterationLabels.push_back({mark.start, mark.end, QStringLiteral("iteration %1").arg(mark.iteration)});
    rebuildLayout();
    measureNames();
    m_zoom->setFullRange(m_model->startTime(), m_model->endTime());
    rebuildRuler();
    viewport()->update();
}

void TimelineView::setEmptyText(const QString& text)
{
    m_emptyText = text;
    viewport()->update();
}

TimeAxis TimelineView::axis() const
{
    TimeAxis a;
    a.start = m_zoom->visibleStart();
    a.end = m_zoom->visibleEnd();
    a.left = m_headerWidth;
    a.width = std::max(1, viewport()->width() - m_headerWidth);
    return a;
}

void TimelineView::rebuildLayout()
{
    const QFontMetrics fm(font());
    int widest = 0;
    for (int i = 0; i < m_model->laneCount(); ++i)
        widest = std::max(widest, fm.horizontalAdvance(m_model->lane(i).name));
    m_headerWidth = std::clamp(widest + 20, kMinHeaderWidth, kMaxHeaderWidth);
    m_laneLabels.clear();
    for (int i = 0; i < m_model->laneCount(); ++i)
        m_laneLabels.push_back(fm.elidedText(m_model->lane(i).name, Qt::ElideMiddle, m_headerWidth - 14));
    m_laneTop.clear();
    int y = 4;
    for (int i = 0; i < m_model->laneCount(); ++i) {
        if (i > 0 && m_model->lane(i).rank != m_model->lane(i - 1).rank)
            y += kRankGap;
        m_laneTop.push_back(y);
        y += kLaneHeight + kLaneGap;
    }
    m_contentHeight = y + 4;
    updateScrollBar();
}

void TimelineView::updateScrollBar()
{
    const int visible = std::max(0, viewport()->height() - kRulerHeight);
    verticalScrollBar()->setRange(0, std::max(0, m_contentHeight - visible));
    verticalScrollBar()->setPageStep(visible);
    verticalScrollBar()->setSingleStep(kLaneHeight);
}

void TimelineView::measureNames()
{
    const QFontMetrics fm(font());
    m_nameWidth.clear();
    m_shortNameWidth.clear();
    for (const QString& name : m_model->names())
        m_nameWidth.push_back(fm.horizontalAdvance(name));
    for (const QString& name : m_model->shortNames())
        m_shortNameWidth.push_back(fm.horizontalAdvance(name));
}

void TimelineView::rebuildRuler()
{
    const TimeAxis a = axis();
    m_tickStep = niceTickStep(a.length(), a.width);
    m_ticks.clear();
    m_stepLabel = formatTickLabel(m_tickStep, m_tickStep) + QStringLiteral(" / tick");
    // Ticks sit on multiples of the step measured from the run's start, so labels read 0, 5 ms, 10 ms ...
    const std::int64_t origin = m_model->startTime();
    std::int64_t k = (a.start - origin) / m_tickStep;
    for (std::int64_t t = origin + k * m_tickStep; t <= a.end; t += m_tickStep) {
        if (t >= a.start)
            m_ticks.push_back({t, formatTickLabel(t - origin, m_tickStep)});
    }
}

QRect TimelineView::laneRect(int lane) const
{
    if (lane < 0 || lane >= static_cast<int>(m_laneTop.size()))
        return {};
    const int y = kRulerHeight + m_laneTop[static_cast<std::size_t>(lane)] - verticalScrollBar()->value();
    return {0, y, viewport()->width(), kLaneHeight};
}

int TimelineView::laneAt(int viewportY) const
{
    const int y = viewportY - kRulerHeight + verticalScrollBar()->value();
    if (viewportY < kRulerHeight)
        return -1;
    for (std::size_t i = 0; i < m_laneTop.size(); ++i)
        if (y >= m_laneTop[i] && y < m_laneTop[i] + kLaneHeight)
            return static_cast<int>(i);
    return -1;
}

bool TimelineView::drawItemAt(QPoint pos, DrawItem* item) const
{
    const int lane = laneAt(pos.y());
    if (lane < 0 || pos.x() < m_headerWidth)
        return false;
    m_hitItems.clear();
    m_model->appendDrawItems(lane, axis(), kFoldWidthPx, m_hitItems);
    // Exact hit first; else the nearest item within two pixels, so one-pixel items can be hovered.
    const double x = pos.x() + 0.5;
    const DrawItem* best = nullptr;
    double bestDistance = 2.0;
    for (const DrawItem& d : m_hitItems) {
        const double distance = x < d.x0 ? d.x0 - x : x > d.x1 ? x - d.x1 : 0.0;
        if (distance <= bestDistance) {
            bestDistance = distance;
            best = &d;
        }
    }
    if (best && item)
        *item = *best;
    return best != nullptr;
}

QString TimelineView::toolTipAt(QPoint pos) const
{
    DrawItem item;
    if (!drawItemAt(pos, &item))
        return {};
    return m_model->drawItemDetails(item);
}

void TimelineView::selectEvent(int event)
{
    if (event == m_selectedEvent)
        return;
    m_selectedEvent = event;
    viewport()->update();
    emit selectedEventChanged(event);
}

void TimelineView::setHovered(int event)
{
    if (event == m_hoveredEvent)
        return;
    m_hoveredEvent = event;
    viewport()->update();
    emit hoveredEventChanged(event);
}

void TimelineView::paintEvent(QPaintEvent*)
{
    QPainter p(viewport());
    p.fillRect(viewport()->rect(), kBackground);
    const TimeAxis a = axis();
    if (m_model->laneCount() == 0) {
        p.setPen(kMutedText);
        p.drawText(viewport()->rect(), Qt::AlignCenter | Qt::TextWordWrap, m_emptyText);
        return;
    }
    // A large run reads what this range needs in the background (no-op when it has it) and repaints then.
    m_model->requestRange(a.start, a.end, a.nsPerPixel());
    paintLanes(p, a);
    paintPath(p, a);
    paintRange(p, a);
    paintHeader(p);
    paintRuler(p, a);
    if (m_cursorX >= m_headerWidth && !m_dragging) {
        // A hairline through all lanes and the time under it in the ruler, to line events up across ranks.
        const double x = m_cursorX + 0.5;
        p.setPen(QColor(0x11, 0x18, 0x27, 90));
        p.drawLine(QPointF(x, kRulerHeight), QPointF(x, viewport()->height()));
        const QFontMetrics fm(font());
        const int w = fm.horizontalAdvance(m_cursorLabel) + 8;
        const QRect box(std::min(m_cursorX + 1, viewport()->width() - w), 2, w, fm.height() + 2);
        p.fillRect(box, QColor(0x2b, 0x31, 0x3b));
        p.setPen(Qt::white);
        p.drawText(box, Qt::AlignCenter, m_cursorLabel);
    }
}

void TimelineView::paintLanes(QPainter& p, const TimeAxis& a)
{
    const QRect area(0, kRulerHeight, viewport()->width(), viewport()->height() - kRulerHeight);
    p.save();
    p.setClipRect(area);

    // Rank bands, alternating, so that a rank's lanes read as one group.
    for (int i = 0; i < m_model->laneCount(); ++i) {
        if (m_model->lane(i).rank % 2 == 1) {
            const QRect r = laneRect(i);
            p.fillRect(QRect(0, r.top() - kLaneGap / 2, area.width(), kLaneHeight + kLaneGap), kRankBand);
        }
    }
    p.setPen(kGridLine);
    for (const Tick& tick : m_ticks) {
        const double x = std::floor(a.toX(tick.time)) + 0.5;
        p.drawLine(QPointF(x, area.top()), QPointF(x, area.bottom()));
    }

    // Phase one: what to draw, in a reused vector.
    m_drawItems.clear();
    for (int i = 0; i < m_model->laneCount(); ++i) {
        const QRect r = laneRect(i);
        if (r.bottom() < area.top() || r.top() > area.bottom())
            continue;
        m_model->appendDrawItems(i, a, kFoldWidthPx, m_drawItems);
    }

    // Phase two: paint the records.
    p.setClipRect(QRect(m_headerWidth, area.top(), area.width() - m_headerWidth, area.height()));
    const QFontMetrics fm(font());
    const int textBaseline = (kLaneHeight + fm.ascent() - fm.descent()) / 2;
    const auto& lanes = *m_model;
    for (const DrawItem& d : m_drawItems) {
        const QRect lr = laneRect(d.lane);
        const QRectF rect(d.x0, lr.top() + 1, std::max(1.0, d.x1 - d.x0), kLaneHeight - 2);
        const QColor colour = QColor::fromRgb(d.colour);
        p.fillRect(rect, colour);
        if (d.count > 1 || d.isSummary()) {
            p.fillRect(rect, m_foldHatch);
            continue;
        }
        if (rect.width() < 4)
            continue;
        // A hairline on the right edge keeps back-to-back spans apart.
        p.fillRect(QRectF(rect.right() - 1, rect.top(), 1, rect.height()), colour.darker(115));
        const int event = lanes.lane(d.lane).events[static_cast<std::size_t>(d.first)];
        const auto nameId = static_cast<std::size_t>(m_model->eventNameId(event));
        // The full name if it fits, else the short one, else none: never elide (that would allocate).
        const double left = std::max(rect.left(), static_cast<double>(m_headerWidth)) + 4;
        const double room = rect.right() - 4 - left;
        const QString* label = nullptr;
        if (nameId < m_nameWidth.size() && m_nameWidth[nameId] <= room)
            label = &m_model->names()[nameId];
        else if (nameId < m_shortNameWidth.size() && m_shortNameWidth[nameId] <= room)
            label = &m_model->shortNames()[nameId];
        if (label) {
            p.setPen(qGray(d.colour) > 150 ? kText : Qt::white);
            p.drawText(QPointF(left, lr.top() + textBaseline), *label);
        }
    }

    // Hover and selection outlines on top.
    p.setBrush(Qt::NoBrush);
    for (const DrawItem& d : m_drawItems) {
        if (d.isSummary())
            continue;
        const int event = lanes.lane(d.lane).events[static_cast<std::size_t>(d.first)];
        const bool selected = event == m_selectedEvent && d.count == 1;
        const bool hovered = event == m_hoveredEvent;
        if (!selected && !hovered)
            continue;
        const QRect lr = laneRect(d.lane);
        p.setPen(QPen(selected ? kSelection : kSelection.lighter(300), selected ? 2.0 : 1.0));
        p.drawRect(QRectF(d.x0, lr.top() + 0.5, std::max(1.0, d.x1 - d.x0), kLaneHeight - 1));
    }
    p.restore();
}

void TimelineView::paintRange(QPainter& p, const TimeAxis& a)
{
    if (!hasRange() && !(m_dragging && m_pressButton == Qt::LeftButton))
        return;
    const double x0 = std::clamp(a.toX(m_rangeStart), a.left, a.left + a.width);
    const double x1 = std::clamp(a.toX(m_rangeEnd), a.left, a.left + a.width);
    const QRectF band(x0, kRulerHeight, std::max(1.0, x1 - x0), viewport()->height() - kRulerHeight);
    p.fillRect(band, QColor(0x25, 0x63, 0xeb, 40));
    p.setPen(QColor(0x25, 0x63, 0xeb, 160));
    p.drawLine(QPointF(x0, kRulerHeight), QPointF(x0, viewport()->height()));
    p.drawLine(QPointF(x1, kRulerHeight), QPointF(x1, viewport()->height()));
}

void TimelineView::setPath(std::vector<PathMark> path)
{
    m_path = std::move(path);
    viewport()->update();
}

void TimelineView::paintPath(QPainter& p, const TimeAxis& a)
{
    if (m_path.empty())
        return;
    p.save();
    p.setClipRect(QRect(m_headerWidth, kRulerHeight, viewport()->width() - m_headerWidth, viewport()->height() - kRulerHeight));
    p.setRenderHint(QPainter::Antialiasing);
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(QColor(0xea, 0x58, 0x0c), 2.0));
    QPointF previous(-1, -1);
    for (const PathMark& mark : m_path) {
        int lane = -1;
        for (int i = 0; i < m_model->laneCount() && lane < 0; ++i)
            if (m_model->lane(i).track == mark.track)
                lane = i;
        if (lane < 0)
            continue;
        const QRect lr = laneRect(lane);
        const double x0 = std::clamp(a.toX(mark.start), a.left - 4, a.left + a.width + 4);
        const double x1 = std::clamp(a.toX(mark.end), a.left - 4, a.left + a.width + 4);
        p.drawRect(QRectF(x0, lr.top() + 1, std::max(2.0, x1 - x0), kLaneHeight - 2));
        if (previous.x() >= 0)
            p.drawLine(previous, QPointF(x0, lr.center().y()));  // the dependency this span waited for
        previous = QPointF(x1, lr.center().y());
    }
    p.restore();
}

void TimelineView::selectRange(std::int64_t t0, std::int64_t t1)
{
    if (t1 <= t0) {
        const bool had = hasRange();
        m_rangeStart = m_rangeEnd = 0;
        viewport()->update();
        if (had)
            emit rangeCleared();
        return;
    }
    m_rangeStart = t0;
    m_rangeEnd = t1;
    viewport()->update();
    emit rangeSelected(t0, t1);
}

void TimelineView::fitSelection()
{
    if (hasRange()) {
        m_zoom->setVisibleRange(m_rangeStart, m_rangeEnd);
        return;
    }
    if (m_selectedEvent >= 0 && m_model->trace() &&
        static_cast<std::size_t>(m_selectedEvent) < m_model->trace()->events.size()) {
        const auto& e = m_model->trace()->events[static_cast<std::size_t>(m_selectedEvent)];
        const std::int64_t margin = std::max<std::int64_t>((e.end - e.start) / 10, 1);
        m_zoom->setVisibleRange(e.start - margin, e.end + margin);
        return;
    }
    m_zoom->resetZoom();
}

std::int64_t TimelineView::zoomAnchor() const
{
    const TimeAxis a = axis();
    return m_cursorX >= m_headerWidth ? a.toTime(m_cursorX) : (a.start + a.end) / 2;
}

void TimelineView::paintHeader(QPainter& p)
{
    const QRect area(0, kRulerHeight, m_headerWidth, viewport()->height() - kRulerHeight);
    p.save();
    p.setClipRect(area);
    p.fillRect(area, kHeaderBackground);
    for (int i = 0; i < m_model->laneCount(); ++i) {
        const QRect r = laneRect(i);
        if (r.bottom() < area.top() || r.top() > area.bottom())
            continue;
        const auto& lane = m_model->lane(i);
        if (lane.rank % 2 == 1)
            p.fillRect(QRect(0, r.top() - kLaneGap / 2, m_headerWidth, kLaneHeight + kLaneGap), kRankBand.darker(102));
        p.setPen(lane.kind == profiler::TrackKind::Compute ? kText : kMutedText);
        p.drawText(QRect(8, r.top(), m_headerWidth - 12, kLaneHeight), Qt::AlignVCenter | Qt::AlignLeft, m_laneLabels[static_cast<std::size_t>(i)]);
    }
    p.setPen(kGridLine.darker(110));
    p.drawLine(m_headerWidth - 1, area.top(), m_headerWidth - 1, area.bottom());
    p.restore();
}

void TimelineView::paintRuler(QPainter& p, const TimeAxis& a)
{
    const QRect ruler(0, 0, viewport()->width(), kRulerHeight);
    p.fillRect(ruler, kRulerBackground);
    p.save();
    p.setClipRect(QRect(m_headerWidth, 0, ruler.width() - m_headerWidth, kRulerHeight));

    // Iteration bands along the bottom of the ruler.
    const int bandTop = kRulerHeight - 13;
    for (std::size_t i = 0; i < m_iterationLabels.size(); ++i) {
        const IterationLabel& it = m_iterationLabels[i];
        if (it.end < a.start || it.start > a.end)
            continue;
        const double x0 = std::max(a.toX(it.start), a.left - 1);
        const double x1 = std::min(a.toX(it.end), a.left + a.width + 1);
        const QRectF band(x0, bandTop, x1 - x0, 12);
        p.fillRect(band, i % 2 ? kIterationBand : kIterationBand.darker(106));
        p.setPen(kMutedText);
        if (band.width() > 70)
            p.drawText(band.adjusted(4, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft, it.label);
    }

    p.setPen(kTickLine);
    const int minorSteps = 5;
    const double minorPx = static_cast<double>(m_tickStep) * a.pixelsPerNs() / minorSteps;
    for (const Tick& tick : m_ticks) {
        const double x = std::floor(a.toX(tick.time)) + 0.5;
        p.drawLine(QPointF(x, 2), QPointF(x, bandTop - 1));
        p.setPen(kText);
        p.drawText(QPointF(x + 4, 14), tick.label);
        p.setPen(kTickLine);
        if (minorPx >= 6) {
            for (int m = 1; m < minorSteps; ++m) {
                const double mx = std::floor(x + m * minorPx) + 0.5;
                p.drawLine(QPointF(mx, bandTop - 5), QPointF(mx, bandTop - 1));
            }
        }
    }
    p.restore();

    // The corner above the header shows the zoom level as the width of one tick.
    p.fillRect(QRect(0, 0, m_headerWidth, kRulerHeight), kHeaderBackground);
    p.setPen(kMutedText);
    p.drawText(QRect(8, 0, m_headerWidth - 12, kRulerHeight), Qt::AlignVCenter | Qt::AlignLeft, m_stepLabel);
    p.setPen(kGridLine.darker(110));
    p.drawLine(0, kRulerHeight - 1, ruler.width(), kRulerHeight - 1);
    p.drawLine(m_headerWidth - 1, 0, m_headerWidth - 1, kRulerHeight);
}

void TimelineView::resizeEvent(QResizeEvent* event)
{
    QAbstractScrollArea::resizeEvent(event);
    updateScrollBar();
    rebuildRuler();
}

void TimelineView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::FontChange) {
        measureNames();
        rebuildLayout();
    }
    QAbstractScrollArea::changeEvent(event);
}

void TimelineView::wheelEvent(QWheelEvent* event)
{
    if (event->modifiers() & Qt::ShiftModifier || m_model->laneCount() == 0) {
        QAbstractScrollArea::wheelEvent(event);
        return;
    }
    const double notches = event->angleDelta().y() / 120.0;
    if (notches == 0.0)
        return;
    const TimeAxis a = axis();
    const double x = event->position().x();
    const std::int64_t anchor = x >= a.left ? a.toTime(x) : (a.start + a.end) / 2;
    m_zoom->zoomAround(anchor, std::pow(1.25, notches));
    event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton && event->button() != Qt::RightButton && event->button() != Qt::MiddleButton) {
        QAbstractScrollArea::mousePressEvent(event);
        return;
    }
    m_pressButton = event->button();
    m_rangeAnchor = axis().toTime(std::max<double>(event->position().x(), m_headerWidth));
    m_pressed = true;
    m_dragging = false;
    m_pressPos = event->position().toPoint();
    m_pressStart = m_zoom->visibleStart();
    m_pressScroll = verticalScrollBar()->value();
    event->accept();
}

void TimelineView::mouseMoveEvent(QMouseEvent* event)
{
    const QPoint pos = event->position().toPoint();
    if (m_pressed && (event->buttons() & m_pressButton)) {
        const QPoint delta = pos - m_pressPos;
        if (!m_dragging && delta.manhattanLength() >= QApplication::startDragDistance()) {
            m_dragging = true;
            viewport()->setCursor(m_pressButton == Qt::LeftButton ? Qt::IBeamCursor : Qt::ClosedHandCursor);
            QToolTip::hideText();
        }
        if (m_dragging && m_pressButton == Qt::LeftButton) {
            // A range: from where the drag started to the cursor, either way round.
            const std::int64_t t = axis().toTime(std::max<double>(pos.x(), m_headerWidth));
            m_rangeStart = std::min(m_rangeAnchor, t);
            m_rangeEnd = std::max(m_rangeAnchor, t);
            viewport()->update();
        } else if (m_dragging) {
            const std::int64_t target = m_pressStart - static_cast<std::int64_t>(std::llround(delta.x() * axis().nsPerPixel()));
            m_zoom->panBy(target - m_zoom->visibleStart());
            verticalScrollBar()->setValue(m_pressScroll - delta.y());
        }
        event->accept();
        return;
    }
    const int cursorX = pos.x() >= m_headerWidth ? pos.x() : -1;
    if (cursorX != m_cursorX) {
        m_cursorX = cursorX;
        if (cursorX >= 0)
            m_cursorLabel = formatTickLabel(axis().toTime(cursorX) - m_model->startTime(), std::max<std::int64_t>(1, m_tickStep / 100));
        viewport()->update();
    }
    DrawItem item;
    if (drawItemAt(pos, &item)) {
        setHovered(item.isSummary() ? -1 : m_model->lane(item.lane).events[static_cast<std::size_t>(item.first)]);
        QToolTip::showText(event->globalPosition().toPoint(), m_model->drawItemDetails(item), viewport());
    } else {
        setHovered(-1);
        QToolTip::hideText();
    }
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event)
{
    if (event->button() != m_pressButton || !m_pressed) {
        QAbstractScrollArea::mouseReleaseEvent(event);
        return;
    }
    m_pressed = false;
    if (m_dragging) {
        m_dragging = false;
        viewport()->unsetCursor();
        if (m_pressButton == Qt::LeftButton)
            selectRange(m_rangeStart, m_rangeEnd);
        return;
    }
    if (m_pressButton != Qt::LeftButton)
        return;
    DrawItem item;
    if (drawItemAt(event->position().toPoint(), &item) && item.count == 1 && !item.isSummary())
        selectEvent(m_model->lane(item.lane).events[static_cast<std::size_t>(item.first)]);
    else
        selectEvent(-1);
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent* event)
{
    DrawItem item;
    if (!drawItemAt(event->position().toPoint(), &item))
        return;
    if (item.isSummary()) {
        const std::int64_t margin = std::max<std::int64_t>((item.t1 - item.t0) / 10, 1);
        m_zoom->setVisibleRange(item.t0 - margin, item.t1 + margin);
        return;
    }
    const auto& events = m_model->trace()->events;
    const auto& lane = m_model->lane(item.lane);
    const std::int64_t start = events[static_cast<std::size_t>(lane.events[static_cast<std::size_t>(item.first)])].start;
    std::int64_t end = start;
    for (int k = item.first; k < item.first + item.count; ++k)
        end = std::max(end, events[static_cast<std::size_t>(lane.events[static_cast<std::size_t>(k)])].end);
    const std::int64_t margin = std::max<std::int64_t>((end - start) / 10, 1);
    m_zoom->setVisibleRange(start - margin, end + margin);
}

void TimelineView::keyPressEvent(QKeyEvent* event)
{
    const TimeAxis a = axis();
    const std::int64_t centre = (a.start + a.end) / 2;
    switch (event->key()) {
    case Qt::Key_W: m_zoom->zoomAround(zoomAnchor(), 1.5); break;
    case Qt::Key_S: m_zoom->zoomAround(zoomAnchor(), 1 / 1.5); break;
    case Qt::Key_A: m_zoom->panBy(-a.length() / 8); break;
    case Qt::Key_D: m_zoom->panBy(a.length() / 8); break;
    case Qt::Key_F: fitSelection(); break;
    case Qt::Key_Home:
    case Qt::Key_0: m_zoom->resetZoom(); break;
    case Qt::Key_Plus:
    case Qt::Key_Equal: m_zoom->zoomAround(centre, 1.5); break;
    case Qt::Key_Minus: m_zoom->zoomAround(centre, 1 / 1.5); break;
    case Qt::Key_Left: m_zoom->panBy(-a.length() / 8); break;
    case Qt::Key_Right: m_zoom->panBy(a.length() / 8); break;
    case Qt::Key_Escape:
        selectEvent(-1);
        selectRange(0, 0);
        break;
    default: QAbstractScrollArea::keyPressEvent(event); return;
    }
    event->accept();
}

void TimelineView::leaveEvent(QEvent* event)
{
    m_cursorX = -1;
    setHovered(-1);
    QAbstractScrollArea::leaveEvent(event);
}

bool TimelineView::viewportEvent(QEvent* event)
{
    // Tooltips follow the mouse (mouseMoveEvent); the delayed QEvent::ToolTip would only repeat it.
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, viewport());
        return true;
    }
    return QAbstractScrollArea::viewportEvent(event);
}

}  // namespace pacer::gui
