#include "app/gui/models/project_tree_model.h"

#include "app/gui/models/time_axis.h"

#include <algorithm>

namespace pacer::gui {

namespace {

constexpr quintptr childId(quintptr group, int row)
{
    return (group << 32) | static_cast<quintptr>(row + 1);
}
constexpr quintptr groupOf(quintptr id) { return id >> 32; }
constexpr int rowOf(quintptr id) { return static_cast<int>(id & 0xffffffffu) - 1; }

}  // namespace

ProjectTreeModel::ProjectTreeModel(QObject* parent) : QAbstractItemModel(parent) {}

void ProjectTreeModel::setOverview(ProjectOverview overview)
{
    beginResetModel();
    m_overview = std::move(overview);
    std::stable_sort(m_overview.runs.begin(), m_overview.runs.end(),
                     [](const RunEntry& a, const RunEntry& b) { return a.id > b.id; });
    m_hasProject = true;
    endResetModel();
}

QModelIndex ProjectTreeModel::runIndex(std::int64_t runId) const
{
    for (std::size_t i = 0; i < m_overview.runs.size(); ++i)
        if (m_overview.runs[i].id == runId)
            return createIndex(static_cast<int>(i), 0, childId(kRunsGroup, static_cast<int>(i)));
    return {};
}

QModelIndex ProjectTreeModel::index(int row, int column, const QModelIndex& parent) const
{
    if (!hasIndex(row, column, parent))
        return {};
    if (!parent.isValid())
        return createIndex(row, column, kExperiment);
    const quintptr id = parent.internalId();
    if (id == kExperiment)
        return createIndex(row, column, row == 0 ? kRunsGroup : kSchedulesGroup);
    if (id == kRunsGroup || id == kSchedulesGroup)
        return createIndex(row, column, childId(id, row));
    return {};
}

QModelIndex ProjectTreeModel::parent(const QModelIndex& child) const
{
    if (!child.isValid())
        return {};
    const quintptr id = child.internalId();
    if (id == kExperiment)
        return {};
    if (id == kRunsGroup || id == kSchedulesGroup)
        return createIndex(0, 0, kExperiment);
    const quintptr group = groupOf(id);
    return createIndex(group == kRunsGroup ? 0 : 1, 0, group);
}

int ProjectTreeModel::rowCount(const QModelIndex& parent) const
{
    if (!parent.isValid())
        return m_hasProject ? 1 : 0;
    if (parent.column() != 0)
        return 0;
    switch (parent.internalId()) {
    case kExperiment: return 2;
    case kRunsGroup: return static_cast<int>(m_overview.runs.size());
    case kSchedulesGroup: return static_cast<int>(m_overview.schedules.size());
    default: return 0;
    }
}

int ProjectTreeModel::columnCount(const QModelIndex&) const
{
    return 1;
}

QVariant ProjectTreeModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const quintptr id = index.internalId();
    if (id == kExperiment) {
        if (role == Qt::DisplayRole)
            return m_overview.experiment;
        if (role == Qt::ToolTipRole)
            return m_overview.path;
        if (role == NodeKindRole)
            return static_cast<int>(NodeKind::Experiment);
        return {};
    }
    if (id == kRunsGroup || id == kSchedulesGroup) {
        const bool runs = id == kRunsGroup;
        if (role == Qt::DisplayRole)
            return runs ? QStringLiteral("Runs (%1)").arg(m_overview.runs.size())
                        : QStringLiteral("Saved schedules (%1)").arg(m_overview.schedules.size());
        if (role == NodeKindRole)
            return static_cast<int>(runs ? NodeKind::RunsGroup : NodeKind::SchedulesGroup);
        return {};
    }
    const int row = rowOf(id);
    if (groupOf(id) == kRunsGroup) {
        const RunEntry& run = m_overview.runs.at(static_cast<std::size_t>(row));
        switch (role) {
        case Qt::DisplayRole: {
            // The policy is what tells runs of one experiment apart; show it unless the label already does.
            const QString tuned = run.tuned.isEmpty() ? QString() : QStringLiteral(" (tuned)");
            if (run.label.isEmpty())
                return QStringLiteral("#%1 %2%3").arg(run.id).arg(run.policy, tuned);
            if (run.policy.isEmpty() || run.label.contains(run.policy, Qt::CaseInsensitive))
                return QStringLiteral("#%1 %2%3").arg(run.id).arg(run.label, tuned);
            return QStringLiteral("#%1 %2 · %3%4").arg(run.id).arg(run.label, run.policy, tuned);
        }
        case Qt::ToolTipRole: {
            // A self-tuned run's own segment size is the one it chose, not the experiment's.
            const QString settings =
                !run.tuned.isEmpty()
                    ? QStringLiteral("tuned itself: %1").arg(run.tuned)
                    : QStringLiteral("segment %1").arg(run.segmentBytes > 0 ? formatBytes(run.segmentBytes)
                                                                            : QStringLiteral("whole tensors"));
            // How the host treated its collectives, where it recorded that (a run slower than its neighbours may
            // have met the ranks' cores apart).
            const QString host = run.slotStores.isEmpty() ? QString() : QStringLiteral("\n") + run.slotStores;
            return QStringLiteral("run %1: policy %2, %3 ranks, %4 iterations, %5%6")
                .arg(run.id)
                .arg(run.policy)
                .arg(run.ranks)
                .arg(run.iterations)
                .arg(settings, host);
        }
        case TunedRole: return run.tuned;
        case NodeKindRole: return static_cast<int>(NodeKind::Run);
        case RunIdRole: return static_cast<qint64>(run.id);
        default: return {};
        }
    }
    const ScheduleEntry& schedule = m_overview.schedules.at(static_cast<std::size_t>(row));
    switch (role) {
    case Qt::DisplayRole: return schedule.name;
    case Qt::ToolTipRole: return QStringLiteral("schedule %1, policy %2").arg(schedule.id).arg(schedule.policy);
    case NodeKindRole: return static_cast<int>(NodeKind::Schedule);
    case ScheduleIdRole: return static_cast<qint64>(schedule.id);
    default: return {};
    }
}

}  // namespace pacer::gui
