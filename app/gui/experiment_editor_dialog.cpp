#include "app/gui/experiment_editor_dialog.h"

#include "app/gui/main_window.h"
#include "engine/policy_config.h"

#if PACER_GUI_HAVE_LAUNCHER
#include "app/launcher/run_launcher.h"
#endif

#include <QAction>
#include <QComboBox>
#include <QMenu>
#include <QSignalBlocker>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTimer>
#include <QVBoxLayout>

namespace pacer::gui {
namespace {

constexpr int kGpuItem = 1;
constexpr int kDiscoveryTimeoutMs = 10'000;

QString settingLabel(const QString& key)
{
    static const QMap<QString, QString> labels{
        {QStringLiteral("segment_bytes"), QObject::tr("Segment size")},
        {QStringLiteral("fuse_below_bytes"), QObject::tr("Fuse tensors below")},
        {QStringLiteral("bucket_bytes"), QObject::tr("Bucket cap")},
        {QStringLiteral("first_bucket_bytes"), QObject::tr("First bucket")},
        {QStringLiteral("fusion_bytes"), QObject::tr("Fusion threshold")},
        {QStringLiteral("cycle_ms"), QObject::tr("Cycle (ms)")},
        {QStringLiteral("credit"), QObject::tr("Credit (partitions)")}};
    return labels.value(key, key);
}

}  // namespace

ExperimentEditorDialog::ExperimentEditorDialog(const QString& experimentsDir, QWidget* parent)
    : QDialog(parent), m_samples(listSampleExperiments(experimentsDir))
{
    setObjectName(QStringLiteral("experimentEditor"));
    setWindowTitle(tr("New Experiment"));

    m_model = new QComboBox;
    m_model->setObjectName(QStringLiteral("modelCombo"));
    for (const SampleExperiment& s : m_samples)
        m_model->addItem(s.name, s.path);
    m_model->setToolTip(tr("The sample experiments' models (samples/experiments). Model-zoo profiles are replay-only: "
                           "the worker cannot train them."));
    m_ranks = new QSpinBox;
    m_ranks->setObjectName(QStringLiteral("ranksSpin"));
    m_ranks->setRange(1, 64);  // the CLI's --ranks range
    m_backend = new QComboBox;
    m_backend->setObjectName(QStringLiteral("backendCombo"));
    m_backend->addItem(tr("CPU"), QStringLiteral("cpu"));
    m_backend->addItem(tr("GPU (looking…)"), QStringLiteral("gpu"));
    qobject_cast<QStandardItemModel*>(m_backend->model())->item(kGpuItem)->setEnabled(false);
    m_policy = new QComboBox;
    m_policy->setObjectName(QStringLiteral("policyCombo"));
    for (const std::string& name : engine::policyNames())
        m_policy->addItem(QString::fromStdString(name));
    m_iterations = new QSpinBox;
    m_iterations->setObjectName(QStringLiteral("iterationsSpin"));
    m_iterations->setRange(1, 1'000'000);
    m_order = new QComboBox;
    m_order->setObjectName(QStringLiteral("orderCombo"));
    m_order->addItem(tr("as the experiment says"), QString());
    m_order->addItem(tr("dynamic"), QStringLiteral("dynamic"));
    m_order->addItem(tr("plan"), QStringLiteral("plan"));
    m_channels = new QSpinBox;
    m_channels->setObjectName(QStringLiteral("channelsSpin"));
    m_channels->setRange(0, 16);
    m_channels->setSpecialValueText(tr("as the experiment says"));
    m_linkGbps = new QDoubleSpinBox;
    m_linkGbps->setObjectName(QStringLiteral("linkGbpsSpin"));
    m_linkGbps->setRange(0, 10000);
    m_linkGbps->setDecimals(2);
    m_linkGbps->setSuffix(tr(" Gb/s"));
    m_linkGbps->setSpecialValueText(tr("not emulated"));
    m_linkLatency = new QDoubleSpinBox;
    m_linkLatency->setObjectName(QStringLiteral("linkLatencySpin"));
    m_linkLatency->setRange(0, 1e6);
    m_linkLatency->setDecimals(1);
    m_linkLatency->setSuffix(tr(" µs"));

    auto* form = new QFormLayout;
    form->addRow(tr("Model"), m_model);
    form->addRow(tr("Ranks"), m_ranks);
    form->addRow(tr("Backend"), m_backend);
    form->addRow(tr("Policy"), m_policy);
    auto* policyBox = new QGroupBox(tr("Policy settings (empty: the default; pace tunes what is left empty)"));
    m_policyForm = new QFormLayout(policyBox);
    form->addRow(policyBox);
    form->addRow(tr("Iterations"), m_iterations);
    form->addRow(tr("Order"), m_order);
    form->addRow(tr("Channels"), m_channels);
    form->addRow(tr("Link bandwidth"), m_linkGbps);
    form->addRow(tr("Link latency"), m_linkLatency);

    m_error = new QLabel;
    m_error->setObjectName(QStringLiteral("editorError"));
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("color: #b91c1c"));
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    m_launch = buttons->addButton(tr("&Launch"), QDialogButtonBox::AcceptRole);
    m_launch->setObjectName(QStringLiteral("launchButton"));
    connect(buttons, &QDialogButtonBox::accepted, this, &ExperimentEditorDialog::launch);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_error);
    layout->addWidget(buttons);

    // Every edit is checked at once, so the Launch button is only ever offered for settings that can run.
    auto check = [this] {
        if (!m_loading)
            validate();
    };
    connect(m_model, &QComboBox::currentIndexChanged, this, &ExperimentEditorDialog::selectSample);
    connect(m_policy, &QComboBox::currentTextChanged, this, [this, check](const QString& policy) {
        if (!m_loading)
            showPolicySettings(policy, {});
        check();
    });
    for (QSpinBox* spin : {m_ranks, m_iterations, m_channels})
        connect(spin, &QSpinBox::valueChanged, this, check);
    for (QDoubleSpinBox* spin : {m_linkGbps, m_linkLatency})
        connect(spin, &QDoubleSpinBox::valueChanged, this, check);
    for (QComboBox* combo : {m_backend, m_order})
        connect(combo, &QComboBox::currentIndexChanged, this, check);

    if (!m_samples.empty())
        selectSample(0);
    else
        m_error->setText(tr("No sample experiments in %1").arg(experimentsDir));
    startGpuDiscovery();
}

