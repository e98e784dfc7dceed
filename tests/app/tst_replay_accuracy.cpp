// Replay is only worth dragging if it is right: a replay of a captured run under the policy it ran reproduces its
// measured iteration time within 10%, and a replay built from a fifo run predicts a real pace run (and the
// reverse) within 10%. The lower bound is never above the measured time either.
//
// The experiment is samples/experiments/mlp-wide-2rank.json, chosen so that the 10% claim means something: a
// 1024-wide MLP at batch 128 computes ~25-35 ms per iteration and reduces ~9 MiB of gradients over an emulated
// 2.5 Gb/s link (~30 ms on the wire), so compute and communication both decide the iteration time and the
// policies differ in how they overlap. (The small sample MLP reduces 1 MiB at 10 Gb/s in ~1 ms and computes
// ~0.6 ms: there, each collective's fixed software cost on a loaded 2-core machine, 0.2-3 ms, is the whole
// iteration and no policy choice matters.) Segments of 2 MiB give pace preemption points inside the 4 MiB
// weights without multiplying the per-collective cost.
#include "process_helpers.h"

#include <QTemporaryDir>
#include <QTest>

#include <array>
#include <cmath>

using namespace pacer::testing;

namespace {

const QString kSegment = QStringLiteral("2MiB");
constexpr int kAttempts = 3;
constexpr double kStableDrift = 0.03;

struct Captured {
    QString project;
    double measuredMs = 0;
};

}  // namespace

class ReplayAccuracyTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        // The cross-policy claim compares runs of two policies, so they must see the same machine: on a shared
        // 2-core machine another job starting or ending between the captures moves every time by 20% or more, and
        // even a quiet one moves a run's mean by ~2%. So each attempt alternates the policies twice (fifo, pace,
        // fifo, pace): a policy's time is the mean of its two runs and a prediction the mean of the predictions
        // from its two runs. The attempt is repeated while a policy's two runs disagree by more than kStableDrift
        // (a changed machine, not a wrong prediction); the steadiest attempt is tested.
        double steadiest = 1e9;
        for (int attempt = 1; attempt <= kAttempts && steadiest > kStableDrift; ++attempt) {
            std::array<Captured, 2> fifo, pace;
            for (int k = 0; k < 2; ++k) {
                fifo[k] = capture(QString("fifo-%1").arg(k), attempt, "fifo");
                pace[k] = capture(QString("pace-%1").arg(k), attempt, "pace");
                QVERIFY(fifo[k].measuredMs > 0);
                QVERIFY(pace[k].measuredMs > 0);
            }
            const double drift = std::max(std::abs(fifo[1].measuredMs - fifo[0].measuredMs) / fifo[0].measuredMs,
                                          std::abs(pace[1].measuredMs - pace[0].measuredMs) / pace[0].measuredMs);
            qInfo("attempt %d: fifo %.3f / %.3f ms, pace %.3f / %.3f ms (drift %.1f%%)", attempt, fifo[0].measuredMs,
                  fifo[1].measuredMs, pace[0].measuredMs, pace[1].measuredMs, 100 * drift);
            if (drift >= steadiest) continue;
            steadiest = drift;
            fifo_ = fifo;
            pace_ = pace;
        }
    }

    void replayReproducesTheRunItCameFrom_data() {
        QTest::addColumn<QString>("which");
        QTest::newRow("fifo") << "fifo";
        QTest::newRow("pace") << "pace";
    }

    void replayReproducesTheRunItCameFrom() {
        QFETCH(QString, which);
        for (const Captured& c : which == "fifo" ? fifo_ : pace_) {
            const QJsonObject r = replay(c.project, which);
            const double predicted = r["predicted_iter_ms"].toDouble();
            qInfo("%s: measured %.3f ms, replayed %.3f ms (%+.1f%%)", qPrintable(which), c.measuredMs, predicted,
                  100 * (predicted - c.measuredMs) / c.measuredMs);
            QVERIFY(r["lower_bound_ms"].toDouble() <= predicted + 1e-9);
            QVERIFY2(std::abs(predicted - c.measuredMs) <= 0.10 * c.measuredMs,
                     qPrintable(QString("replay %1 vs measured %2").arg(predicted).arg(c.measuredMs)));
        }
    }

    void replayPredictsTheOtherPolicy_data() {
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("to");
        QTest::newRow("fifo run predicts pace") << "fifo" << "pace";
        QTest::newRow("pace run predicts fifo") << "pace" << "fifo";
    }

    void replayPredictsTheOtherPolicy() {
        QFETCH(QString, from);
        QFETCH(QString, to);
        const std::array<Captured, 2>& source = from == "fifo" ? fifo_ : pace_;
        const std::array<Captured, 2>& target = to == "fifo" ? fifo_ : pace_;
        const double predicted = (replay(source[0].project, to)["predicted_iter_ms"].toDouble() +
                                  replay(source[1].project, to)["predicted_iter_ms"].toDouble()) / 2;
        const double measured = (target[0].measuredMs + target[1].measuredMs) / 2;
        qInfo("%s -> %s: predicted %.3f ms, measured %.3f ms (%+.1f%%)", qPrintable(from), qPrintable(to), predicted,
              measured, 100 * (predicted - measured) / measured);
        QVERIFY2(std::abs(predicted - measured) <= 0.10 * measured,
                 qPrintable(QString("predicted %1 vs measured %2").arg(predicted).arg(measured)));
    }

private:
    Captured capture(const QString& label, int attempt, QString policy = {}) {
        if (policy.isEmpty()) policy = label;
        Captured c;
        c.project = dir_.filePath(QString("%1-%2.pacer").arg(label).arg(attempt));
        const ProcessResult r = runCli({"capture", "--experiment", samplePath("experiments/mlp-wide-2rank.json"), "--out",
                                        c.project, "--policy", policy, "--segment-bytes", kSegment, "--iterations", "60",
                                        "--json"});
        if (r.exitCode != 0) qWarning("%s", r.err.constData());
        c.measuredMs = r.json()["iter_ms"].toDouble();
        return c;
    }

    QJsonObject replay(const QString& project, const QString& policy) {
        const ProcessResult r = runCli({"replay", "--project", project, "--policy", policy, "--segment-bytes", kSegment,
                                        "--json"});
        if (r.exitCode != 0) qWarning("%s", r.err.constData());
        return r.json();
    }

    QTemporaryDir dir_;
    std::array<Captured, 2> fifo_, pace_;  // each policy's two runs of the steadiest attempt
};

QTEST_GUILESS_MAIN(ReplayAccuracyTest)
#include "tst_replay_accuracy.moc"
