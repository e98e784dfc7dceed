// The project tree: the experiment at the top, then its runs and its saved schedules.
//
// Built from a ProjectOverview value (what the loader reads from a .pacer file off the GUI thread), so the
// model never touches the database itself. Runs are listed newest first, which is what a user looks for after
// pressing Run. Schedules appear as the store gains them; the node is there from the start so the layout
// does not jump.
#pragma once

#include <QAbstractItemModel>
#include <QString>

#include <cstdint>
#include <vector>

namespace pacer::gui {

struct RunEntry {
    std::int64_t id = 0;
    QString label;
    QString policy;
    int ranks = 0;
    int iterations = 0;
    std::int64_t segmentBytes = 0;
    QString tuned;  // what a self-tuning pace chose ("plan order, 2 channels, 1 MiB segments, ..."), else empty
    QString slotStores;  // how its shared-memory chunks were written (app::describeSlotStores), else empty
};

struct ScheduleEntry {
    std::int64_t id = 0;
    QString name;
    QString policy;
};

struct ProjectOverview {
    QString path;
    QString experiment;  // the experiment's name, or the file's base name
    std::vector<RunEntry> runs;
    std::vector<ScheduleEntry> schedules;
};

class ProjectTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum class NodeKind { Experiment, RunsGroup, Run, SchedulesGroup, Schedule };
    enum Roles {
        NodeKindRole = Qt::UserRole + 1,  // int(NodeKind)
        RunIdRole,                        // qint64, on Run nodes
        ScheduleIdRole,                   // qint64, on Schedule nodes
        TunedRole,                        // QString, on Run nodes: the self-tuned choice, empty when none
    };

    explicit ProjectTreeModel(QObject* parent = nullptr);

    void setOverview(ProjectOverview overview);
    const ProjectOverview& overview() const { return m_overview; }

    QModelIndex runIndex(std::int64_t runId) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

private:
    // Internal ids encode the node: 0 experiment, 1 runs group, 2 schedules group, and
    // (group << 32 | row + 1) for children, so parent() needs no pointers into the overview.
    static constexpr quintptr kExperiment = 0;
    static constexpr quintptr kRunsGroup = 1;
    static constexpr quintptr kSchedulesGroup = 2;

    ProjectOverview m_overview;
    bool m_hasProject = false;
};

}  // namespace pacer::gui
