// The compare view's table: one row per pinned run or schedule, with the figures `pacer-cli compare` prints
// (iteration time, band, measured, exposed communication, overlap, lower bound), the split of the iteration
// into compute / exposed communication / idle, and the change against a chosen baseline row. The figures and
// the change come from app/common/comparison, the very functions the CLI calls, so both agree to the digit.
//
// Also here: the pinned rows' lanes stacked on one time axis (stackedTrace), each aligned at an iteration start.
#pragma once

#include "app/common/comparison.h"
#include "profiler/trace_model.h"

#include <QAbstractTableModel>

#include <memory>

namespace pacer::gui {

class CompareModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Item,         // the label the user pinned: "run 3", "pace:256KiB", a saved schedule's name
        Source,       // "run 3" or "replay of run 3"
        IterationMs,  // measured for a run, predicted for a schedule (app::iterationMs)
        Change,       // against the baseline row (app::changeAgainst); empty across experiments
        PredictedMs,
        BandMs,
        MeasuredMs,
        ExposedMs,
        OverlapPercent,
        LowerBoundMs,
        ComputeMs,
        IdleMs,
        Schedule,     // app::describeSchedule, plus what a self-tuned pace chose
        Experiment,
        ColumnCount
    };
    static constexpr int ValueRole = Qt::UserRole + 1;  // the raw number (ms, percent, change as a fraction)

    explicit CompareModel(QObject* parent = nullptr);

    void setComparison(std::shared_ptr<const app::Comparison> comparison);
    const app::Comparison* comparison() const { return m_comparison.get(); }
    // The row differences are taken against; clamped to the rows there are.
    void setBaseline(int row);
    int baseline() const { return m_baseline; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // Where the row's run found the machine more than app::kMachineSpeedNote slower or faster than the baseline's:
    // the sentence that says so (its change is marked " *", the sentence its tooltip); empty otherwise.
    QString machineNote(int rowIndex) const;
    // What the " *" marks mean, for a line beside the table: the first marked row's sentence (and how many more
    // there are); empty where no row is marked.
    QString machineNotes() const;

signals:
    void baselineChanged(int row);

private:
    QVariant value(const app::CompareRow& row, int rowIndex, int column) const;

    std::shared_ptr<const app::Comparison> m_comparison;
    int m_baseline = 0;
};

// The replayed iterations of a schedule row as a trace (a run row: its measured trace).
std::shared_ptr<const profiler::RunTrace> rowTrace(const app::CompareRow& row);

// Every row's lanes under the previous row's, on one axis: row i's tracks get ranks after row i-1's and are named
// "#i LABEL: ...", and each row is shifted so that its first steady iteration (its second, when it has more than
// one: the first pays for allocation in a run and fills the pipeline in a replay) starts where the first row's
// does. Iteration bands are kept from the first row only (they are numbered per source). Tensor names are kept
// when every row trained the same experiment.
// alignedAt (optional): where on the common axis the rows' first steady iterations start.
std::shared_ptr<const profiler::RunTrace> stackedTrace(const app::Comparison& comparison,
                                                       std::int64_t* alignedAt = nullptr);

}  // namespace pacer::gui
