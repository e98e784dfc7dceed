#include "app/gui/models/compare_model.h"

#include "app/common/trace_conversion.h"

#include <QBrush>
#include <QColor>
#include <QFont>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace pacer::gui {

CompareModel::CompareModel(QObject* parent) : QAbstractTableModel(parent) {}

void CompareModel::setComparison(std::shared_ptr<const app::Comparison> comparison) {
    beginResetModel();
    m_comparison = std::move(comparison);
    const int rows = m_comparison ? static_cast<int>(m_comparison->rows.size()) : 0;
    m_baseline = std::clamp(m_baseline, 0, std::max(0, rows - 1));
    endResetModel();
}

void CompareModel::setBaseline(int row) {
    const int rows = rowCount();
    row = std::clamp(row, 0, std::max(0, rows - 1));
    if (row == m_baseline) return;
    m_baseline = row;
    if (rows > 0) emit dataChanged(index(0, 0), index(rows - 1, ColumnCount - 1));
    emit baselineChanged(row);
}

int CompareModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_comparison ? 0 : static_cast<int>(m_comparison->rows.size());
}

int CompareModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant CompareModel::value(const app::CompareRow& row, int rowIndex, int column) const {
    const engine::SimFigures& f = row.predicted.figures;
    switch (column) {
        case IterationMs: return app::iterationMs(row);
        case PredictedMs: return f.iter_ms;
        case BandMs: return row.band.iteration_ms.empty() ? QVariant() : QVariant(row.band.high_ms - row.band.low_ms);
        case MeasuredMs: return row.measuredIterMs > 0 ? QVariant(row.measuredIterMs) : QVariant();
        case ComputeMs: return f.compute_ms;
        case ExposedMs: return f.exposed_comm_ms;
        case IdleMs: return f.idle_ms;
        case OverlapPercent: return f.overlap * 100;
        case LowerBoundMs: return f.lower_bound_ms;
        case Change: {
            const auto change = app::changeAgainst(*m_comparison, static_cast<std::size_t>(rowIndex),
                                                   static_cast<std::size_t>(m_baseline));
            return change ? QVariant(*change) : QVariant();
        }
        default: return {};
    }
}

QVariant CompareModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) || !m_comparison)
        return {};
    const int r = index.row();
    const app::CompareRow& row = m_comparison->rows[static_cast<std::size_t>(r)];
    const bool isRun = row.item.kind == app::CompareItem::Kind::Run;
    const int column = index.column();
    if (role == ValueRole) return value(row, r, column);
    if (role == Qt::FontRole && r == m_baseline) {
        QFont bold;
        bold.setBold(true);
        return bold;
    }
    if (role == Qt::ForegroundRole && column == Change) {
        // As Tracy's compare window does: faster in green, slower in red, the stronger the larger.
        const QVariant v = value(row, r, column);
        if (!v.isValid() || r == m_baseline) return {};
        const double x = v.toDouble();
        if (std::abs(x) < 0.005) return {};
        return QBrush(x < 0 ? QColor(0x1b, 0x7f, 0x3b) : QColor(0xb3, 0x26, 0x1e));
    }
    if (role == Qt::TextAlignmentRole && column >= IterationMs && column <= IdleMs)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && column == Change && r != m_baseline && !value(row, r, column).isValid())
        return tr("Not the baseline's experiment: no difference is given across experiments");
    if (role == Qt::ToolTipRole && column == Change)
        if (const QString note = machineNote(r); !note.isEmpty()) return note;
    if (role != Qt::DisplayRole) return {};
    switch (column) {
        case Item: return QString::fromStdString(isRun ? "run " + row.item.label : row.item.label);
        case Source: return isRun ? tr("run %1").arg(row.runId) : tr("replay of run %1").arg(row.runId);
        case Experiment:
            return row.experimentName.empty() ? tr("(none recorded)") : QString::fromStdString(row.experimentName);
        case Schedule: {
            QString text = QString::fromStdString(app::describeSchedule(row.config));
            if (!row.settings.empty()) text += QStringLiteral(" (%1)").arg(QString::fromStdString(row.settings));
            return text;
        }
        case BandMs:
            return row.band.iteration_ms.empty()
                       ? QStringLiteral("-")
                       : QStringLiteral("%1 – %2").arg(row.band.low_ms, 0, 'f', 3).arg(row.band.high_ms, 0, 'f', 3);
        case OverlapPercent: return QStringLiteral("%1%").arg(row.predicted.figures.overlap * 100, 0, 'f', 0);
        case Change: {
            if (r == m_baseline) return tr("baseline");
            const QVariant v = value(row, r, column);
            if (!v.isValid()) return QStringLiteral("-");
            const QString text =
                QStringLiteral("%1%2%").arg(v.toDouble() >= 0 ? "+" : "").arg(v.toDouble() * 100, 0, 'f', 1);
            return machineNote(r).isEmpty() ? text : text + QStringLiteral(" *");  // the tooltip says why
        }
        default: {
            const QVariant v = value(row, r, column);
            return v.isValid() ? QString::number(v.toDouble(), 'f', 3) : QStringLiteral("-");
        }
    }
}

QString CompareModel::machineNote(int rowIndex) const {
    if (!m_comparison || rowIndex == m_baseline) return {};
    const auto note = app::machineSpeedNote(*m_comparison, static_cast<std::size_t>(rowIndex),
                                            static_cast<std::size_t>(m_baseline));
    if (!note) return {};
    QString text = QString::fromStdString(*note);
    text[0] = text[0].toUpper();  // a sentence of its own here
    return text;
}

