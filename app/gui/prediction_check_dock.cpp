#include "app/gui/prediction_check_dock.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

namespace pacer::gui {

PredictionCheckDock::PredictionCheckDock(QWidget* parent) : QDockWidget(tr("Predicted vs measured"), parent) {
    setObjectName(QStringLiteral("predictionCheckDock"));
    auto* body = new QWidget(this);
    auto* layout = new QVBoxLayout(body);
    m_summary = new QLabel(tr("Run a schedule from the editor to check its prediction."), body);
    m_summary->setObjectName(QStringLiteral("predictionSummary"));
    m_summary->setWordWrap(true);
    m_units = new UnitDiffModel(this);
    m_table = new QTableView(body);
    m_table->setObjectName(QStringLiteral("unitDiffView"));
    m_table->setModel(m_units);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(UnitDiffModel::Unit, QHeaderView::Stretch);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
    setWidget(body);
}

void PredictionCheckDock::expect(const ReplayOutcome& prediction) {
    m_prediction = prediction;
    m_waiting = true;
    m_units->setUnits({});
    m_summary->setText(tr("Running %1: predicted %2 ms per iteration…")
                           .arg(QString::fromStdString(prediction.settings.config.name))
                           .arg(prediction.figures.iter_ms, 0, 'f', 3));
}

void PredictionCheckDock::showMeasured(const profiler::RunTrace& run, double measuredIterMs) {
    m_waiting = false;
    const double predicted = m_prediction.figures.iter_ms;
    m_errorPercent = measuredIterMs > 0 ? (predicted / measuredIterMs - 1) * 100 : 0;
    m_summary->setText(tr("<b>Run %1</b> (%2): predicted <b>%3 ms</b>, measured <b>%4 ms</b> per iteration, "
                          "error %5%6%. Highlighted: the %7 units that drift most.")
                           .arg(run.run_id)
                           .arg(QString::fromStdString(m_prediction.settings.config.name))
                           .arg(predicted, 0, 'f', 3)
                           .arg(measuredIterMs, 0, 'f', 3)
                           .arg(m_errorPercent >= 0 ? QStringLiteral("+") : QString())
                           .arg(m_errorPercent, 0, 'f', 1)
                           .arg(UnitDiffModel::kHighlighted));
    if (m_prediction.replay) m_units->setUnits(diffUnits(*m_prediction.replay, run));
    show();
    raise();
}

}  // namespace pacer::gui
