#include "app/gui/range_stats_panel.h"

#include "app/gui/models/large_run.h"
#include "app/gui/models/range_stats_model.h"
#include "app/gui/models/time_axis.h"
#include "app/gui/models/timeline_model.h"

#include <QFutureWatcher>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

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
    const quint64 generation = ++m_generation;
    m_counting = false;
    if (aggregateRange(timeline, start, end, &stats)) {
        showStats(range, std::move(stats), QString());
        return;
    }
    m_model->setStats({});
    const std::shared_ptr<const LargeRun> large = timeline.timelineIndex().large;
    if (!large) {
        m_summary->setText(tr("%1: the events of this range are not loaded.").arg(range));
        return;
    }
    // More than the timeline holds: counted in the project file, off the GUI thread; a newer selection wins.
    m_counting = true;
    m_summary->setText(tr("%1: counting in the project file…").arg(range));
    struct Counted {
        std::vector<RangeStat> stats;
        QString error;
    };
    auto* watcher = new QFutureWatcher<Counted>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation, range] {
        Counted counted = watcher->result();
        watcher->deleteLater();
        if (generation != m_generation)
            return;
        m_counting = false;
        if (!counted.error.isEmpty())
            m_summary->setText(tr("%1: %2").arg(range, counted.error));
        else
            showStats(range, std::move(counted.stats), tr(" (counted in the project file)"));
    });
    watcher->setFuture(QtConcurrent::run([large, start, end] {
        Counted c;
        aggregateStoredRange(*large, start, end, &c.stats, &c.error);
        return c;
    }));
}

void RangeStatsPanel::showStats(const QString& range, std::vector<RangeStat> stats, const QString& source)
{
    std::int64_t count = 0;
    for (const RangeStat& s : stats)
        count += s.count;
    m_model->setStats(std::move(stats));
    m_summary->setText((count == 1 ? tr("%1: 1 event").arg(range) : tr("%1: %2 events").arg(range).arg(count)) + source);
}

void RangeStatsPanel::clear()
{
    ++m_generation;
    m_counting = false;
    m_model->setStats({});
    m_summary->setText(tr("Drag across the timeline to select a time range."));
}

}  // namespace pacer::gui
