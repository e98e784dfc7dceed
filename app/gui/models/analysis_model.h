// The analysis panel's table: one row per rank with HTA's temporal breakdown (compute, exposed communication,
// idle), the communication-computation overlap and the straggler figures, from profiler/analysis, the same
// computation `pacer-cli analyze` prints.
#pragma once

#include "profiler/analysis/trace_analysis.h"

#include <QAbstractTableModel>

namespace pacer::gui {

class AnalysisModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { RankColumn, ComputeColumn, ExposedCommColumn, IdleColumn, OverlapColumn, LateStartsColumn, ColumnCount };
    static constexpr int ValueRole = Qt::UserRole + 1;  // the raw figure: ns, percent, count

    explicit AnalysisModel(QObject* parent = nullptr);

    void setAnalysis(profiler::analysis::RunAnalysis analysis);
    const profiler::analysis::RunAnalysis& analysis() const { return m_analysis; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    profiler::analysis::RunAnalysis m_analysis;
};

}  // namespace pacer::gui
