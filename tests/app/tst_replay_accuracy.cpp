// Replay is only worth dragging if it is right, and a check of that is only worth running if it can fail. A replay
// of a captured run under the policy it ran reproduces its measured iteration time within 10% (median over the
// runs); a replay built from a run of one policy predicts a real run of another where the two policies differ by
// 20% or more, and beats by a clear margin (half the error or less) the policy-blind prediction "the other policy
// takes as long as this run did". (Where two policies take about as long, that blind guess passes any tolerance,
// and the test would say nothing about replay; the test checks on the runs themselves that they differ.) The lower
// bound is never above the predicted time, and the prediction lies inside its band.
//
// The case: the small sample at 10 Gb/s, fifo against pace in 16 KiB segments (about 50 collectives an iteration
// instead of 8), both in explicit dynamic order (a pace left free chooses its own order and channels). Each
// collective's fixed cost on a CPU rank makes pace about twice as slow, which replay can only predict from what it
// fitted of that fixed cost. It runs once per CPU transport, 100 iterations a run: over shared memory a fifo
// iteration takes 2.5-3.5 ms, and 25 measured ones (0.07 s) left the prediction at the mercy of one scheduling
// hiccup (one series of captures here, alternating as below: shm fifo -> pace predicted 8-18% too fast from
// 30-iteration runs, 2-7% from 100-iteration ones).
//
// Short runs on a shared 2-core machine move by 20-30% from one to the next even when nothing else
// runs (measured on a quiet machine: fifo 6.0-7.9 ms in six runs). So the policies are captured alternately,
// source first and last (S T S T S T S); each target run is predicted by the mean of the predictions from the
// source runs on either side of it, the policy-blind guess is their mean measured time, and the errors are
// medians over the three target runs. Cross-policy tolerance is 15%: captures of a few seconds cannot judge tighter;
// bench_prediction judges the 3% goal on longer runs. A bracket whose two source runs differ by more than
// 25% caught the machine drifting (a clean-clone CI run had fifo at 2.6, 5.7 and 2.5 ms in a row, and predicted pace
// from those brackets 17% too slow): it is not judged, and where fewer than two brackets are calm the captures are
// taken again, three times at most; if no bracket is ever calm, the test fails saying so.
//
// Over Gloo the cross-policy prediction is a known, open gap (issue #15): in a fifo run each small collective costs
// 0.4-1 ms against 0.2-0.25 ms for pace's back-to-back segments over the same transport, so the cost table fitted
// from fifo predicts pace 13-140% too slow. Part of that was the agreement round inside each fifo unit's span;
// with rounds traced apart (2026-12-03) fifo's small collectives take 180-290 us in the median, as pace's segments
// do, but their means are 2-3x their medians (a comm thread waiting for a core while both compute threads run), and
// those tails differ between schedules: from four fifo runs pace was predicted -21..+42%. That row prints its
// figures and skips with the reason; it is not judged until replay models why a collective's cost depends on the
// schedule around it.
#include "process_helpers.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

using namespace pacer::testing;

namespace {

const QString kExperiment = QStringLiteral("experiments/mlp-2rank.json");
const QString kLinkGbps = QStringLiteral("10");
const QString kSource = QStringLiteral("fifo");
const QString kTarget = QStringLiteral("pace");
const QString kTargetSegment = QStringLiteral("16KiB");
const QString kIterations = QStringLiteral("100");  // 95 measured after the experiment's 5 warm-ups
constexpr int kBrackets = 3;
constexpr double kDistinct = 0.20;  // the policies must differ by at least this much for the cross check to mean anything
constexpr double kSelfTolerance = 0.10;
constexpr double kCrossTolerance = 0.15;
constexpr double kCalm = 0.25;  // a bracket's two source runs within this of each other: the machine held still
constexpr int kAttempts = 3;

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t mid = v.size() / 2;
    return v.size() % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

double relativeError(double predicted, double measured) { return std::abs(predicted - measured) / measured; }

struct Captured {
    QString project;
    QString policy;
    double measuredMs = 0;
};

// One transport's captures: kBrackets + 1 source runs around kBrackets target runs (target i between sources i
// and i + 1), or why a capture failed.
struct Attempt {
    std::array<Captured, kBrackets + 1> source;
    std::array<Captured, kBrackets> target;
    QString failure;

