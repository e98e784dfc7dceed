// The events of a selected time range aggregated by name, as Perfetto's area selection and Tracy's range
// statistics show them: count, total and mean duration per name, longest total first.
//
// An event is in the range when it overlaps [t0, t1) on any lane (iteration markers are not on lanes); its
// whole duration counts, so a long span cut by the range's edge is not shortened. A large run's range is
// aggregated only when the timeline holds its events (a window of events covering it): zoom in to get there.
#pragma once

#include <QAbstractTableModel>
#include <QString>

#include <cstdint>
#include <vector>

namespace pacer::gui {

class TimelineModel;
struct LargeRun;

struct RangeStat {
    QString name;
    std::int64_t count = 0;
    std::int64_t totalNs = 0;
    double meanNs() const { return count > 0 ? static_cast<double>(totalNs) / static_cast<double>(count) : 0.0; }
};

// Aggregates the timeline's events overlapping [t0, t1); false when a large run's events there are not held.
bool aggregateRange(const TimelineModel& timeline, std::int64_t t0, std::int64_t t1, std::vector<RangeStat>* out);
// The same table for a large run counted in its project file (RunReader::aggregate: one indexed GROUP BY per
// track, no event read into memory), for ranges the timeline does not hold. Blocking: call it off the GUI thread.
// False with *error when the project cannot be read.
bool aggregateStoredRange(const LargeRun& run, std::int64_t t0, std::int64_t t1, std::vector<RangeStat>* out,
                          QString* error);

class RangeStatsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { NameColumn, CountColumn, TotalColumn, MeanColumn, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1;  // the raw number (or the name) behind each cell

    explicit RangeStatsModel(QObject* parent = nullptr);

    void setStats(std::vector<RangeStat> stats);
    const std::vector<RangeStat>& stats() const { return m_stats; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<RangeStat> m_stats;
};

}  // namespace pacer::gui
