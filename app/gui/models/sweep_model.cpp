#include "app/gui/models/sweep_model.h"

#include "app/common/units.h"
#include "app/gui/models/schedule_editor_model.h"

#include <cmath>
#include <limits>

namespace pacer::gui {

bool policyUsesSegments(const std::string& policy) {
    return policy == "pace" || policy == "manual" || policy == "bytescheduler";
}

SegmentSweep computeSegmentSweep(const app::ReplayInput& input, const ScheduleSettings& base) {
    SegmentSweep out;
    out.base = base;
    for (std::size_t s = ScheduleEditorModel::kMinSegment; s <= ScheduleEditorModel::kMaxSegment; s *= 2)
        out.sizes.push_back(s);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    QString firstError;
    bool any = false;
    for (const std::string& policy : engine::policyNames()) {
        engine::PolicyConfig config = base.config;
        config.name = policy;
        std::vector<double> ms(out.sizes.size(), nan);
        if (policyUsesSegments(policy)) {
            auto points = engine::sweep(input.workload, input.cost, config, "segment_bytes",
                                        static_cast<std::int64_t>(out.sizes.front()),
                                        static_cast<std::int64_t>(out.sizes.back()), base.whatIf);
            if (points.ok() && points.value().size() == out.sizes.size()) {
                for (std::size_t i = 0; i < ms.size(); ++i) ms[i] = points.value()[i].figures.iter_ms;
                any = true;
            } else if (firstError.isEmpty()) {
                firstError = QString::fromStdString(policy + ": " + (points.ok() ? "the sweep missed sizes" : points.message()));
            }
        } else {  // the segment size does not enter: one replay, drawn flat
            auto r = engine::replay(input.workload, input.cost, config, base.whatIf);
            if (r.ok()) {
                ms.assign(ms.size(), r.value().sim.figures.iter_ms);
                any = true;
            } else if (firstError.isEmpty()) {
                firstError = QString::fromStdString(policy + ": " + r.message());
            }
        }
        out.policies.push_back(policy);
        out.iterMs.push_back(std::move(ms));
    }
    if (!any) out.error = firstError;
    return out;
}

SweepModel::SweepModel(QObject* parent)
    : QAbstractTableModel(parent), m_jobs(this, [this](quint64, const SegmentSweep& sweep) {
          if (!sweep.error.isEmpty()) emit sweepFailed(sweep.error);
          setSweep(sweep);
      }) {}

quint64 SweepModel::request(std::shared_ptr<const app::ReplayInput> input, const ScheduleSettings& base) {
    if (!input) {
        m_jobs.dropPending();
        setSweep({});
        return m_jobs.generation();
    }
    return m_jobs.request([input = std::move(input), base] { return computeSegmentSweep(*input, base); });
}

void SweepModel::setSweep(SegmentSweep sweep) {
    beginResetModel();
    m_sweep = std::move(sweep);
    endResetModel();
}

std::string SweepModel::policyOf(int column) const {
    const int p = column - 1;
    return p >= 0 && p < static_cast<int>(m_sweep.policies.size()) ? m_sweep.policies[static_cast<std::size_t>(p)]
                                                                    : std::string();
}

int SweepModel::bestRow(int column) const {
    const int p = column - 1;
    if (p < 0 || p >= static_cast<int>(m_sweep.iterMs.size())) return -1;
    const auto& ms = m_sweep.iterMs[static_cast<std::size_t>(p)];
    int best = -1;
    for (int i = 0; i < static_cast<int>(ms.size()); ++i)
        if (std::isfinite(ms[static_cast<std::size_t>(i)]) && (best < 0 || ms[static_cast<std::size_t>(i)] < ms[static_cast<std::size_t>(best)]))
            best = i;
    return best;
}

ScheduleSettings SweepModel::settingsAt(int row, int column) const {
    ScheduleSettings s = m_sweep.base;
    if (row < 0 || row >= rowCount() || policyOf(column).empty()) return s;
    s.config.name = policyOf(column);
    s.config.segment_bytes = m_sweep.sizes[static_cast<std::size_t>(row)];
    return s;
}

int SweepModel::nearestRow(double bytes) const {
    if (m_sweep.sizes.empty() || !(bytes > 0)) return -1;
    int best = 0;
    double distance = std::numeric_limits<double>::infinity();
    for (int i = 0; i < static_cast<int>(m_sweep.sizes.size()); ++i) {
        const double d = std::abs(std::log2(static_cast<double>(m_sweep.sizes[static_cast<std::size_t>(i)])) - std::log2(bytes));
        if (d < distance) {
            distance = d;
            best = i;
        }
    }
    return best;
}

int SweepModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_sweep.sizes.size());
}

int SweepModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : 1 + static_cast<int>(m_sweep.policies.size());
}

QVariant SweepModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const auto row = static_cast<std::size_t>(index.row());
    if (index.column() == SizeColumn) {
        if (role == ValueRole) return static_cast<qulonglong>(m_sweep.sizes[row]);
        if (role == Qt::DisplayRole)
            return QString::fromStdString(app::formatSize(static_cast<std::int64_t>(m_sweep.sizes[row])));
        return {};
    }
    const double ms = m_sweep.iterMs[static_cast<std::size_t>(index.column() - 1)][row];
    if (role == ValueRole) return std::isfinite(ms) ? QVariant(ms) : QVariant();
    if (role == Qt::DisplayRole) return std::isfinite(ms) ? QString::number(ms, 'f', 3) : QStringLiteral("-");
    if (role == Qt::TextAlignmentRole) return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant SweepModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= columnCount()) return {};
    if (section == SizeColumn) return tr("segment");
    return tr("%1 ms").arg(QString::fromStdString(policyOf(section)));
}

}  // namespace pacer::gui