ExperimentEditorDialog::~ExperimentEditorDialog()
{
    if (m_discovery && m_discovery->state() != QProcess::NotRunning) {
        m_discovery->kill();
        m_discovery->waitForFinished(1000);
    }
}

void ExperimentEditorDialog::selectSample(int index)
{
    if (index < 0 || index >= static_cast<int>(m_samples.size()))
        return;
    m_model->setToolTip(m_samples[static_cast<std::size_t>(index)].description);
    QString error;
    const auto s = launchSettingsOf(m_samples[static_cast<std::size_t>(index)].path, &error);
    if (!s) {
        m_error->setText(error);
        return;
    }
    setSettings(*s);
}

void ExperimentEditorDialog::showPolicySettings(const QString& policy, const QMap<QString, QString>& values)
{
    while (m_policyForm->rowCount() > 0)
        m_policyForm->removeRow(0);
    m_policyFields.clear();
    for (const QString& key : policySettingKeys(policy)) {
        auto* field = new QLineEdit(values.value(key));
        field->setObjectName(QStringLiteral("policy_") + key);
        field->setPlaceholderText(policy == QLatin1String("pace") ? tr("tuned by pace") : tr("default"));
        if (key.endsWith(QLatin1String("_bytes")))
            field->setToolTip(tr("A size: B, KiB, MiB or GiB"));
        connect(field, &QLineEdit::textChanged, this, [this] {
            if (!m_loading)
                validate();
        });
        m_policyForm->addRow(settingLabel(key), field);
        m_policyFields.insert(key, field);
    }
}

LaunchSettings ExperimentEditorDialog::settings() const
{
    LaunchSettings s;
    s.experimentPath = m_model->currentData().toString();
    s.ranks = m_ranks->value();
    s.backend = m_backend->currentData().toString();
    s.policy = m_policy->currentText();
    for (auto it = m_policyFields.cbegin(); it != m_policyFields.cend(); ++it)
        s.policySettings.insert(it.key(), it.value()->text());
    s.iterations = m_iterations->value();
    s.order = m_order->currentData().toString();
    s.channels = m_channels->value();
    s.linkGbps = m_linkGbps->value();
    s.linkLatencyUs = m_linkLatency->value();
    return s;
}

void ExperimentEditorDialog::setSettings(const LaunchSettings& s)
{
    m_loading = true;
    const int model = m_model->findData(s.experimentPath);
    if (model >= 0) {
        const QSignalBlocker block(m_model);  // these settings, not the sample's own
        m_model->setCurrentIndex(model);
    }
    m_ranks->setValue(s.ranks);
    // A GPU setting is shown even before discovery answers, so that validation sees what the file says.
    m_backend->setCurrentIndex(std::max(0, m_backend->findData(s.backend)));
    m_policy->setCurrentText(s.policy);
    showPolicySettings(s.policy, s.policySettings);
    m_iterations->setValue(s.iterations);
    m_order->setCurrentIndex(std::max(0, m_order->findData(s.order)));
    m_channels->setValue(s.channels);
    m_linkGbps->setValue(s.linkGbps);
    m_linkLatency->setValue(s.linkLatencyUs);
    m_loading = false;
    validate();
}

