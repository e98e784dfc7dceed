#include "app/gui/range_stats_panel.h"

#include "app/gui/models/range_stats_model.h"
#include "app/gui/models/time_axis.h"
#include "app/gui/models/timeline_model.h"

#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace pacer::gui {

RangeStatsPanel::RangeStatsPanel(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("rangeStats"));
    m_model = new RangeStatsModel(this);
    m_sorted = new QSortFilterProxyModel(this);
    m_sorted->setSourceModel(m_model);
    m_sorted->setSortRole(RangeStatsModel::SortRole);
    m_table = new QTableView(this);
    m_table->setModel(m_sorted);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(RangeStatsModel::TotalColumn, Qt::DescendingOrder);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(RangeStatsModel::NameColumn, QHeaderView::Stretch);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_summary = new QLabel(tr("Drag across the timeline to select a time range."), this);
    m_summary->setWordWrap(true);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
}

QString RangeStatsPanel::summary() const
{
    return m_summary->text();
}

void RangeStatsPanel::showRange(const TimelineModel& timeline, qint64 start, qint64 end)
{
    std::vector<RangeStat> stats;
    const QString range = tr("%1 … %2 (%3)")
                              .arg(formatDuration(start - timeline.startTime()), formatDuration(end - timeline.startTime()),
                                   formatDuration(end - start));
    if (!aggregateRange(timeline, start, end, &stats)) {
        m_model->setStats({});
        m_summary->setText(tr("%1: the events of this range are not loaded yet; zoom in to it (F) and select again.")
                               .arg(range));
        return;
    }
    std::int64_t count = 0;
    for (const RangeStat& s : stats)
        count += s.count;
    m_model->setStats(std::move(stats));
    m_summary->setText(count == 1 ? tr("%1: 1 event").arg(range) : tr("%1: %2 events").arg(range).arg(count));
}

void RangeStatsPanel::clear()
{
    m_model->setStats({});
    m_summary->setText(tr("Drag across the timeline to select a time range."));
}

}  // namespace pacer::gui
