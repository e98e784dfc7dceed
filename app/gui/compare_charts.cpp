#include "app/gui/compare_charts.h"

#include "app/common/units.h"
#include "app/gui/models/compare_model.h"
#include "app/gui/models/sweep_model.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QStackedBarSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <limits>

namespace pacer::gui {

namespace {

QChart* plainChart(const QString& title) {
    auto* chart = new QChart;
    chart->setTitle(title);
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setAnimationOptions(QChart::NoAnimation);
    return chart;
}

}  // namespace

namespace {

QStringList breakdownNames() { return {QObject::tr("compute"), QObject::tr("exposed comm"), QObject::tr("idle")}; }

}  // namespace

BreakdownChart::BreakdownChart(CompareModel* model, QWidget* parent) : QChartView(parent), m_model(model) {
    setObjectName(QStringLiteral("breakdownChart"));
    setRenderHint(QPainter::Antialiasing);
    setToolTip(tr("Each pinned row's iteration split into compute, exposed communication and idle time (a run's "
                  "from its self-replay, so the three add up to an iteration)"));
    connect(model, &QAbstractItemModel::modelReset, this, &BreakdownChart::rebuild);
    rebuild();
    // Wide enough for the legend's three entries side by side: Qt Charts elides what does not fit ("exposed c...").
    // Each entry is a marker (about a line high), its label and the legend's spacing around them.
    const QFontMetrics fm(chart()->legend()->font());
    int legend = 0;
    for (const QString& name : breakdownNames()) legend += fm.horizontalAdvance(name) + 2 * fm.height();
    setMinimumSize(std::max(260, legend + 4 * fm.height()), 200);
}

void BreakdownChart::rebuild() {
    QChart* chart = plainChart(tr("Iteration split (ms)"));
    auto* series = new QStackedBarSeries;
    const int columns[] = {CompareModel::ComputeMs, CompareModel::ExposedMs, CompareModel::IdleMs};
    const QStringList names = breakdownNames();
    const QColor colors[] = {QColor(0x4c, 0x78, 0xa8), QColor(0xe4, 0x57, 0x56), QColor(0xbb, 0xbb, 0xbb)};
    QStringList categories;
    for (int r = 0; r < m_model->rowCount(); ++r) categories << QStringLiteral("#%1").arg(r + 1);
    for (int k = 0; k < 3; ++k) {
        auto* set = new QBarSet(names[k]);
        set->setColor(colors[k]);
        for (int r = 0; r < m_model->rowCount(); ++r)
            *set << m_model->index(r, columns[k]).data(CompareModel::ValueRole).toDouble();
        series->append(set);
    }
    chart->addSeries(series);
    auto* x = new QBarCategoryAxis;
    x->append(categories);
    auto* y = new QValueAxis;
    y->setLabelFormat(QStringLiteral("%.3g"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);
    QChart* old = this->chart();
    setChart(chart);
    delete old;  // setChart does not take the old chart's ownership away from the view
}

QList<QList<double>> BreakdownChart::drawnValues() const {
    QList<QList<double>> out;
    const auto series = chart()->series();
    if (series.isEmpty()) return out;
    const auto sets = static_cast<QStackedBarSeries*>(series.front())->barSets();
    for (int r = 0; r < (sets.isEmpty() ? 0 : sets.front()->count()); ++r) {
        QList<double> row;
        for (const QBarSet* set : sets) row << set->at(r);
        out << row;
    }
    return out;
}

SweepChart::SweepChart(SweepModel* model, QWidget* parent) : QChartView(parent), m_model(model) {
    setObjectName(QStringLiteral("sweepChart"));
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(320, 200);
    setToolTip(tr("Click a point to apply that policy and segment size in the schedule editor"));
    connect(model, &QAbstractItemModel::modelReset, this, &SweepChart::rebuild);
    rebuild();
}

double SweepChart::kib(int row) const {
    return m_model->index(row, SweepModel::SizeColumn).data(SweepModel::ValueRole).toDouble() / 1024;
}

void SweepChart::rebuild() {
    QChart* chart = plainChart(tr("Iteration time against segment size (replayed)"));
    auto* x = new QLogValueAxis;
    x->setBase(4);
    x->setLabelFormat(QStringLiteral("%g"));
    x->setTitleText(tr("segment KiB"));
    auto* y = new QValueAxis;
    // Short: rotated on a chart a dock's third high, "ms / iteration" was cut to "ms / ite..."; the title says what.
    y->setTitleText(tr("ms"));
    y->setLabelFormat(QStringLiteral("%.3g"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    double lo = std::numeric_limits<double>::infinity(), hi = 0;
    for (int c = 1; c < m_model->columnCount(); ++c) {
        auto* line = new QLineSeries;
        auto* points = new QScatterSeries;
        line->setName(QString::fromStdString(m_model->policyOf(c)));
        points->setMarkerSize(7);
        for (int r = 0; r < m_model->rowCount(); ++r) {
            const QVariant ms = m_model->index(r, c).data(SweepModel::ValueRole);
            if (!ms.isValid()) continue;
            const QPointF p(kib(r), ms.toDouble());
            line->append(p);
            points->append(p);
            lo = std::min(lo, p.y());
            hi = std::max(hi, p.y());
        }
        chart->addSeries(line);
        chart->addSeries(points);
        for (QAbstractSeries* s : {static_cast<QAbstractSeries*>(line), static_cast<QAbstractSeries*>(points)}) {
            s->attachAxis(x);
            s->attachAxis(y);
        }
        points->setColor(line->color());
        points->setBorderColor(line->color());
        chart->legend()->markers(points).front()->setVisible(false);  // one legend entry per policy
        const auto clicked = [this, c](const QPointF& p) { emit pointClicked(m_model->nearestRow(p.x() * 1024), c); };
        connect(points, &QScatterSeries::clicked, this, clicked);
        connect(line, &QLineSeries::clicked, this, clicked);
    }
    if (hi > 0) y->setRange(std::max(0.0, lo - (hi - lo) * 0.05), hi + (hi - lo) * 0.05 + 1e-6);
    if (m_model->rowCount() > 0) x->setRange(kib(0) / 1.5, kib(m_model->rowCount() - 1) * 1.5);
    QChart* old = this->chart();
    setChart(chart);
    delete old;
}

QPoint SweepChart::pointPosition(int row, int column) const {
    const auto series = chart()->series();
    const int index = 2 * (column - 1) + 1;  // the scatter series of that policy
    if (index < 0 || index >= series.size()) return {};
    const QPointF value(kib(row), m_model->index(row, column).data(SweepModel::ValueRole).toDouble());
    return mapFromScene(chart()->mapToPosition(value, series[index]));
}

}  // namespace pacer::gui
