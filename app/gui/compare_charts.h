// The compare view's two Qt Charts: each pinned row's iteration split into compute, exposed communication and
// idle (stacked bars, from CompareModel), and the segment sweep (iteration time against segment size on a log
// scale, one curve per policy, from SweepModel) whose points can be clicked. Both only draw their models.
#pragma once

#include <QChartView>

namespace pacer::gui {

class CompareModel;
class SweepModel;

class BreakdownChart : public QChartView {
    Q_OBJECT
public:
    BreakdownChart(CompareModel* model, QWidget* parent = nullptr);
    // The values drawn, [row] = {compute, exposed, idle} in ms (what a test checks against the model).
    QList<QList<double>> drawnValues() const;

private:
    void rebuild();
    CompareModel* m_model;
};

class SweepChart : public QChartView {
    Q_OBJECT
public:
    SweepChart(SweepModel* model, QWidget* parent = nullptr);
    // Where the point (row, column) of the model is drawn, in viewport coordinates.
    QPoint pointPosition(int row, int column) const;

signals:
    // A point was clicked: the model's row and policy column.
    void pointClicked(int row, int column);

private:
    void rebuild();
    double kib(int row) const;  // the chart's x: segment size in KiB
    SweepModel* m_model;
};

}  // namespace pacer::gui
