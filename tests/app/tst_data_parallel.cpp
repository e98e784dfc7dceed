// Data-parallel training is the same training: 2 ranks x batch b reach the parameters of 1 rank x batch 2b after
// 10 steps (to 1e-5 relative), for every policy — whatever the schedule, the sums are the same. The workers are
// started the way a cluster launcher would start them (PACER_RANK, PACER_WORLD_SIZE, PACER_RENDEZVOUS).
#include "process_helpers.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <vector>

using namespace pacer::testing;

namespace {

// Starts `ranks` workers on one run directory and waits for all; returns the dumped parameters of each rank.
std::vector<std::vector<float>> train(const QTemporaryDir& dir, const QString& name, int ranks, int batch,
                                      const QString& policy, const QString& order, int channels = 1) {
    const QString runDir = dir.filePath(name);
    QDir().mkpath(runDir + "/rendezvous");
    nlohmann::json changes = {{"ranks", ranks},
                              {"batch_per_rank", batch},
                              {"iterations", 10},
                              {"warmup_iterations", 3},
                              {"policy", {{"name", policy.toStdString()}, {"segment_bytes", 16384}}},
                              {"order", order.toStdString()},
                              {"channels", channels},
                              {"link", {{"gbps", 0}, {"latency_us", 0}}},
                              {"timeout_s", 30}};
    const QString experiment = writeExperiment(dir, name + ".json", changes);
    QFile::copy(experiment, runDir + "/experiment.json");
    std::vector<std::unique_ptr<QProcess>> workers;
    for (int r = 0; r < ranks; ++r) {
        auto p = std::make_unique<QProcess>();
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("PACER_RANK", QString::number(r));
        env.insert("PACER_WORLD_SIZE", QString::number(ranks));
        env.insert("PACER_RENDEZVOUS", runDir + "/rendezvous");
        p->setProcessEnvironment(env);
        p->start(PACER_WORKER_PATH, {"--run-dir", runDir, "--dump-params", runDir + QString("/params-%1.bin").arg(r)});
        workers.push_back(std::move(p));
    }
    std::vector<std::vector<float>> params;
    for (int r = 0; r < ranks; ++r) {
        QProcess& p = *workers[r];
        if (!p.waitForFinished(120000) || p.exitCode() != 0) {
            qWarning("rank %d failed: %s", r, p.readAllStandardError().constData());
            return {};
        }
        QFile f(runDir + QString("/params-%1.bin").arg(r));
        if (!f.open(QIODevice::ReadOnly)) return {};
        const QByteArray bytes = f.readAll();
        std::vector<float> v(bytes.size() / sizeof(float));
        std::memcpy(v.data(), bytes.constData(), v.size() * sizeof(float));
        params.push_back(std::move(v));
    }
    return params;
}

}  // namespace

class DataParallelTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        serial_ = train(dir_, "serial", 1, 64, "fifo", "dynamic");
        QCOMPARE(serial_.size(), std::size_t(1));
        QVERIFY(!serial_[0].empty());
    }

    void twoRanksMatchOneRankOnTheCombinedBatch_data() {
        QTest::addColumn<QString>("policy");
        QTest::addColumn<QString>("order");
        QTest::addColumn<int>("channels");
        for (const char* policy : {"fifo", "ddp", "horovod", "bytescheduler", "pace"})
            QTest::addRow("%s dynamic", policy) << QString(policy) << QString("dynamic") << 1;
        QTest::addRow("pace plan") << QString("pace") << QString("plan") << 1;
        QTest::addRow("pace plan, 2 channels") << QString("pace") << QString("plan") << 2;
        QTest::addRow("ddp plan, 3 channels") << QString("ddp") << QString("plan") << 3;
    }

    void twoRanksMatchOneRankOnTheCombinedBatch() {
        QFETCH(QString, policy);
        QFETCH(QString, order);
        QFETCH(int, channels);
        const auto parallel =
            train(dir_, QString("%1-%2-%3").arg(policy, order).arg(channels), 2, 32, policy, order, channels);
        QCOMPARE(parallel.size(), std::size_t(2));
        QCOMPARE(parallel[0], parallel[1]);  // bit-identical across ranks
        QCOMPARE(parallel[0].size(), serial_[0].size());
        double worst = 0;
        for (std::size_t i = 0; i < serial_[0].size(); ++i) {
            const double a = parallel[0][i], b = serial_[0][i];
            const double rel = std::abs(a - b) / std::max(1e-3, std::abs(b));
            worst = std::max(worst, rel);
        }
        QVERIFY2(worst <= 1e-5, qPrintable(QString("worst relative difference %1").arg(worst)));
    }

private:
    QTemporaryDir dir_;
    std::vector<std::vector<float>> serial_;
};

QTEST_GUILESS_MAIN(DataParallelTest)
#include "tst_data_parallel.moc"
