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

#include <cmath>

using namespace pacer::testing;

namespace {

const QString kSegment = QStringLiteral("2MiB");

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
        fifo_ = capture("fifo");
        pace_ = capture("pace");
        QVERIFY(fifo_.measuredMs > 0);
        QVERIFY(pace_.measuredMs > 0);
    }

    void replayReproducesTheRunItCameFrom_data() {
        QTest::addColumn<QString>("which");
        QTest::newRow("fifo") << "fifo";
        QTest::newRow("pace") << "pace";
    }

    void replayReproducesTheRunItCameFrom() {
        QFETCH(QString, which);
        const Captured& c = which == "fifo" ? fifo_ : pace_;
        const QJsonObject r = replay(c.project, which);
        const double predicted = r["predicted_iter_ms"].toDouble();
        qInfo("%s: measured %.3f ms, replayed %.3f ms (%+.1f%%)", qPrintable(which), c.measuredMs, predicted,
              100 * (predicted - c.measuredMs) / c.measuredMs);
        QVERIFY(r["lower_bound_ms"].toDouble() <= predicted + 1e-9);
        QVERIFY2(std::abs(predicted - c.measuredMs) <= 0.10 * c.measuredMs,
                 qPrintable(QString("replay %1 vs measured %2").arg(predicted).arg(c.measuredMs)));
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
        const Captured& source = from == "fifo" ? fifo_ : pace_;
        const Captured& target = to == "fifo" ? fifo_ : pace_;
        const double predicted = replay(source.project, to)["predicted_iter_ms"].toDouble();
        qInfo("%s -> %s: predicted %.3f ms, measured %.3f ms (%+.1f%%)", qPrintable(from), qPrintable(to), predicted,
              target.measuredMs, 100 * (predicted - target.measuredMs) / target.measuredMs);
        QVERIFY2(std::abs(predicted - target.measuredMs) <= 0.10 * target.measuredMs,
                 qPrintable(QString("predicted %1 vs measured %2").arg(predicted).arg(target.measuredMs)));
    }

private:
    Captured capture(const QString& policy) {
        Captured c;
        c.project = dir_.filePath(policy + ".pacer");
        const ProcessResult r = runCli({"capture", "--experiment", samplePath("experiments/mlp-wide-2rank.json"), "--out",
                                        c.project, "--policy", policy, "--segment-bytes", kSegment, "--iterations", "30",
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
    Captured fifo_, pace_;
};

QTEST_GUILESS_MAIN(ReplayAccuracyTest)
#include "tst_replay_accuracy.moc"
