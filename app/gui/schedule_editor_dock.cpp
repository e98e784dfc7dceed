#include "app/gui/schedule_editor_dock.h"

#include "app/common/comparison.h"
#include "app/common/tuned_settings.h"
#include "app/common/units.h"
#include "app/gui/models/tensor_priority_model.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>

namespace pacer::gui {

int ScheduleEditorDock::sliderPosition(std::size_t bytes) {
    return static_cast<int>(std::lround(std::log2(static_cast<double>(std::max<std::size_t>(bytes, 1))) * 4));
}

std::size_t ScheduleEditorDock::sliderBytes(int position) {
    // Whole KiB, so the value reads cleanly ("5.66 KiB" would not).
    const double bytes = std::exp2(position / 4.0);
    return static_cast<std::size_t>(std::llround(bytes / 1024.0)) * 1024;
}

ScheduleEditorDock::ScheduleEditorDock(QWidget* parent) : QDockWidget(tr("Schedule"), parent) {
    setObjectName(QStringLiteral("scheduleDock"));
    auto* body = new QWidget(this);
    auto* layout = new QVBoxLayout(body);
    m_tuned = new QLabel(body);
    m_tuned->setObjectName(QStringLiteral("tunedLabel"));
    m_tuned->setWordWrap(true);
    m_tuned->setVisible(false);
    layout->addWidget(m_tuned);
    auto* form = new QFormLayout;
    layout->addLayout(form);

    m_policy = new QComboBox(body);
    m_policy->setObjectName(QStringLiteral("policyBox"));
    for (const std::string& name : engine::policyNames()) m_policy->addItem(QString::fromStdString(name));
    form->addRow(tr("Policy"), m_policy);

    m_segment = new QSlider(Qt::Horizontal, body);
    m_segment->setObjectName(QStringLiteral("segmentSlider"));
    m_segment->setRange(sliderPosition(ScheduleEditorModel::kMinSegment), sliderPosition(ScheduleEditorModel::kMaxSegment));
    m_segmentValue = new QLabel(body);
    m_segmentValue->setMinimumWidth(70);
    auto* segmentRow = new QHBoxLayout;
    segmentRow->addWidget(m_segment, 1);
    segmentRow->addWidget(m_segmentValue);
    form->addRow(tr("Segment"), segmentRow);

    auto spin = [&](int lo, int hi, const QString& suffix, const char* name) {
        auto* s = new QSpinBox(body);
        s->setRange(lo, hi);
        s->setSuffix(suffix);
        s->setObjectName(QLatin1String(name));
        return s;
    };
    auto dspin = [&](double lo, double hi, int decimals, const QString& suffix, const QString& special, const char* name) {
        auto* s = new QDoubleSpinBox(body);
        s->setRange(lo, hi);
        s->setDecimals(decimals);
        s->setSuffix(suffix);
        s->setSpecialValueText(special);
        s->setObjectName(QLatin1String(name));
        return s;
    };
    m_bucketMiB = spin(1, 1024, tr(" MiB"), "bucketBox");
    m_credit = spin(1, 64, QString(), "creditBox");
    m_fuseBelowKiB = spin(0, 1 << 20, tr(" KiB"), "fuseBelowBox");
    form->addRow(tr("Bucket (ddp)"), m_bucketMiB);
    form->addRow(tr("Credit (bytescheduler)"), m_credit);
    form->addRow(tr("Fuse below (pace)"), m_fuseBelowKiB);

    m_linkGbps = dspin(0, 100000, 1, tr(" Gb/s"), tr("as measured"), "linkGbpsBox");
    m_latencyUs = dspin(-1, 1e6, 1, tr(" µs"), tr("as measured"), "latencyBox");
    m_ranks = spin(0, 4096, QString(), "ranksBox");
    m_ranks->setSpecialValueText(tr("as measured"));
    m_computeSpeed = dspin(0.1, 100, 2, tr(" ×"), QString(), "computeSpeedBox");
    m_channels = spin(0, 16, QString(), "channelsBox");
    m_channels->setSpecialValueText(tr("as measured"));
    form->addRow(tr("What if: link"), m_linkGbps);
    form->addRow(tr("latency"), m_latencyUs);
    form->addRow(tr("ranks"), m_ranks);
    form->addRow(tr("compute speed"), m_computeSpeed);
    form->addRow(tr("channels"), m_channels);

    m_figures = new QLabel(body);
    m_figures->setObjectName(QStringLiteral("figuresLabel"));
    m_figures->setTextFormat(Qt::RichText);
    m_figures->setWordWrap(true);
    layout->addWidget(m_figures);

    m_tensorModel = new TensorPriorityModel(&m_editor, this);
    m_tensors = new QTableView(body);
    m_tensors->setObjectName(QStringLiteral("tensorView"));
    m_tensors->setModel(m_tensorModel);
    m_tensors->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_tensors->setSelectionMode(QAbstractItemView::SingleSelection);
    m_tensors->setDragEnabled(true);
    m_tensors->setAcceptDrops(true);
    m_tensors->setDropIndicatorShown(true);
    m_tensors->setDragDropMode(QAbstractItemView::DragDrop);
    m_tensors->setDefaultDropAction(Qt::MoveAction);
    m_tensors->setDragDropOverwriteMode(false);
    m_tensors->verticalHeader()->hide();
    // Six columns in a dock a third of the window wide: the figures take what they need, the name the rest (at
    // fixed widths the Priority, Segment and Fused columns sat beyond a horizontal scroll bar).
    m_tensors->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_tensors->horizontalHeader()->setSectionResizeMode(TensorPriorityModel::Name, QHeaderView::Stretch);
    m_tensors->setToolTip(tr("Drag a tensor up to reduce it sooner (manual policy)"));
    layout->addWidget(m_tensors, 1);

    auto* buttons = new QHBoxLayout;
    auto* undo = new QToolButton(body);
    undo->setDefaultAction(m_editor.undoStack()->createUndoAction(this, tr("Undo")));
    undo->defaultAction()->setShortcut(QKeySequence::Undo);
    auto* redo = new QToolButton(body);
    redo->setDefaultAction(m_editor.undoStack()->createRedoAction(this, tr("Redo")));
    redo->defaultAction()->setShortcut(QKeySequence::Redo);
    m_optimize = new QPushButton(tr("Optimize"), body);
    m_optimize->setObjectName(QStringLiteral("optimizeButton"));
    m_optimize->setToolTip(tr("Sweep the segment size (4 KiB .. 256 MiB) and, for pace, search the fusion; apply the best"));
    m_save = new QPushButton(tr("Save…"), body);
    m_save->setObjectName(QStringLiteral("saveScheduleButton"));
    buttons->addWidget(undo);
    buttons->addWidget(redo);
    buttons->addStretch(1);
    buttons->addWidget(m_optimize);
    buttons->addWidget(m_save);
    m_run = new QPushButton(tr("Run this schedule"), body);
    m_run->setObjectName(QStringLiteral("runScheduleButton"));
    m_run->setToolTip(tr("Launch a real run of the run's experiment with these settings, then compare it with the prediction"));
    buttons->addWidget(m_run);
    layout->addLayout(buttons);
    setWidget(body);

    connect(&m_editor, &ScheduleEditorModel::settingsChanged, this, &ScheduleEditorDock::showSettings);
    connect(&m_editor, &ScheduleEditorModel::replayed, this, &ScheduleEditorDock::showOutcome);
    connect(&m_editor, &ScheduleEditorModel::replayFailed, this, [this](const QString& why) {
        m_figures->setText(tr("<b>Cannot replay:</b> %1").arg(why.toHtmlEscaped()));
    });
    connect(m_policy, &QComboBox::currentTextChanged, this, [this](const QString& name) {
        if (!m_showing) m_editor.setPolicy(name);
    });
    // The figures follow the slider while it is dragged; one drag is one undo step.
    connect(m_segment, &QSlider::sliderPressed, this, [this] { m_editor.beginDrag(); });
    connect(m_segment, &QSlider::valueChanged, this, [this](int position) {
        m_segmentValue->setText(QString::fromStdString(app::formatSize(static_cast<std::int64_t>(sliderBytes(position)))));
        if (!m_showing) m_editor.setSegmentBytes(sliderBytes(position), m_segment->isSliderDown());
    });
    for (QSpinBox* s : {m_bucketMiB, m_credit, m_fuseBelowKiB})
        connect(s, &QSpinBox::valueChanged, this, &ScheduleEditorDock::editPolicyField);
    for (QDoubleSpinBox* s : {m_linkGbps, m_latencyUs, m_computeSpeed})
        connect(s, &QDoubleSpinBox::valueChanged, this, &ScheduleEditorDock::editWhatIf);
    for (QSpinBox* s : {m_ranks, m_channels}) connect(s, &QSpinBox::valueChanged, this, &ScheduleEditorDock::editWhatIf);
    connect(m_optimize, &QPushButton::clicked, this, [this] {
        auto line = m_editor.optimize();
        emit message(line.ok() ? tr("Optimize: %1").arg(line.value()) : QString::fromStdString(line.message()));
    });
    connect(m_save, &QPushButton::clicked, this, &ScheduleEditorDock::saveAs);
    connect(m_run, &QPushButton::clicked, this, &ScheduleEditorDock::runRequested);
    showSettings();
}

void ScheduleEditorDock::showSettings() {
    m_showing = true;
    const engine::PolicyConfig& c = m_editor.settings().config;
    const engine::WhatIf& w = m_editor.settings().whatIf;
    m_policy->setCurrentText(QString::fromStdString(c.name));
    if (!m_segment->isSliderDown()) m_segment->setValue(sliderPosition(c.segment_bytes));
    m_segmentValue->setText(QString::fromStdString(app::formatSize(static_cast<std::int64_t>(c.segment_bytes))));
    m_bucketMiB->setValue(static_cast<int>(c.bucket_bytes >> 20));
    m_credit->setValue(c.credit);
    m_fuseBelowKiB->setValue(static_cast<int>(c.fuse_below_bytes >> 10));
    // Only the fields of the chosen policy can be edited.
    m_segment->setEnabled(c.name == "pace" || c.name == "manual" || c.name == "bytescheduler");
    m_bucketMiB->setEnabled(c.name == "ddp");
    m_credit->setEnabled(c.name == "bytescheduler");
    m_fuseBelowKiB->setEnabled(c.name == "pace");
    m_fuseBelowKiB->setToolTip(c.fusion_groups.empty()
                                   ? tr("Pace fuses adjacent tensors below this size")
                                   : tr("%n explicit fusion group(s) in use (the tensor list's Fused column); a "
                                        "threshold set here replaces them", nullptr,
                                        static_cast<int>(c.fusion_groups.size())));
    m_linkGbps->setValue(w.link_gbps);
    m_latencyUs->setValue(w.link_latency_us);
    m_ranks->setValue(w.ranks);
    m_computeSpeed->setValue(w.compute_speed);
    m_channels->setValue(w.channels);
    const bool haveInput = m_editor.input() != nullptr;
    m_optimize->setEnabled(haveInput);
    m_save->setEnabled(haveInput);
    m_run->setEnabled(haveInput && !m_editor.input()->experimentJson.empty());
    const std::optional<engine::Schedule>& tuned = haveInput ? m_editor.input()->tuned : std::nullopt;
    m_tuned->setVisible(tuned.has_value());
    // The band's dash joined to its figures (no-break spaces, a word joiner after it, where a line may otherwise
    // break): the label wraps, and a range split over two lines reads as two figures.
    static constexpr const char* kJoinedRange = "\u00a0–\u2060\u00a0";
    if (tuned)
        m_tuned->setText(tr("Run %1 tuned itself: %2, %3. The editor opened with that choice.")
                             .arg(m_editor.input()->runId)
                             .arg(QString::fromStdString(app::describeSettings(*tuned)))
                             .arg(QString::fromStdString(app::describeWarmupPrediction(*tuned, kJoinedRange))));
    m_showing = false;
}

void ScheduleEditorDock::editPolicyField() {
    if (m_showing) return;
    ScheduleSettings next = m_editor.settings();
    next.config.bucket_bytes = static_cast<std::size_t>(m_bucketMiB->value()) << 20;
    next.config.credit = m_credit->value();
    const std::size_t fuseBelow = static_cast<std::size_t>(m_fuseBelowKiB->value()) << 10;
    if (fuseBelow != next.config.fuse_below_bytes) next.config.fusion_groups.clear();  // a threshold replaces groups
    next.config.fuse_below_bytes = fuseBelow;
    m_editor.edit(next, tr("Policy setting"));
}

void ScheduleEditorDock::editWhatIf() {
    if (m_showing) return;
    engine::WhatIf w;
    w.link_gbps = m_linkGbps->value();
    w.link_latency_us = m_latencyUs->value() < 0 ? -1 : m_latencyUs->value();
    w.ranks = m_ranks->value();
    w.compute_speed = m_computeSpeed->value();
    w.channels = m_channels->value();
    m_editor.setWhatIf(w);
}

void ScheduleEditorDock::showOutcome(const ReplayOutcome& o) {
    const engine::SimFigures& f = o.figures;
    QString text = tr("<b>%1 ms</b> per iteration · exposed comm %2 ms · overlap %3% · lower bound %4 ms")
                       .arg(f.iter_ms, 0, 'f', 3)
                       .arg(f.exposed_comm_ms, 0, 'f', 3)
                       .arg(f.overlap * 100, 0, 'f', 0)
                       .arg(f.lower_bound_ms, 0, 'f', 3);
    if (!o.band.iteration_ms.empty())
        text += tr("<br>band %1 – %2 ms (from %3 iterations of the run)")
                    .arg(o.band.low_ms, 0, 'f', 3)
                    .arg(o.band.high_ms, 0, 'f', 3)
                    .arg(o.band.iteration_ms.size());
    if (f.stall_ms > 0)  // engine::Workload::stall_ns: no schedule removes it, so say how much of the time it is
        text += tr("<br>of which %1 ms the run's stalls (iterations set aside as outliers)").arg(f.stall_ms, 0, 'f', 3);
    // A plan-order run's own schedule replays the order it recorded; any other schedule decides its order, so the
    // same segment size can read differently here and on the sweep's curve (which always decides).
    if (o.followedPlanUnits > 0)
        text += tr("<br>order: the plan the run followed (%1 units an iteration, read from its trace)")
                    .arg(o.followedPlanUnits);
    else if (o.recordedPlanUnits > 0)
        text += tr("<br>order: decided by the policy (the run's recorded plan applies only at its own settings)");
    if (o.measuredIterMs > 0)
        text += tr("<br>measured %1 ms: %2%3%")
                    .arg(o.measuredIterMs, 0, 'f', 3)
                    .arg(f.iter_ms >= o.measuredIterMs ? QStringLiteral("+") : QString())
                    .arg((f.iter_ms / o.measuredIterMs - 1) * 100, 0, 'f', 1);
    m_figures->setText(text);
}

void ScheduleEditorDock::saveAs() {
    if (m_project.isEmpty()) {
        emit message(tr("Open a project to save schedules into"));
        return;
    }
    bool ok = false;
    const QString name = QInputDialog::getText(this, tr("Save schedule"), tr("Name:"), QLineEdit::Normal,
                                               QString::fromStdString(app::describeSchedule(m_editor.settings().config)), &ok);
    if (!ok || name.trimmed().isEmpty()) return;
    auto id = m_editor.save(m_project, name);
    if (!id.ok()) {
        emit message(QString::fromStdString(id.message()));
        return;
    }
    emit scheduleSaved(m_project, id.value());
}

}  // namespace pacer::gui
