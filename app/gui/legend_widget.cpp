#include "app/gui/legend_widget.h"

#include "app/gui/models/event_style.h"

#include <QLinearGradient>
#include <QPainter>

#include <algorithm>

namespace pacer::gui {

using profiler::EventKind;

LegendWidget::LegendWidget(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("legend"));
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

std::vector<EventKind> LegendWidget::kindsIn(const profiler::RunTrace& trace)
{
    bool present[16] = {};
    for (const auto& e : trace.events)
        present[static_cast<int>(e.kind) & 15] = true;
    std::vector<EventKind> kinds;
    for (int k = 0; k < 16; ++k) {
        const auto kind = static_cast<EventKind>(k);
        if (present[k] && kind != EventKind::Iteration)
            kinds.push_back(kind);
    }
    return kinds;
}

void LegendWidget::setContents(std::vector<EventKind> kinds, int minPriority, int maxPriority)
{
    m_hasAllReduce = std::find(kinds.begin(), kinds.end(), EventKind::AllReduce) != kinds.end();
    kinds.erase(std::remove(kinds.begin(), kinds.end(), EventKind::AllReduce), kinds.end());
    m_kinds = std::move(kinds);
    m_labels.clear();
    for (EventKind kind : m_kinds)
        m_labels.push_back(eventKindLabel(kind));
    m_hasRamp = m_hasAllReduce && maxPriority > minPriority;
    m_rampLow = QStringLiteral("priority %1").arg(minPriority);
    m_rampHigh = QString::number(maxPriority);
    update();
}

QSize LegendWidget::sizeHint() const
{
    return {600, fontMetrics().height() + 10};
}

void LegendWidget::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), QColor(0xf5, 0xf6, 0xf8));
    p.setPen(QColor(0xe2, 0xe5, 0xea));
    p.drawLine(0, 0, width(), 0);
    const QFontMetrics fm = fontMetrics();
    const int h = height();
    const int sw = 12;
    int x = 10;
    const QColor text(0x4b, 0x52, 0x60);
    auto swatch = [&](const QBrush& brush, const QString& label) {
        p.fillRect(QRect(x, (h - sw) / 2, sw, sw), brush);
        x += sw + 5;
        p.setPen(text);
        p.drawText(QRect(x, 0, fm.horizontalAdvance(label) + 2, h), Qt::AlignVCenter, label);
        x += fm.horizontalAdvance(label) + 16;
    };
    for (std::size_t i = 0; i < m_kinds.size(); ++i)
        swatch(QColor::fromRgb(kindColour(m_kinds[i])), m_labels[i]);
    if (m_hasAllReduce && !m_hasRamp)
        swatch(QColor::fromRgb(priorityColour(0.0)), QStringLiteral("all-reduce"));
    if (m_hasRamp) {
        p.setPen(text);
        const QString title = QStringLiteral("all-reduce, by");
        p.drawText(QRect(x, 0, fm.horizontalAdvance(title) + 2, h), Qt::AlignVCenter, title);
        x += fm.horizontalAdvance(title) + 6;
        p.drawText(QRect(x, 0, fm.horizontalAdvance(m_rampLow) + 2, h), Qt::AlignVCenter, m_rampLow);
        x += fm.horizontalAdvance(m_rampLow) + 5;
        const int rampWidth = 90;
        QLinearGradient gradient(x, 0, x + rampWidth, 0);
        for (int i = 0; i <= 8; ++i)
            gradient.setColorAt(i / 8.0, QColor::fromRgb(priorityColour(i / 8.0)));
        p.fillRect(QRect(x, (h - sw) / 2, rampWidth, sw), gradient);
        x += rampWidth + 5;
        p.drawText(QRect(x, 0, fm.horizontalAdvance(m_rampHigh) + 2, h), Qt::AlignVCenter, m_rampHigh);
        x += fm.horizontalAdvance(m_rampHigh) + 16;
    }
    const QColor fold = QColor::fromRgb(foldedColour(kindColour(EventKind::Forward)));
    p.fillRect(QRect(x, (h - sw) / 2, sw, sw), fold);
    p.fillRect(QRect(x, (h - sw) / 2, sw, sw), QBrush(QColor(0x11, 0x18, 0x27, 60), Qt::BDiagPattern));
    x += sw + 5;
    p.setPen(text);
    p.drawText(QRect(x, 0, width() - x, h), Qt::AlignVCenter, QStringLiteral("folded (< 3 px)"));
}

}  // namespace pacer::gui
