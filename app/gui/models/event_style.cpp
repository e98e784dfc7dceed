#include "app/gui/models/event_style.h"

#include <algorithm>
#include <cmath>

namespace pacer::gui {

using profiler::EventKind;

QString eventKindLabel(EventKind kind)
{
    switch (kind) {
    case EventKind::Forward: return QStringLiteral("forward");
    case EventKind::Backward: return QStringLiteral("backward");
    case EventKind::Optimizer: return QStringLiteral("optimizer");
    case EventKind::AllReduce: return QStringLiteral("all-reduce");
    case EventKind::Wait: return QStringLiteral("wait");
    case EventKind::Iteration: return QStringLiteral("iteration");
    case EventKind::Kernel: return QStringLiteral("CUDA kernel");
    case EventKind::Memcpy: return QStringLiteral("memcpy");
    case EventKind::Memset: return QStringLiteral("memset");
    case EventKind::Runtime: return QStringLiteral("CUDA API");
    case EventKind::Sync: return QStringLiteral("sync");
    case EventKind::Marker: return QStringLiteral("marker");
    case EventKind::Agreement: return QStringLiteral("agreement round");
    }
    return QStringLiteral("event");
}

QRgb kindColour(EventKind kind)
{
    switch (kind) {
    case EventKind::Forward: return qRgb(0x5b, 0x8d, 0xbe);
    case EventKind::Backward: return qRgb(0x8a, 0x7c, 0xc0);
    case EventKind::Optimizer: return qRgb(0xa8, 0x8c, 0x62);
    case EventKind::AllReduce: return priorityColour(0.0);
    case EventKind::Wait: return qRgb(0xc8, 0xc8, 0xc8);
    case EventKind::Iteration: return qRgb(0xe4, 0xe7, 0xeb);
    case EventKind::Kernel: return qRgb(0x4f, 0x9d, 0x8f);
    case EventKind::Memcpy: return qRgb(0xd0, 0x8c, 0x52);
    case EventKind::Memset: return qRgb(0xb0, 0x76, 0x5e);
    case EventKind::Runtime: return qRgb(0x9a, 0xa5, 0xb1);
    case EventKind::Sync: return qRgb(0xbf, 0x6f, 0x6f);
    case EventKind::Marker: return qRgb(0xa5, 0xb5, 0x6c);
    case EventKind::Agreement: return qRgb(0x4d, 0x55, 0x60);  // dark slate: apart from the folded swatch
    }
    return qRgb(0x80, 0x80, 0x80);
}

QRgb priorityColour(double t)
{
    t = std::clamp(t, 0.0, 1.0);
    // Hue 355° (red) through orange and yellow-green to 175° (teal); moderate saturation keeps it calm.
    const double hue = std::fmod(355.0 + 180.0 * t, 360.0);
    return QColor::fromHslF(static_cast<float>(hue / 360.0), 0.50f, 0.53f).rgb();
}

QRgb eventColour(const profiler::TraceEvent& event, int minPriority, int maxPriority)
{
    if (event.kind != EventKind::AllReduce)
        return kindColour(event.kind);
    if (event.priority < 0 || maxPriority <= minPriority)
        return priorityColour(0.0);
    return priorityColour(static_cast<double>(event.priority - minPriority) / (maxPriority - minPriority));
}

QRgb foldedColour(QRgb first)
{
    const QColor c = QColor::fromRgb(first);
    const QColor grey(0x9a, 0x9a, 0x9a);
    return qRgb((c.red() + grey.red()) / 2, (c.green() + grey.green()) / 2, (c.blue() + grey.blue()) / 2);
}

}  // namespace pacer::gui