QString CompareModel::machineNotes() const {
    QString first;
    int marked = 0;
    for (int r = 0; r < rowCount(); ++r) {
        const QString note = machineNote(r);
        if (note.isEmpty()) continue;
        if (marked++ == 0) first = note;
    }
    if (marked == 0) return {};
    return marked == 1 ? QStringLiteral("* %1").arg(first)
                       : tr("* %1 (and %2 more marked rows: see their tooltips)").arg(first).arg(marked - 1);
}

QVariant CompareModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
    if (role == Qt::ToolTipRole && section == IterationMs)
        return tr("Measured for a run, predicted for a schedule");
    if (role == Qt::ToolTipRole && section == Change)
        return tr("Against the baseline: measurement against measurement where both are runs, else predictions");
    if (role != Qt::DisplayRole) return {};
    static const char* const names[ColumnCount] = {
        QT_TR_NOOP("item"),        QT_TR_NOOP("source"),     QT_TR_NOOP("iter ms"),        QT_TR_NOOP("vs baseline"),
        QT_TR_NOOP("predicted ms"), QT_TR_NOOP("band ms"),   QT_TR_NOOP("measured ms"),    QT_TR_NOOP("exposed ms"),
        QT_TR_NOOP("overlap"),     QT_TR_NOOP("lower bound ms"), QT_TR_NOOP("compute ms"), QT_TR_NOOP("idle ms"),
        QT_TR_NOOP("schedule"),    QT_TR_NOOP("experiment")};
    return tr(names[section]);
}

std::shared_ptr<const profiler::RunTrace> rowTrace(const app::CompareRow& row) {
    if (row.item.kind == app::CompareItem::Kind::Run) return row.input->trace;
    profiler::RunInfo info;
    info.label = row.item.label;
    info.policy = row.config.name;
    info.segment_bytes = static_cast<std::int64_t>(row.config.segment_bytes);
    info.iterations = engine::SimOptions{}.iterations;
    engine::Workload drawn = row.input->workload;  // as simulated: its channels are the comm lanes
    if (row.item.whatIf.channels > 0) drawn.channels = row.item.whatIf.channels;
    return std::make_shared<const profiler::RunTrace>(app::traceFromSimulation(row.predicted, drawn, info));
}

namespace {

// Where the trace's first steady iteration starts: its second iteration when it has two or more, else its first.
std::int64_t alignmentPoint(const profiler::RunTrace& trace) {
    std::map<int, std::int64_t> starts;  // iteration -> earliest forward (or iteration marker)
    for (const profiler::TraceEvent& e : trace.events) {
        if (e.iteration < 0 || (e.kind != profiler::EventKind::Forward && e.kind != profiler::EventKind::Iteration))
            continue;
        auto [it, inserted] = starts.try_emplace(e.iteration, e.start);
        if (!inserted) it->second = std::min(it->second, e.start);
    }
    if (starts.size() >= 2) return std::next(starts.begin())->second;
    if (!starts.empty()) return starts.begin()->second;
    std::int64_t first = std::numeric_limits<std::int64_t>::max();
    for (const profiler::TraceEvent& e : trace.events) first = std::min(first, e.start);
    return trace.events.empty() ? 0 : first;
}

}  // namespace

std::shared_ptr<const profiler::RunTrace> stackedTrace(const app::Comparison& comparison, std::int64_t* alignedAt) {
    auto out = std::make_shared<profiler::RunTrace>();
    out->label = "comparison";
    int rankBase = 0, trackBase = 0;
    std::int64_t anchor = 0;
    for (std::size_t i = 0; i < comparison.rows.size(); ++i) {
        const app::CompareRow& row = comparison.rows[i];
        const std::shared_ptr<const profiler::RunTrace> trace = rowTrace(row);
        if (!trace) continue;
        const std::int64_t at = alignmentPoint(*trace);
        if (i == 0) {
            anchor = at;
            if (comparison.groups.size() == 1) out->tensors = trace->tensors;
        }
        const std::int64_t shift = anchor - at;
        const bool isRun = row.item.kind == app::CompareItem::Kind::Run;
        const std::string prefix = "#" + std::to_string(i + 1) + " " + (isRun ? "run " : "") + row.item.label + ": ";
        int maxRank = 0, maxTrack = -1;
        for (profiler::Track t : trace->tracks) {
            maxRank = std::max(maxRank, t.rank);
            maxTrack = std::max(maxTrack, t.id);
            t.id += trackBase;
            t.rank += rankBase;
            t.name = prefix + (t.name.empty() ? "track " + std::to_string(t.id - trackBase) : t.name);
            out->tracks.push_back(std::move(t));
        }
        for (profiler::TraceEvent e : trace->events) {
            if (e.kind == profiler::EventKind::Iteration && i > 0) continue;
            e.track += trackBase;
            e.start += shift;
            e.end += shift;
            out->events.push_back(std::move(e));
        }
        out->ranks = rankBase + maxRank + 1;
        rankBase += maxRank + 1;
        trackBase += maxTrack + 1;
    }
    std::sort(out->events.begin(), out->events.end(),
              [](const auto& a, const auto& b) { return a.track != b.track ? a.track < b.track : a.start < b.start; });
    if (alignedAt) *alignedAt = anchor;
    return out;
}

}  // namespace pacer::gui
