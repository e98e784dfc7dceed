// A worker that dies must not hang the others: they stop with an error naming the lost rank within the timeout
// plus a few seconds, and the launcher reports it and keeps the trace captured so far.
#include "process_helpers.h"
#include "profiler/project.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace pacer::testing;

namespace {
constexpr int kTimeoutSeconds = 5;
}

class FaultsTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    // Dynamic order, and plan order with 2 channels (killed after warm-up, while both channels carry units); and a
    // rank that hangs (SIGSTOP: its connections stay open, only its heartbeat goes stale) instead of dying.
    void othersStopWhenOneIsKilled_data() {
        QTest::addColumn<QString>("order");
        QTest::addColumn<int>("channels");
        QTest::addColumn<QString>("signal");
        QTest::newRow("dynamic") << "dynamic" << 1 << "KILL";
        QTest::newRow("plan, 2 channels") << "plan" << 2 << "KILL";
        QTest::newRow("dynamic, stopped") << "dynamic" << 1 << "STOP";
        QTest::newRow("plan, 2 channels, stopped") << "plan" << 2 << "STOP";
    }
    void othersStopWhenOneIsKilled() {
        QFETCH(QString, order);
        QFETCH(int, channels);
        QFETCH(QString, signal);
        const int ranks = 3;
        const QString name = QString("killed-%1-%2-%3").arg(order).arg(channels).arg(signal);
        const QString runDir = dir_.filePath(name);
        QDir().mkpath(runDir + "/rendezvous");
        const QString experiment = writeExperiment(
            dir_, name + ".json", {{"ranks", ranks}, {"iterations", 100000}, {"warmup_iterations", 2},
                                   {"timeout_s", kTimeoutSeconds}, {"order", order.toStdString()},
                                   {"channels", channels}, {"link", {{"gbps", 0}, {"latency_us", 0}}}});
        QVERIFY(QFile::copy(experiment, runDir + "/experiment.json"));
        std::vector<std::unique_ptr<QProcess>> workers;
        for (int r = 0; r < ranks; ++r) {
            auto p = std::make_unique<QProcess>();
            p->start(PACER_WORKER_PATH, {"--run-dir", runDir, "--rank", QString::number(r), "--world-size",
                                         QString::number(ranks)});
            QVERIFY(p->waitForStarted(10000));
            workers.push_back(std::move(p));
        }
        // Let training get going: rank 1 reports a few iterations (past warm-up).
        QByteArray seen;
        QTRY_VERIFY_WITH_TIMEOUT((seen += workers[1]->readAllStandardOutput()).count("\"progress\"") >= 5, 60000);
        QCOMPARE(QProcess::execute("kill", {"-" + signal, QString::number(workers[1]->processId())}), 0);
        QElapsedTimer clock;
        clock.start();
        for (int r : {0, 2}) {
            QVERIFY2(workers[r]->waitForFinished((kTimeoutSeconds + 10) * 1000), "a surviving rank hung");
            QVERIFY(workers[r]->exitCode() != 0);
            const QString err = QString::fromUtf8(workers[r]->readAllStandardError());
            QVERIFY2(err.contains("rank 1"), qPrintable("rank " + QString::number(r) + " said: " + err));
            if (signal == "STOP")
                QVERIFY2(err.contains("rank 1 stopped responding"), qPrintable("rank " + QString::number(r) + " said: " + err));
        }
        QVERIFY2(clock.elapsed() < (kTimeoutSeconds + 10) * 1000, "the survivors took too long");
        workers[1]->kill();  // a stopped process still dies of SIGKILL
        workers[1]->waitForFinished(5000);
    }

    void launcherReportsTheLostRankAndKeepsTheTrace() {
        // A rank that exits early through a bad rendezvous would be contrived; instead cap the run's timeout and
        // make one rank die: the launcher's process for rank 1 is killed by the test through its pid file.
        const QString project = dir_.filePath("faulty.pacer");
        const QString experiment = writeExperiment(
            dir_, "faulty.json", {{"iterations", 100000}, {"timeout_s", kTimeoutSeconds}});
        QProcess cli;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("PACER_WORKER", PACER_WORKER_PATH);
        cli.setProcessEnvironment(env);
        cli.start(PACER_CLI_PATH, {"capture", "--experiment", experiment, "--out", project});
        QVERIFY(cli.waitForStarted(10000));
        // Find rank 1's worker among the CLI's children once it has made progress, then kill it. It is told apart by
        // its PACER_RANK, not by how many children there are or in which order pgrep lists them.
        QByteArray err;  // accumulated: QTRY evaluates its expression more than once
        QTRY_VERIFY_WITH_TIMEOUT((err += cli.readAllStandardError()).contains("iteration"), 60000);
        const QString rank1 = childWithRank(cli.processId(), 1);
        QVERIFY2(!rank1.isEmpty(), "no child of pacer-cli runs rank 1");
        QProcess::execute("kill", {"-9", rank1});
        QVERIFY2(cli.waitForFinished((kTimeoutSeconds + 20) * 1000), "pacer-cli hung after a worker died");
        QCOMPARE(cli.exitCode(), 1);
        err += cli.readAllStandardError();
        QVERIFY2(err.contains("rank"), err.constData());
        QVERIFY2(err.contains("kept as run"), err.constData());
        auto runs = pacer::profiler::listRuns(project.toStdString());
        QVERIFY(runs.ok());
        QCOMPARE(runs.value().size(), std::size_t(1));
    }

private:
    // The pid of the child of `parent` whose environment says PACER_RANK=<rank>, or empty.
    static QString childWithRank(qint64 parent, int rank) {
        QProcess pgrep;
        pgrep.start("pgrep", {"-P", QString::number(parent)});
        if (!pgrep.waitForFinished(10000)) return {};
        const QByteArray wanted = "PACER_RANK=" + QByteArray::number(rank);
        for (const QString& pid : QString::fromUtf8(pgrep.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts)) {
            QFile environ("/proc/" + pid + "/environ");
            if (environ.open(QIODevice::ReadOnly) && environ.readAll().split('\0').contains(wanted)) return pid;
        }
        return {};
    }

    QTemporaryDir dir_;
};

QTEST_GUILESS_MAIN(FaultsTest)
#include "tst_faults.moc"
