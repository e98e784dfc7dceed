#include "app/gui/models/analysis_model.h"

#include "app/gui/models/time_axis.h"

#include <QColor>

namespace pacer::gui {

AnalysisModel::AnalysisModel(QObject* parent) : QAbstractTableModel(parent) {}

void AnalysisModel::setAnalysis(profiler::analysis::RunAnalysis analysis)
{
    beginResetModel();
    m_analysis = std::move(analysis);
    endResetModel();
}

int AnalysisModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_analysis.ranks.size());
}

int AnalysisModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant AnalysisModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto& r = m_analysis.ranks[static_cast<std::size_t>(index.row())];
    auto share = [&r](std::int64_t ns) {
        const double percent = r.span_ns > 0 ? 100.0 * static_cast<double>(ns) / static_cast<double>(r.span_ns) : 0.0;
        return QStringLiteral("%1  (%2 %)").arg(formatDuration(ns)).arg(percent, 0, 'f', 1);
    };
    if (role == ValueRole) {
        switch (index.column()) {
        case RankColumn: return r.rank;
        case ComputeColumn: return static_cast<qlonglong>(r.compute_ns);
        case ExposedCommColumn: return static_cast<qlonglong>(r.exposed_comm_ns);
        case IdleColumn: return static_cast<qlonglong>(r.idle_ns);
        case OverlapColumn: return r.overlapPercent();
        case LateStartsColumn: return r.last_starts;
        }
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case RankColumn:
            return r.rank == m_analysis.straggler_rank ? QStringLiteral("%1 (straggler)").arg(r.rank) : QString::number(r.rank);
        case ComputeColumn: return share(r.compute_ns);
        case ExposedCommColumn: return share(r.exposed_comm_ns);
        case IdleColumn: return share(r.idle_ns);
        case OverlapColumn: return QStringLiteral("%1 %").arg(r.overlapPercent(), 0, 'f', 1);
        case LateStartsColumn: return QStringLiteral("%1 (mean %2 late)").arg(r.last_starts).arg(formatDuration(static_cast<std::int64_t>(r.mean_lateness_ns)));
        }
    }
    if (role == Qt::ForegroundRole && r.rank == m_analysis.straggler_rank)
        return QColor(0xb9, 0x1c, 0x1c);
    if (role == Qt::TextAlignmentRole)
        return index.column() == RankColumn ? QVariant(Qt::AlignLeft | Qt::AlignVCenter) : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant AnalysisModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case RankColumn: return tr("Rank");
    case ComputeColumn: return tr("Compute");
    case ExposedCommColumn: return tr("Exposed comm.");
    case IdleColumn: return tr("Idle");
    case OverlapColumn: return tr("Comm. overlap");
    case LateStartsColumn: return tr("Collectives started last");
    }
    return {};
}

}  // namespace pacer::gui