QString ExperimentEditorDialog::validate()
{
    QString error;
    if (m_samples.empty())
        error = tr("No sample experiments to start from");
    else if (!resolveLaunch(settings(), &error))
        error = error.isEmpty() ? tr("these settings cannot run") : error;
    m_error->setText(error);
    m_launch->setEnabled(error.isEmpty());
    return error;
}

QString ExperimentEditorDialog::error() const
{
    return m_error->text();
}

void ExperimentEditorDialog::setError(const QString& message)
{
    m_error->setText(message);
}

void ExperimentEditorDialog::launch()
{
    QString error;
    const auto experiment = resolveLaunch(settings(), &error);
    if (!experiment) {
        m_error->setText(error);
        m_launch->setEnabled(false);
        return;
    }
    if (m_projectPath.isEmpty()) {
        m_error->setText(tr("No project to add the run to: create or open one first (File menu)"));
        return;
    }
    const QString path = writeLaunchExperiment(*experiment, m_projectPath, &error);
    if (path.isEmpty()) {
        m_error->setText(error);
        return;
    }
    emit launchRequested(path);
}

void ExperimentEditorDialog::startGpuDiscovery()
{
#if PACER_GUI_HAVE_LAUNCHER
    m_discovery = new QProcess(this);
    connect(m_discovery, &QProcess::finished, this, [this](int, QProcess::ExitStatus) {
        const QString out = QString::fromUtf8(m_discovery->readAllStandardOutput());
        const QString why = QString::fromUtf8(m_discovery->readAllStandardError()).trimmed();
        m_gpus = out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QStandardItem* item = qobject_cast<QStandardItemModel*>(m_backend->model())->item(kGpuItem);
        item->setEnabled(!m_gpus.isEmpty());
        item->setText(m_gpus.isEmpty() ? tr("GPU (none: %1)").arg(why.isEmpty() ? tr("not found") : why)
                                       : tr("GPU (%n found: %1)", nullptr, static_cast<int>(m_gpus.size()))
                                             .arg(m_gpus.join(QStringLiteral("; "))));
        emit gpusDiscovered(m_gpus);
    });
    connect(m_discovery, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e != QProcess::FailedToStart)
            return;
        qobject_cast<QStandardItemModel*>(m_backend->model())->item(kGpuItem)->setText(tr("GPU (no pacer-worker to ask)"));
        emit gpusDiscovered({});
    });
    // A worker that hangs on a broken driver must not leave the menu waiting for ever.
    QTimer::singleShot(kDiscoveryTimeoutMs, m_discovery, [this] {
        if (m_discovery->state() != QProcess::NotRunning)
            m_discovery->kill();
    });
    m_discovery->start(app::RunLauncher::workerPath(), {QStringLiteral("--list-gpus")});
#else
    qobject_cast<QStandardItemModel*>(m_backend->model())->item(kGpuItem)->setText(tr("GPU (this build cannot run)"));
#endif
}

QAction* addExperimentEditor(MainWindow* window, QMenu* runMenu)
{
    auto* action = new QAction(QObject::tr("&New Experiment…"), window);
    action->setObjectName(QStringLiteral("newExperimentAction"));
    action->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
    action->setToolTip(QObject::tr("Choose a model, ranks, backend, policy and link, and run it"));
    QObject::connect(action, &QAction::triggered, window, [window] {
        auto* editor = window->findChild<ExperimentEditorDialog*>(QStringLiteral("experimentEditor"));
        if (!editor) {
            editor = new ExperimentEditorDialog(defaultExperimentsDir(), window);
            QObject::connect(editor, &ExperimentEditorDialog::launchRequested, window, [window, editor](const QString& path) {
                if (!window->runAction()->isEnabled()) {
                    editor->setError(QObject::tr("A run is in progress; wait for it or cancel it"));
                    return;
                }
                window->setExperiment(path, window->projectPath());
                window->setRunSettings({});  // the file holds every setting
                window->startRun();
                editor->accept();
            });
        }
        editor->setProjectPath(window->projectPath());
        editor->show();
        editor->raise();
    });
    runMenu->addAction(action);
    return action;
}

}  // namespace pacer::gui