    bool calm(int bracket) const {
        const double a = source[bracket].measuredMs, b = source[bracket + 1].measuredMs;
        return std::abs(a - b) <= kCalm * std::min(a, b);
    }
    int calmBrackets() const {
        int n = 0;
        for (int i = 0; i < kBrackets; ++i) n += calm(i) ? 1 : 0;
        return n;
    }
};

}  // namespace

class ReplayAccuracyTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void replayReproducesTheRunItCameFrom_data() { transports(); }

    void replayReproducesTheRunItCameFrom() {
        QFETCH(QString, transport);
        const Attempt& a = attempt(transport);
        if (!a.failure.isEmpty()) QFAIL(qPrintable(a.failure));
        std::vector<const Captured*> sources, targets;
        for (const Captured& c : a.source) sources.push_back(&c);
        for (const Captured& c : a.target) targets.push_back(&c);
        for (const auto* runs : {&sources, &targets}) {
            std::vector<double> errors;
            for (const Captured* c : *runs) {
                const QJsonObject r = replay(c->project, c->policy);
                const double predicted = r["predicted_iter_ms"].toDouble();
                qInfo("%s over %s: measured %.3f ms, replayed %.3f ms (%+.1f%%), band %.3f..%.3f ms",
                      qPrintable(c->policy), qPrintable(transport), c->measuredMs, predicted,
                      100 * (predicted - c->measuredMs) / c->measuredMs, r["predicted_low_ms"].toDouble(),
                      r["predicted_high_ms"].toDouble());
                QVERIFY(r["lower_bound_ms"].toDouble() <= predicted + 1e-9);
                QVERIFY(r["predicted_low_ms"].toDouble() <= predicted + 1e-9);
                QVERIFY(predicted <= r["predicted_high_ms"].toDouble() + 1e-9);
                errors.push_back(relativeError(predicted, c->measuredMs));
            }
            QVERIFY2(median(errors) <= kSelfTolerance,
                     qPrintable(QString("%1 over %2: median self-replay error %3% > %4%")
                                    .arg(runs->front()->policy, transport)
                                    .arg(100 * median(errors), 0, 'f', 1)
                                    .arg(100 * kSelfTolerance)));
        }
    }

    void replayPredictsTheOtherPolicy_data() { transports(); }

    void replayPredictsTheOtherPolicy() {
        QFETCH(QString, transport);
        const Attempt& a = attempt(transport);
        if (!a.failure.isEmpty()) QFAIL(qPrintable(a.failure));
        std::vector<double> replayErrors, blindErrors;
        for (int i = 0; i < kBrackets; ++i) {
            const Captured &before = a.source[i], &after = a.source[i + 1];
            if (!a.calm(i)) {
                qInfo("bracket %d over %s not judged: its %s runs took %.3f and %.3f ms (more than %.0f%% apart)", i + 1,
                      qPrintable(transport), qPrintable(kSource), before.measuredMs, after.measuredMs, 100 * kCalm);
                continue;
            }
            const double measured = a.target[i].measuredMs;
            const double blind = (before.measuredMs + after.measuredMs) / 2;  // "takes as long as the other did"
            const double predicted = (replay(before.project, kTarget)["predicted_iter_ms"].toDouble() +
                                      replay(after.project, kTarget)["predicted_iter_ms"].toDouble()) / 2;
            replayErrors.push_back(relativeError(predicted, measured));
            blindErrors.push_back(relativeError(blind, measured));
            qInfo("bracket %d over %s, %s -> %s: measured %.3f ms; replay %.3f ms (%+.1f%%); policy-blind %.3f ms "
                  "(%+.1f%%)", i + 1, qPrintable(transport), qPrintable(kSource), qPrintable(kTarget), measured,
                  predicted, 100 * (predicted - measured) / measured, blind, 100 * (blind - measured) / measured);
        }
        if (replayErrors.empty())
            QFAIL(qPrintable(QString("no bracket over %1 was calm in %2 attempts: the %3 runs around every %4 run "
                                     "differed by more than %5%, so the machine, not replay, was measured")
                                 .arg(transport)
                                 .arg(kAttempts)
                                 .arg(kSource, kTarget)
                                 .arg(100 * kCalm)));
        const double replayError = median(replayErrors), blindError = median(blindErrors);
        qInfo("over %s: median error of replay %.1f%%, of the policy-blind prediction %.1f%%", qPrintable(transport),
              100 * replayError, 100 * blindError);
        QVERIFY2(blindError >= kDistinct,
                 qPrintable(QString("%1 and %2 differ by only %3% over %4 (< %5%): this case no longer tells replay "
                                    "from a policy-blind guess")
                                .arg(kSource, kTarget)
                                .arg(100 * blindError, 0, 'f', 1)
                                .arg(transport)
                                .arg(100 * kDistinct)));
        if (transport == QLatin1String("gloo"))
            QSKIP(qPrintable(QString("known gap (issue #15), not judged: over Gloo replay from fifo predicts pace %1% "
                                     "off (policy-blind %2%); a collective's cost there depends on the schedule "
                                     "around it, which the fitted cost table does not model")
                                 .arg(100 * replayError, 0, 'f', 1)
                                 .arg(100 * blindError, 0, 'f', 1)));
        QVERIFY2(replayError <= kCrossTolerance && replayError <= 0.5 * blindError,
                 qPrintable(QString("replay error %1% (at most %2% and half the policy-blind %3%)")
                                .arg(100 * replayError, 0, 'f', 1)
                                .arg(100 * kCrossTolerance)
                                .arg(100 * blindError, 0, 'f', 1)));
    }

