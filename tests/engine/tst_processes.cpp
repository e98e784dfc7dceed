// Exact all-reduce results with ranks as real processes (each its own Gloo transport and FileStore rendezvous
// over TCP loopback), for every policy, both order modes and 1 to 4 ranks: the thread tests' check, across
// process boundaries as a cluster launcher would run it; and every collective algorithm on rank processes, over Gloo
// (5 to 8 ranks) and over shared memory (1 to 8; and 2, 5, 8 with every piece through the segment's slots).
#include "engine/policy_config.h"

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <string>
#include <vector>

class TestProcesses : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void exactSumsAcrossProcesses_data() {
        QTest::addColumn<QString>("policy");
        QTest::addColumn<int>("ranks");
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QString>("algorithm");
        for (const std::string& p : pacer::engine::policyNames())
            for (int ranks : {1, 2, 4})
                for (const char* mode : {"plan", "dynamic"})
                    QTest::addRow("%s/%d ranks/%s", p.c_str(), ranks, mode) << QString::fromStdString(p) << ranks << QString(mode) << QString("native");
        QTest::newRow("pace/3 ranks/dynamic") << "pace" << 3 << "dynamic" << "native";
        QTest::newRow("pace/3 ranks/plan") << "pace" << 3 << "plan" << "native";
        // The collective algorithms of engine/collectives across processes (each on the most nearly cubic torus).
        for (const char* a : {"ring", "recursive-doubling", "halving-doubling", "torus", "auto"})
            for (int ranks : {3, 4})
                QTest::addRow("pace/%d ranks/plan/%s", ranks, a) << "pace" << ranks << "plan" << QString(a);
    }

    void exactSumsAcrossProcesses() {
        QFETCH(QString, policy);
        QFETCH(int, ranks);
        QFETCH(QString, mode);
        QFETCH(QString, algorithm);
        const QString rendezvous =
            dir_.filePath(QString("%1-%2-%3-%4").arg(policy).arg(ranks).arg(mode).arg(algorithm));
        QVERIFY(QDir().mkpath(rendezvous));
        runRanks(PACER_RANK_PROCESS, ranks, [&](int r) {
            return QStringList{QString::number(r), QString::number(ranks), rendezvous, policy, mode, "16384", algorithm};
        });
    }

    // Every algorithm on rank processes (the doubling algorithms fold the ranks beyond a power of two, the ring and
    // the torus cut blocks unevenly), at a size below one block per rank and one cut into several pipelined pieces
    // per message (over shared memory more pieces than a sender's outbox holds), neither divisible by the rank
    // count: every sum exact on every rank. 1 to 4 Gloo ranks run through the training loop above.
    void algorithmsOnRankProcesses_data() {
        QTest::addColumn<QString>("transport");
        QTest::addColumn<int>("ranks");
        QTest::addColumn<QString>("algorithm");
        QTest::addColumn<QString>("topology");
        for (const char* transport : {"gloo", "shm"})
            for (int ranks = std::string(transport) == "gloo" ? 5 : 1; ranks <= 8; ++ranks)
                for (const char* a : {"ring", "recursive-doubling", "halving-doubling", "torus"})
                    QTest::addRow("%s/%d ranks/%s", transport, ranks, a) << QString(transport) << ranks << QString(a) << QString();
        // Shared memory where ranks cannot read each other's memory: every piece through the outbox slots.
        for (int ranks : {2, 5, 8})
            for (const char* a : {"ring", "recursive-doubling", "halving-doubling", "torus"})
                QTest::addRow("shm-copy/%d ranks/%s", ranks, a) << QString("shm-copy") << ranks << QString(a) << QString();
        for (const char* transport : {"gloo", "shm"}) {
            QTest::addRow("%s/6 ranks/torus 3x2", transport) << QString(transport) << 6 << "torus" << "torus:3x2";
            QTest::addRow("%s/8 ranks/torus 2x2x2", transport) << QString(transport) << 8 << "torus" << "torus:2x2x2";
            QTest::addRow("%s/7 ranks/auto", transport) << QString(transport) << 7 << "auto" << "";
        }
    }
    void algorithmsOnRankProcesses() {
        QFETCH(QString, transport);
        QFETCH(int, ranks);
        QFETCH(QString, algorithm);
        QFETCH(QString, topology);
        const QString rendezvous =
            dir_.filePath(QString("coll-%1-%2-%3-%4").arg(transport).arg(ranks).arg(algorithm, topology).replace(':', '_'));
        QVERIFY(QDir().mkpath(rendezvous));
        runRanks(PACER_COLLECTIVE_PROCESS, ranks, [&](int r) {
            QStringList args{QString::number(r), QString::number(ranks), rendezvous, transport,
                             transport != "gloo" ? "3,200003,1000003" : "3,200003", "2", "1", "20000", algorithm};
            if (!topology.isEmpty()) args << topology;
            return args;
        });
    }

private:
    // Starts one process of `program` per rank and expects every one to exit 0 within a minute.
    template <typename Args>
    void runRanks(const char* program, int ranks, Args&& argsOf) {
        std::vector<std::unique_ptr<QProcess>> procs;
        for (int r = 0; r < ranks; ++r) {
            auto p = std::make_unique<QProcess>();
            p->start(program, argsOf(r));
            QVERIFY(p->waitForStarted(10000));
            procs.push_back(std::move(p));
        }
        for (int r = 0; r < ranks; ++r) QVERIFY2(procs[r]->waitForFinished(60000), "a rank process hung");
        // Every rank's words when one failed: the first to fail names its cause, the others only that it left.
        QString failures;
        for (int r = 0; r < ranks; ++r)
            if (procs[r]->exitStatus() != QProcess::NormalExit || procs[r]->exitCode() != 0)
                failures += QString("rank %1 (exit %2): %3\n")
                                .arg(r)
                                .arg(procs[r]->exitStatus() == QProcess::NormalExit ? procs[r]->exitCode() : -1)
                                .arg(QString::fromUtf8(procs[r]->readAllStandardError()).trimmed());
        QVERIFY2(failures.isEmpty(), qPrintable(failures));
    }

    QTemporaryDir dir_;
};

QTEST_GUILESS_MAIN(TestProcesses)
#include "tst_processes.moc"
