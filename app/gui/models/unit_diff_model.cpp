#include "app/gui/models/unit_diff_model.h"

#include <QBrush>
#include <QColor>

#include <algorithm>
#include <map>
#include <set>

namespace pacer::gui {

std::int64_t UnitDiff::drift() const {
    if (measuredStart < 0) return -1;
    return std::max(std::abs(measuredStart - predictedStart), std::abs(measuredEnd - predictedEnd));
}

namespace {

struct IterationUnits {
    std::int64_t origin = 0;
    std::vector<const profiler::TraceEvent*> units;  // by start
};

// The all-reduce units of one iteration on the tracks of rank `rank`, and where its first forward starts.
IterationUnits unitsOf(const profiler::RunTrace& trace, int rank, int iteration) {
    std::set<int> tracks;
    for (const profiler::Track& t : trace.tracks)
        if (t.rank == rank) tracks.insert(t.id);
    IterationUnits out;
    out.origin = -1;
    for (const profiler::TraceEvent& e : trace.events) {
        if (e.iteration != iteration || !tracks.count(e.track)) continue;
        if (e.kind == profiler::EventKind::Forward && (out.origin < 0 || e.start < out.origin)) out.origin = e.start;
        if (e.kind == profiler::EventKind::AllReduce) out.units.push_back(&e);
    }
    std::sort(out.units.begin(), out.units.end(), [](auto* a, auto* b) { return a->start < b->start; });
    if (out.origin < 0) out.origin = out.units.empty() ? 0 : out.units.front()->start;
    return out;
}

int lastIteration(const profiler::RunTrace& trace) {
    int last = -1;
    for (const profiler::TraceEvent& e : trace.events) last = std::max(last, e.iteration);
    return last;
}

int firstRank(const profiler::RunTrace& trace) {
    int rank = trace.tracks.empty() ? 0 : trace.tracks.front().rank;
    for (const profiler::Track& t : trace.tracks) rank = std::min(rank, t.rank);
    return rank;
}

}  // namespace

std::vector<UnitDiff> diffUnits(const profiler::RunTrace& predicted, const profiler::RunTrace& measured) {
    const IterationUnits p = unitsOf(predicted, firstRank(predicted), std::max(0, lastIteration(predicted) - 1));
    const IterationUnits m = unitsOf(measured, firstRank(measured), std::max(0, lastIteration(measured) / 2));
    // The n-th unit of (tensor, segment) in one matches the n-th in the other.
    std::map<std::pair<int, int>, std::vector<const profiler::TraceEvent*>> measuredByKey;
    for (const profiler::TraceEvent* e : m.units) measuredByKey[{e->tensor, e->segment}].push_back(e);
    std::map<std::pair<int, int>, std::size_t> used;
    std::vector<UnitDiff> out;
    for (const profiler::TraceEvent* e : p.units) {
        UnitDiff d;
        d.name = QString::fromStdString(e->name);
        d.tensor = e->tensor;
        d.segment = e->segment;
        d.predictedStart = e->start - p.origin;
        d.predictedEnd = e->end - p.origin;
        const std::pair<int, int> key{e->tensor, e->segment};
        auto& list = measuredByKey[key];
        const std::size_t n = used[key]++;
        if (n < list.size()) {
            d.measuredStart = list[n]->start - m.origin;
            d.measuredEnd = list[n]->end - m.origin;
        }
        out.push_back(std::move(d));
    }
    return out;
}

void UnitDiffModel::setUnits(std::vector<UnitDiff> units) {
    beginResetModel();
    m_units = std::move(units);
    std::vector<std::int64_t> drifts;
    for (const UnitDiff& u : m_units)
        if (u.drift() >= 0) drifts.push_back(u.drift());
    std::sort(drifts.begin(), drifts.end(), std::greater<>());
    m_highlightFrom = drifts.empty() ? -1 : drifts[std::min<std::size_t>(kHighlighted, drifts.size()) - 1];
    endResetModel();
}

bool UnitDiffModel::isHighlighted(int row) const {
    const std::int64_t d = m_units.at(static_cast<std::size_t>(row)).drift();
    return m_highlightFrom >= 0 && d >= m_highlightFrom && d > 0;
}

int UnitDiffModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(m_units.size()); }
int UnitDiffModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant UnitDiffModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const UnitDiff& u = m_units[static_cast<std::size_t>(index.row())];
    if (role == Qt::BackgroundRole) return isHighlighted(index.row()) ? QVariant(QBrush(QColor(255, 214, 153))) : QVariant();
    if (role == Qt::TextAlignmentRole && index.column() != Unit) return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole) return {};
    const auto msText = [](std::int64_t ns) { return ns < 0 ? QStringLiteral("-") : QString::number(ns / 1e6, 'f', 3); };
    switch (index.column()) {
        case Unit: return u.name;
        case PredictedStart: return msText(u.predictedStart);
        case PredictedEnd: return msText(u.predictedEnd);
        case MeasuredStart: return msText(u.measuredStart);
        case MeasuredEnd: return msText(u.measuredEnd);
        case Drift: return msText(u.drift());
        default: return {};
    }
}

QVariant UnitDiffModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* names[] = {"Unit", "Predicted start ms", "Predicted end ms", "Measured start ms",
                                  "Measured end ms", "Drift ms"};
    return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

}  // namespace pacer::gui
