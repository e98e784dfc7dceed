#include "app/gui/models/range_stats_model.h"

#include "app/gui/models/large_run.h"
#include "app/gui/models/time_axis.h"
#include "app/gui/models/timeline_model.h"

#include <algorithm>

namespace pacer::gui {

bool aggregateRange(const TimelineModel& timeline, std::int64_t t0, std::int64_t t1, std::vector<RangeStat>* out)
{
    out->clear();
    if (!timeline.holdsEventsOf(t0, t1))
        return false;
    const auto& events = timeline.trace()->events;
    std::vector<RangeStat> byName(timeline.names().size());
    for (int l = 0; l < timeline.laneCount(); ++l) {
        const TimelineModel::Lane& lane = timeline.lane(l);
        // Ends are not sorted, their running maximum is: the first event that may reach past t0.
        auto k = static_cast<std::size_t>(std::upper_bound(lane.maxEnd.begin(), lane.maxEnd.end(), t0) - lane.maxEnd.begin());
        for (; k < lane.events.size() && lane.starts[k] < t1; ++k) {
            const auto& e = events[static_cast<std::size_t>(lane.events[k])];
            if (e.end <= t0)
                continue;
            RangeStat& s = byName[static_cast<std::size_t>(timeline.eventNameId(lane.events[k]))];
            ++s.count;
            s.totalNs += e.end - e.start;
        }
    }
    for (std::size_t id = 0; id < byName.size(); ++id) {
        if (byName[id].count == 0)
            continue;
        byName[id].name = timeline.names()[id];
        out->push_back(std::move(byName[id]));
    }
    std::sort(out->begin(), out->end(), [](const RangeStat& a, const RangeStat& b) {
        return a.totalNs != b.totalNs ? a.totalNs > b.totalNs : a.name < b.name;
    });
    return true;
}

bool aggregateStoredRange(const LargeRun& run, std::int64_t t0, std::int64_t t1, std::vector<RangeStat>* out,
                          QString* error)
{
    out->clear();
    auto reader = profiler::RunReader::open(run.path.toStdString(), run.runId);
    auto totals = reader.ok() ? reader.value()->aggregate(run.outline.extents, t0, t1)
                              : profiler::Result<std::vector<profiler::RunReader::NameTotals>>(reader.status());
    if (!totals.ok()) {
        *error = QString::fromStdString(totals.status().message());
        return false;
    }
    for (const auto& t : totals.value())
        out->push_back({QString::fromStdString(t.name), t.count, t.total_ns});
    return true;
}

RangeStatsModel::RangeStatsModel(QObject* parent) : QAbstractTableModel(parent) {}

void RangeStatsModel::setStats(std::vector<RangeStat> stats)
{
    beginResetModel();
    m_stats = std::move(stats);
    endResetModel();
}

int RangeStatsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_stats.size());
}

int RangeStatsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RangeStatsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const RangeStat& s = m_stats[static_cast<std::size_t>(index.row())];
    if (role == Qt::TextAlignmentRole)
        return index.column() == NameColumn ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                            : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == SortRole) {
        switch (index.column()) {
        case NameColumn: return s.name;
        case CountColumn: return static_cast<qlonglong>(s.count);
        case TotalColumn: return static_cast<qlonglong>(s.totalNs);
        case MeanColumn: return s.meanNs();
        }
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case NameColumn: return s.name;
        case CountColumn: return static_cast<qlonglong>(s.count);
        case TotalColumn: return formatDuration(s.totalNs);
        case MeanColumn: return formatDuration(static_cast<std::int64_t>(s.meanNs() + 0.5));
        }
    }
    return {};
}

QVariant RangeStatsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case NameColumn: return tr("Name");
    case CountColumn: return tr("Count");
    case TotalColumn: return tr("Total");
    case MeanColumn: return tr("Mean");
    }
    return {};
}

}  // namespace pacer::gui
