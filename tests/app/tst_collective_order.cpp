// Every rank issues the same collectives in the same order, or the job hangs or sums the wrong data. With real
// worker processes, segments and preemption (pace), both order modes: every rank's trace must show the identical
// sequence of (tensor, segment) in every iteration.
#include "process_helpers.h"
#include "profiler/project.h"

#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <vector>

using namespace pacer::testing;
using pacer::profiler::EventKind;

class CollectiveOrderTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void sameOrderOnEveryRank_data() {
        QTest::addColumn<QString>("policy");
        QTest::addColumn<QString>("order");
        QTest::addColumn<int>("ranks");
        QTest::newRow("pace dynamic 3 ranks") << "pace" << "dynamic" << 3;
        QTest::newRow("pace plan 2 ranks") << "pace" << "plan" << 2;
        QTest::newRow("bytescheduler dynamic 2 ranks") << "bytescheduler" << "dynamic" << 2;
        QTest::newRow("horovod dynamic 2 ranks") << "horovod" << "dynamic" << 2;
    }

    void sameOrderOnEveryRank() {
        QFETCH(QString, policy);
        QFETCH(QString, order);
        QFETCH(int, ranks);
        const QString project = dir_.filePath(policy + "-" + order + ".pacer");
        const ProcessResult r = runCli({"capture", "--experiment", samplePath("experiments/mlp-2rank.json"), "--out",
                                        project, "--ranks", QString::number(ranks), "--policy", policy, "--order", order,
                                        "--segment-bytes", "32KiB", "--iterations", "12", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(r.json()["params_match"].toBool());
        auto trace = pacer::profiler::readRun(project.toStdString(), 0);
        QVERIFY(trace.ok());
        std::map<int, int> rankOfTrack;
        for (const auto& track : trace.value().tracks) rankOfTrack[track.id] = track.rank;
        std::vector<std::vector<std::tuple<int, int, int>>> sequence(ranks);  // (iteration, tensor, segment)
        for (const auto& e : trace.value().events) {  // sorted by (track, start)
            if (e.kind == EventKind::AllReduce) sequence[rankOfTrack.at(e.track)].push_back({e.iteration, e.tensor, e.segment});
        }
        QVERIFY(!sequence[0].empty());
        for (int rank = 1; rank < ranks; ++rank) QVERIFY2(sequence[rank] == sequence[0], qPrintable(QString("rank %1 differs from rank 0").arg(rank)));
    }

private:
    QTemporaryDir dir_;
};

QTEST_GUILESS_MAIN(CollectiveOrderTest)
#include "tst_collective_order.moc"
