// The schedule editor's tensor list: one row per gradient tensor in priority order (most urgent first), with
// name, layer, bytes, priority, segment size and the fused unit it travels in under pace (the explicit fusion
// groups, as a self-tuned run chose them, else pace's greedy fusion below its threshold; empty for a tensor alone).
// Dragging a row to another place changes its priority (the manual policy): the drop goes through
// ScheduleEditorModel::moveTensor, so it is one undoable edit and replays at once. The Segment column is editable:
// a tensor's own segment size ("256KiB"; empty = the policy's), through ScheduleEditorModel::setTensorSegment,
// likewise one undoable edit.
#pragma once

#include <QAbstractTableModel>

#include <utility>
#include <vector>

namespace pacer::gui {

class ScheduleEditorModel;

class TensorPriorityModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Layer, Bytes, Priority, Segment, Fusion, ColumnCount };
    static constexpr const char* kMimeType = "application/x-pacer-tensor-row";

    explicit TensorPriorityModel(ScheduleEditorModel* editor, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    // Segment column: a size ("64KiB", "65536"), or empty / "default" for the policy's; false for anything else.
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

    Qt::DropActions supportedDropActions() const override { return Qt::MoveAction; }
    QStringList mimeTypes() const override { return {kMimeType}; }
    QMimeData* mimeData(const QModelIndexList& indexes) const override;
    // Moves the dragged row itself and returns false, so the view removes nothing afterwards.
    bool dropMimeData(const QMimeData* data, Qt::DropAction action, int row, int column,
                      const QModelIndex& parent) override;

private:
    void refresh();

    ScheduleEditorModel* m_editor;
    std::vector<int> m_order;  // tensor ids, most urgent first
    std::vector<std::size_t> m_segments;  // the settings' per-tensor segment sizes, as last shown
    std::vector<int> m_group;  // tensor id -> its fused unit's number (1, 2, ... in id order), 0 when alone
    std::vector<std::pair<int, int>> m_groupSpan;  // unit number - 1 -> its first and last tensor id
};

}  // namespace pacer::gui
