// The experiment editor in a real (offscreen) window: settings that cannot run are refused with exactly the line
// `pacer-cli capture` prints for the same settings (the CLI is run on each row), the backend offers the GPUs the
// worker finds and no others, and a small valid CPU launch ends as a new run in the project tree.
#include "app/gui/experiment_editor_dialog.h"
#include "app/gui/main_window.h"
#include "profiler/project.h"

#include <QAction>
#include <QComboBox>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTemporaryDir>
#include <QTest>

using namespace pacer::gui;

namespace {

const QString kSamples = QStringLiteral(PACER_SAMPLES_DIR "/experiments");

LaunchSettings sample(const QString& file)
{
    QString error;
    auto s = launchSettingsOf(kSamples + QLatin1Char('/') + file, &error);
    if (!s)
        qFatal("%s", qPrintable(error));
    return *s;
}

}  // namespace

class TestExperimentEditor : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    // What pacer-cli capture says about the same settings: the sample with the editor's policy object, the other
    // settings as flags. Only its stderr line matters (it refuses before any worker starts).
    QString cliError(const LaunchSettings& s, QString* experimentFile)
    {
        QFile in(s.experimentPath);
        if (!in.open(QIODevice::ReadOnly))
            return {};
        QJsonObject experiment = QJsonDocument::fromJson(in.readAll()).object();
        if (experiment[QStringLiteral("model")].isString())  // a model file, relative to the experiment
            experiment[QStringLiteral("model")] =
                QFileInfo(s.experimentPath).dir().absoluteFilePath(experiment[QStringLiteral("model")].toString());
        experiment[QStringLiteral("policy")] = QJsonDocument::fromJson(
            QByteArray::fromStdString(overridesOf(s).policyObject->dump())).object();
        *experimentFile = m_dir.filePath(QStringLiteral("cli-%1.json").arg(QDateTime::currentMSecsSinceEpoch()));
        QFile out(*experimentFile);
        if (!out.open(QIODevice::WriteOnly))
            return {};
        out.write(QJsonDocument(experiment).toJson());
        out.close();
        QStringList args{QStringLiteral("capture"), QStringLiteral("--experiment"), *experimentFile,
                         QStringLiteral("--out"), m_dir.filePath(QStringLiteral("cli.pacer")),
                         QStringLiteral("--ranks"), QString::number(s.ranks), QStringLiteral("--backend"), s.backend,
                         QStringLiteral("--iterations"), QString::number(s.iterations),
                         QStringLiteral("--link-gbps"), QString::number(s.linkGbps),
                         QStringLiteral("--link-latency-us"), QString::number(s.linkLatencyUs)};
        if (!s.order.isEmpty())
            args << QStringLiteral("--order") << s.order;
        if (s.channels > 0)
            args << QStringLiteral("--channels") << QString::number(s.channels);
        QProcess cli;
        cli.start(QStringLiteral(PACER_CLI_PATH), args);
        if (!cli.waitForFinished(60'000) || cli.exitCode() != 2)
            return QStringLiteral("exit %1: %2").arg(cli.exitCode()).arg(QString::fromUtf8(cli.readAllStandardError()));
        return QString::fromUtf8(cli.readAllStandardError()).trimmed();
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
#ifdef PACER_WORKER_PATH
        qputenv("PACER_WORKER", PACER_WORKER_PATH);
#endif
    }

    void offersTheSampleModels()
    {
        ExperimentEditorDialog editor(kSamples);
        auto* model = editor.findChild<QComboBox*>(QStringLiteral("modelCombo"));
        QStringList names;
        for (int i = 0; i < model->count(); ++i)
            names << model->itemText(i);
        QVERIFY2(names.contains(QLatin1String("mlp-2rank")) && names.contains(QLatin1String("cnn-2rank")) &&
                     names.contains(QLatin1String("transformer-2rank")),
                 qPrintable(names.join(QLatin1Char(','))));
        QCOMPARE(editor.validate(), QString());  // every sample runs as it is
    }

    void refusesWithTheCliMessage_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("backend");
        QTest::addColumn<QString>("policy");
        QTest::addColumn<QString>("setting");
        QTest::addColumn<QString>("value");
        QTest::addColumn<int>("iterations");
        QTest::addColumn<QString>("order");
        QTest::addColumn<int>("channels");
        QTest::addColumn<QString>("fragment");  // hand-written: the row fails when the message is another one
        QTest::newRow("channels in dynamic order") << "mlp-2rank.json" << "cpu" << "fifo" << "" << "" << 20 << "dynamic"
                                                   << 2 << "'channels' above 1 needs order 'plan'";
        QTest::newRow("plan with too few iterations") << "mlp-2rank.json" << "cpu" << "fifo" << "" << "" << 2 << "plan"
                                                      << 0 << "needs at least 2 warm-up iterations";
        QTest::newRow("segment size not a size") << "mlp-2rank.json" << "cpu" << "pace" << "segment_bytes"
                                                 << "12 parsecs" << 20 << "" << 0 << "is not a size";
        QTest::newRow("segment of 0 bytes") << "cnn-2rank.json" << "cpu" << "pace" << "segment_bytes" << "0" << 20 << ""
                                            << 0 << "segment size is 0 bytes";
        QTest::newRow("bytescheduler credit 0") << "mlp-2rank.json" << "cpu" << "bytescheduler" << "credit" << "0" << 20
                                                << "" << 0 << "credit is 0";
        QTest::newRow("horovod cycle negative") << "mlp-2rank.json" << "cpu" << "horovod" << "cycle_ms" << "-1" << 20
                                                << "" << 0 << "cycle time must be positive";
        QTest::newRow("channels on gpu") << "mlp-2rank.json" << "gpu" << "fifo" << "" << "" << 20 << "plan" << 2
                                         << "needs the cpu backend";
    }
    void refusesWithTheCliMessage()
    {
        QFETCH(QString, file);
        QFETCH(QString, backend);
        QFETCH(QString, policy);
        QFETCH(QString, setting);
        QFETCH(QString, value);
        QFETCH(int, iterations);
        QFETCH(QString, order);
        QFETCH(int, channels);
        QFETCH(QString, fragment);
        ExperimentEditorDialog editor(kSamples);
        editor.setProjectPath(m_dir.filePath(QStringLiteral("never.pacer")));
        LaunchSettings s = sample(file);
        s.backend = backend;
        s.policy = policy;
        s.policySettings.clear();
        if (!setting.isEmpty())
            s.policySettings[setting] = value;
        s.iterations = iterations;
        s.order = order;
        s.channels = channels;
        editor.setSettings(s);
        const QString message = editor.validate();
        QVERIFY2(message.contains(fragment), qPrintable(message));
        QCOMPARE(editor.findChild<QLabel*>(QStringLiteral("editorError"))->text(), message);
        QVERIFY(!editor.findChild<QPushButton*>(QStringLiteral("launchButton"))->isEnabled());
        QSignalSpy launched(&editor, &ExperimentEditorDialog::launchRequested);
        editor.launch();
        QCOMPARE(launched.count(), 0);
        QVERIFY(!QFileInfo::exists(m_dir.filePath(QStringLiteral("never.pacer.runs"))));
        // The same settings through the CLI: the same sentence (a policy read from a file is named after the file).
        QString experimentFile;
        const QString cli = cliError(editor.settings(), &experimentFile);
        const QString head = QStringLiteral("pacer-cli: error: ");
        QVERIFY2(cli == head + message || cli == head + experimentFile + QStringLiteral(": ") + message,
                 qPrintable(cli + QStringLiteral("\n vs ") + message));
    }

    // The GPU entry is enabled exactly when the worker lists GPUs (none on a machine without one).
    void backendOffersTheGpusTheWorkerFinds()
    {
        ExperimentEditorDialog editor(kSamples);
        QSignalSpy discovered(&editor, &ExperimentEditorDialog::gpusDiscovered);
        QVERIFY(discovered.wait(20'000));
        QProcess worker;
        worker.start(QString::fromUtf8(qgetenv("PACER_WORKER")), {QStringLiteral("--list-gpus")});
        QVERIFY(worker.waitForFinished(20'000));
        QCOMPARE(editor.gpus(), QString::fromUtf8(worker.readAllStandardOutput()).split(QLatin1Char('\n'), Qt::SkipEmptyParts));
        auto* backend = editor.findChild<QComboBox*>(QStringLiteral("backendCombo"));
        const QStandardItem* gpu = qobject_cast<QStandardItemModel*>(backend->model())->item(1);
        QCOMPARE(gpu->isEnabled(), !editor.gpus().isEmpty());
        QVERIFY(gpu->text().startsWith(QLatin1String("GPU (")));
    }

    // Run > New Experiment, two CPU ranks, three iterations: the run lands in the project and in its tree.
    void validLaunchAddsARunToTheTree()
    {
#if !PACER_GUI_HAVE_LAUNCHER || !defined(PACER_WORKER_PATH)
        QSKIP("built without the run launcher or the worker");
#else
        MainWindow window;
        const QString project = m_dir.filePath(QStringLiteral("editor.pacer"));
        window.setExperiment(kSamples + QStringLiteral("/mlp-2rank.json"), project);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto* action = window.findChild<QAction*>(QStringLiteral("newExperimentAction"));
        QVERIFY(action);
        action->trigger();
        auto* editor = window.findChild<ExperimentEditorDialog*>(QStringLiteral("experimentEditor"));
        QVERIFY(editor && editor->isVisible());
        LaunchSettings s = sample(QStringLiteral("mlp-2rank.json"));
        s.ranks = 2;
        s.iterations = 3;
        s.policy = QStringLiteral("pace");
        s.policySettings = {{QStringLiteral("segment_bytes"), QStringLiteral("64KiB")}};
        s.linkGbps = 0;
        editor->setSettings(s);
        QCOMPARE(editor->validate(), QString());
        QSignalSpy finished(&window, &MainWindow::runFinished);
        QSignalSpy failed(&window, &MainWindow::runFailed);
        QSignalSpy loaded(&window, &MainWindow::projectLoaded);
        QTest::mouseClick(editor->findChild<QPushButton*>(QStringLiteral("launchButton")), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() + failed.count() > 0, 120'000);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.at(0).at(0).toString()));
        QVERIFY(!editor->isVisible());
        const qint64 run = finished.at(0).at(0).toLongLong();
        QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty() && loaded.last().at(1).toLongLong() == run, 30'000);
        QVERIFY(window.projectModel()->runIndex(run).isValid());
        const auto runs = pacer::profiler::listRuns(project.toStdString());
        QVERIFY(runs.ok());
        QCOMPARE(runs.value().size(), std::size_t{1});
        QCOMPARE(runs.value()[0].ranks, 2);
        QCOMPARE(runs.value()[0].iterations, 3);
        QCOMPARE(runs.value()[0].policy, std::string("pace"));
        QCOMPARE(runs.value()[0].segment_bytes, std::int64_t{64 << 10});
#endif
    }
};

QTEST_MAIN(TestExperimentEditor)
#include "tst_experiment_editor.moc"
