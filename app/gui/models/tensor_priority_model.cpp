#include "app/gui/models/tensor_priority_model.h"

#include "app/common/units.h"
#include "app/gui/models/schedule_editor_model.h"
#include "engine/policies/segmenting.h"

#include <QMimeData>

#include <algorithm>

namespace pacer::gui {

TensorPriorityModel::TensorPriorityModel(ScheduleEditorModel* editor, QObject* parent)
    : QAbstractTableModel(parent), m_editor(editor) {
    connect(editor, &ScheduleEditorModel::settingsChanged, this, &TensorPriorityModel::refresh);
    refresh();
}

void TensorPriorityModel::refresh() {
    std::vector<int> order = m_editor->priorityOrder();
    // The units pace sends: its explicit groups, else its greedy fusion (engine/policies/pace_policy.cpp).
    const engine::PolicyConfig& c = m_editor->settings().config;
    std::vector<std::vector<int>> groups;
    if (c.name == "pace" && m_editor->input())
        groups = c.fusion_groups.empty()
                     ? engine::greedyFusionGroups(m_editor->input()->workload.tensors, c.fuse_below_bytes, c.segment_bytes)
                     : c.fusion_groups;
    std::sort(groups.begin(), groups.end());
    std::vector<int> group(order.size(), 0);
    std::vector<std::pair<int, int>> spans;
    for (const auto& g : groups) {
        if (g.size() < 2) continue;
        spans.emplace_back(g.front(), g.back());
        for (int t : g)
            if (t >= 0 && static_cast<std::size_t>(t) < group.size()) group[static_cast<std::size_t>(t)] = static_cast<int>(spans.size());
    }
    if (order.size() != m_order.size()) {
        beginResetModel();
        m_order = std::move(order);
        m_group = std::move(group);
        m_groupSpan = std::move(spans);
        m_segments = m_editor->settings().config.tensor_segment_bytes;
        endResetModel();
        return;
    }
    const std::vector<std::size_t>& segments = m_editor->settings().config.tensor_segment_bytes;
    if (order == m_order && group == m_group && segments == m_segments) return;
    m_order = std::move(order);
    m_group = std::move(group);
    m_groupSpan = std::move(spans);
    m_segments = segments;
    if (rowCount() > 0) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

int TensorPriorityModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_order.size());
}

int TensorPriorityModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant TensorPriorityModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || !m_editor->input() || index.row() >= rowCount()) return {};
    const int id = m_order[static_cast<std::size_t>(index.row())];
    const engine::TensorInfo& t = m_editor->input()->workload.tensors[static_cast<std::size_t>(id)];
    if (role == Qt::TextAlignmentRole && index.column() != Name)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    const engine::PolicyConfig& config = m_editor->settings().config;
    const bool own = static_cast<std::size_t>(id) < config.tensor_segment_bytes.size() &&
                     config.tensor_segment_bytes[static_cast<std::size_t>(id)] > 0;
    if (index.column() == Segment) {
        const QString size = QString::fromStdString(app::formatSize(static_cast<std::int64_t>(engine::segmentBytesOf(config, id))));
        if (role == Qt::EditRole) return own ? size : QString();
        if (role == Qt::DisplayRole) return own ? size : tr("(%1)").arg(size);
        if (role == Qt::ToolTipRole)
            return own ? tr("This tensor's own segment size; clear it for the policy's")
                       : tr("The policy's segment size; type a size to give this tensor its own");
        return {};
    }
    const int unit = static_cast<std::size_t>(id) < m_group.size() ? m_group[static_cast<std::size_t>(id)] : 0;
    if (index.column() == Fusion && unit > 0 && (role == Qt::DisplayRole || role == Qt::ToolTipRole)) {
        const auto [first, last] = m_groupSpan[static_cast<std::size_t>(unit - 1)];
        if (role == Qt::ToolTipRole)
            return tr("Fused unit %1 of %2: tensors %3 to %4 travel as one all-reduce")
                .arg(unit).arg(m_groupSpan.size()).arg(first).arg(last);
        return tr("unit %1").arg(unit);
    }
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
    switch (index.column()) {
        case Name: return QString::fromStdString(t.name);
        case Layer: return t.layer;
        case Bytes: return QString::fromStdString(app::formatSize(static_cast<std::int64_t>(t.bytes())));
        case Priority: return index.row();  // lower = sooner, as the engine reads it
        default: return {};
    }
}

QVariant TensorPriorityModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case Name: return tr("Tensor");
        case Layer: return tr("Layer");
        case Bytes: return tr("Bytes");
        case Priority: return tr("Priority");
        case Segment: return tr("Segment");
        case Fusion: return tr("Fused");
        default: return {};
    }
}

Qt::ItemFlags TensorPriorityModel::flags(const QModelIndex& index) const {
    const Qt::ItemFlags base = QAbstractTableModel::flags(index);
    if (!index.isValid()) return base | Qt::ItemIsDropEnabled;
    return index.column() == Segment ? base | Qt::ItemIsDragEnabled | Qt::ItemIsEditable : base | Qt::ItemIsDragEnabled;
}

bool TensorPriorityModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (role != Qt::EditRole || !index.isValid() || index.column() != Segment || index.row() >= rowCount()) return false;
    const QString text = value.toString().trimmed();
    std::size_t bytes = 0;  // the policy's
    if (!text.isEmpty() && text.compare(QLatin1String("default"), Qt::CaseInsensitive) != 0) {
        const auto parsed = app::parseSize(text.toStdString());
        if (!parsed || *parsed < 4) return false;
        bytes = static_cast<std::size_t>(*parsed);
    }
    m_editor->setTensorSegment(m_order[static_cast<std::size_t>(index.row())], bytes);
    return true;
}

QMimeData* TensorPriorityModel::mimeData(const QModelIndexList& indexes) const {
    if (indexes.isEmpty()) return nullptr;
    auto* data = new QMimeData;
    data->setData(kMimeType, QByteArray::number(indexes.first().row()));
    return data;
}

bool TensorPriorityModel::dropMimeData(const QMimeData* data, Qt::DropAction action, int row, int,
                                       const QModelIndex& parent) {
    if (action != Qt::MoveAction || !data || !data->hasFormat(kMimeType)) return false;
    bool ok = false;
    const int from = data->data(kMimeType).toInt(&ok);
    if (!ok) return false;
    int to = row >= 0 ? row : parent.isValid() ? parent.row() : rowCount() - 1;
    if (to > from) --to;  // the drop row counts the dragged row still in place
    m_editor->moveTensor(from, std::clamp(to, 0, rowCount() - 1));
    return false;
}

}  // namespace pacer::gui