private:
    static void transports() {
        QTest::addColumn<QString>("transport");
        QTest::newRow("gloo") << QStringLiteral("gloo");
        QTest::newRow("shm") << QStringLiteral("shm");
    }

    static QStringList segmentOf(const QString& policy) {
        return policy == kTarget ? QStringList{"--segment-bytes", kTargetSegment} : QStringList{};
    }

    // The transport's captures, taken once for both checks: again while fewer than two brackets are calm, keeping
    // the attempt with the most calm brackets.
    const Attempt& attempt(const QString& transport) {
        auto found = attempts_.find(transport);
        if (found != attempts_.end()) return found->second;
        Attempt best;
        for (int n = 0; n < kAttempts; ++n) {
            Attempt a;
            for (int i = 0; i <= kBrackets && a.failure.isEmpty(); ++i) {
                a.source[i] = capture(transport, kSource, n, i);
                if (i < kBrackets) a.target[i] = capture(transport, kTarget, n, i);
                if (a.source[i].measuredMs <= 0 || (i < kBrackets && a.target[i].measuredMs <= 0))
                    a.failure = "a capture over " + transport + " failed (see the warning above)";
            }
            if (!a.failure.isEmpty()) return attempts_.emplace(transport, std::move(a)).first->second;
            if (n == 0 || a.calmBrackets() > best.calmBrackets()) best = std::move(a);
            if (best.calmBrackets() >= 2) break;
            qInfo("over %s: %d of %d brackets calm, capturing again", qPrintable(transport), best.calmBrackets(),
                  kBrackets);
        }
        return attempts_.emplace(transport, std::move(best)).first->second;
    }

    Captured capture(const QString& transport, const QString& policy, int attempt, int pair) {
        Captured c;
        c.policy = policy;
        c.project = dir_.filePath(QString("%1-%2-%3-%4.pacer").arg(transport, policy).arg(attempt).arg(pair));
        const ProcessResult r = runCli(QStringList{"capture", "--experiment", samplePath(kExperiment), "--out",
                                                   c.project, "--policy", policy, "--link-gbps", kLinkGbps,
                                                   "--iterations", kIterations, "--transport", transport, "--order",
                                                   "dynamic", "--json"} +
                                       segmentOf(policy));
        if (r.exitCode != 0) qWarning("%s", r.err.constData());
        c.measuredMs = r.json()["iter_ms"].toDouble();
        return c;
    }

    QJsonObject replay(const QString& project, const QString& policy) {
        const ProcessResult r =
            runCli(QStringList{"replay", "--project", project, "--policy", policy, "--json"} + segmentOf(policy));
        if (r.exitCode != 0) qWarning("%s", r.err.constData());
        return r.json();
    }

    QTemporaryDir dir_;
    std::map<QString, Attempt> attempts_;
};

QTEST_GUILESS_MAIN(ReplayAccuracyTest)
#include "tst_replay_accuracy.moc"
