// Predicted against measured, unit by unit: for one iteration of the replay and one of the real run, each
// communication unit's start and end relative to its iteration's first forward, matched by (tensor, segment) in
// the order they ran. The units that drift most are flagged so the view can highlight them.
#pragma once

#include "profiler/trace_model.h"

#include <QAbstractTableModel>

#include <cstdint>
#include <vector>

namespace pacer::gui {

struct UnitDiff {
    QString name;
    int tensor = -1;
    int segment = -1;
    std::int64_t predictedStart = 0, predictedEnd = 0;  // ns from the iteration's first forward
    std::int64_t measuredStart = -1, measuredEnd = -1;  // -1: the run has no such unit
    std::int64_t drift() const;                         // the larger of the start and end differences; -1 unmatched
};

// The units of the replay's steady iteration (the second to last it simulated) against the measured run's middle
// iteration on rank 0.
std::vector<UnitDiff> diffUnits(const profiler::RunTrace& predicted, const profiler::RunTrace& measured);

class UnitDiffModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Unit, PredictedStart, PredictedEnd, MeasuredStart, MeasuredEnd, Drift, ColumnCount };
    static constexpr int kHighlighted = 5;  // the units that drift most

    explicit UnitDiffModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}
    void setUnits(std::vector<UnitDiff> units);
    const std::vector<UnitDiff>& units() const { return m_units; }
    bool isHighlighted(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<UnitDiff> m_units;
    std::int64_t m_highlightFrom = -1;  // drifts at or above this are highlighted
};

}  // namespace pacer::gui
