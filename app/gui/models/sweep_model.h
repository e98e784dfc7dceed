// The compare view's sweep: predicted iteration time against segment size (every power of two from 4 KiB to
// 256 MiB, the schedule editor's range), one column per policy, replayed on the editor's input with its
// what-ifs through engine::sweep (what `pacer-cli sweep --segment-bytes 4KiB:256MiB` runs). Policies that do not
// cut tensors into segments (fifo, ddp, horovod) are replayed once and drawn flat, as the reference they are.
// A point of the chart turns back into the editor's settings with settingsAt().
#pragma once

#include "app/common/replay_session.h"
#include "app/gui/models/newest_wins.h"
#include "app/gui/models/replay_worker.h"

#include <QAbstractTableModel>

#include <memory>
#include <vector>

namespace pacer::gui {

struct SegmentSweep {
    ScheduleSettings base;                     // the settings swept around (policy fields, what-ifs)
    std::vector<std::size_t> sizes;            // ascending
    std::vector<std::string> policies;
    std::vector<std::vector<double>> iterMs;   // [policy][size]; NaN where a policy cannot replay
    QString error;                             // non-empty: nothing could be swept
};

// Synchronous; safe on any thread.
SegmentSweep computeSegmentSweep(const app::ReplayInput& input, const ScheduleSettings& base);
// Whether the policy's iteration time depends on the segment size.
bool policyUsesSegments(const std::string& policy);

class SweepModel : public QAbstractTableModel {
    Q_OBJECT
public:
    static constexpr int SizeColumn = 0;                // then one column per policy
    static constexpr int ValueRole = Qt::UserRole + 1;  // bytes, or iteration ms

    explicit SweepModel(QObject* parent = nullptr);

    // Sweeps off the GUI thread (newest wins); the model resets when the result arrives.
    quint64 request(std::shared_ptr<const app::ReplayInput> input, const ScheduleSettings& base);
    void setSweep(SegmentSweep sweep);
    const SegmentSweep& sweep() const { return m_sweep; }
    bool isBusy() const { return m_jobs.isBusy(); }

    // The policy of a column (1..), the best row of a policy, and the settings a point stands for: the swept
    // base with that policy and segment size.
    std::string policyOf(int column) const;
    int bestRow(int column) const;
    ScheduleSettings settingsAt(int row, int column) const;
    // The row whose size is nearest to `bytes` on the chart's log scale.
    int nearestRow(double bytes) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    void sweepFailed(const QString& message);

private:
    SegmentSweep m_sweep;
    NewestWins<SegmentSweep> m_jobs;
};

}  // namespace pacer::gui
