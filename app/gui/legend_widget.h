// The timeline's legend: a swatch per event kind present in the run, the all-reduce priority ramp, and the
// hatched swatch that marks folded spans.
#pragma once

#include "profiler/trace_model.h"

#include <QWidget>

#include <vector>

namespace pacer::gui {

class LegendWidget : public QWidget {
    Q_OBJECT
public:
    explicit LegendWidget(QWidget* parent = nullptr);

    // The kinds to show (in this order) and the run's priority range for the ramp's end labels.
    void setContents(std::vector<profiler::EventKind> kinds, int minPriority, int maxPriority);
    // Every kind the trace draws on a lane, in a stable order.
    static std::vector<profiler::EventKind> kindsIn(const profiler::RunTrace& trace);

    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    std::vector<profiler::EventKind> m_kinds;
    std::vector<QString> m_labels;
    QString m_rampLow;
    QString m_rampHigh;
    bool m_hasAllReduce = false;
    bool m_hasRamp = false;  // all-reduce units with more than one priority
};

}  // namespace pacer::gui
