// The table of a selected time range: its events by name with count, total and mean duration (sortable), and
// a line saying which range it is. Fed by the timeline's rangeSelected signal.
#pragma once

#include <QWidget>

#include <cstdint>
#include <vector>

class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace pacer::gui {

class RangeStatsModel;
struct RangeStat;
class TimelineModel;

class RangeStatsPanel : public QWidget {
    Q_OBJECT
public:
    explicit RangeStatsPanel(QWidget* parent = nullptr);

    RangeStatsModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    QString summary() const;
    // Whether a large run's range is being counted in its project file (the table follows when it is).
    bool isCounting() const { return m_counting; }

public slots:
    void showRange(const pacer::gui::TimelineModel& timeline, qint64 start, qint64 end);
    void clear();

private:
    RangeStatsModel* m_model = nullptr;
    QSortFilterProxyModel* m_sorted = nullptr;
    QTableView* m_table = nullptr;
    QLabel* m_summary = nullptr;
    quint64 m_generation = 0;  // a newer selection drops the count of an older one
    bool m_counting = false;

    void showStats(const QString& range, std::vector<RangeStat> stats, const QString& source);
};

}  // namespace pacer::gui
