// Replay of other people's traces: a real PyTorch DDP job's Kineto trace (rank 0 of a two-GPU ResNet-50-sized
// job over NCCL, from HolisticTraceAnalysis' test data, trimmed to the events replay reads) imports with its
// gradients, buckets and collective sizes, replays under every policy, sweeps, fusion search and what-ifs, and
// its self-replay predicts the measured iteration; traces that cannot be replayed say why in one line, exit 2.
#include "app/common/trace_conversion.h"
#include "process_helpers.h"
#include "profiler/import_chrome.h"
#include "profiler/project.h"

#include <QTemporaryDir>
#include <QTest>

#include <numeric>

using namespace pacer::testing;
using pacer::profiler::EventKind;

namespace {

const QString kDdpNccl = QStringLiteral("traces/ddp_nccl_rank0.json");

// The bucket sizes the trace's record_param_comms ops give ("In msg nelems" x 4 bytes of Float), launch order.
const std::vector<std::int64_t> kBucketBytes = {2049000LL * 4, 7875584LL * 4, 6563840LL * 4, 6637568LL * 4, 2431040LL * 4};

}  // namespace

class TraceReplayTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        project_ = dir_.filePath("ddp.pacer");
        const ProcessResult r = runCli({"import", "--format", "chrome", samplePath(kDdpNccl), "--out", project_});
        QVERIFY2(r.exitCode == 0, r.err.constData());
    }

    // Gradients from AccumulateGrad (161 parameters of a ResNet-50), five DDP buckets whose sizes are the
    // trace's message sizes, collectives timed by the NCCL kernels, one rank standing for a world of two.
    void extractsTensorsBucketsAndSizes() {
        pacer::profiler::RunInfo info;
        auto trace = pacer::profiler::parseChromeTrace({samplePath(kDdpNccl).toStdString()}, &info);
        QVERIFY2(trace.ok(), trace.status().message().c_str());
        const auto& t = trace.value();
        QCOMPARE(info.policy, std::string("ddp"));
        QCOMPARE(info.ranks, 2);  // distributedInfo.world_size
        QCOMPARE(static_cast<int>(t.tensors.size()), 161);
        const auto imported = pacer::app::importedReplay(info.experiment_json);
        QVERIFY(imported.missing.empty());
        QCOMPARE(static_cast<int>(imported.buckets.size()), 5);
        std::int64_t tensorBytes = 0;
        for (const auto& tensor : t.tensors) tensorBytes += tensor.elements * 4;
        QCOMPARE(tensorBytes, std::accumulate(kBucketBytes.begin(), kBucketBytes.end(), std::int64_t{0}));
        // Each bucket holds the tensors whose bytes make its message.
        for (std::size_t b = 0; b < kBucketBytes.size(); ++b) {
            std::int64_t sum = 0;
            for (int id : imported.buckets[b]) sum += t.tensors[static_cast<std::size_t>(id)].elements * 4;
            QCOMPARE(sum, kBucketBytes[b]);
        }
        // The first bucket is the last layer's (DDP fills buckets in gradient-ready order): the highest ids.
        QCOMPARE(imported.buckets.front().back(), 160);
        // Per step, one all-reduce per bucket in launch order, timed by an NCCL kernel of the trace (ms, not µs).
        std::vector<std::int64_t> firstStep;
        int iteration = -1;
        for (const auto& e : t.events) {
            if (e.kind != EventKind::AllReduce || e.bytes == 0 || e.segment != 0) continue;
            if (iteration < 0) iteration = e.iteration;
            if (e.iteration != iteration) continue;
            firstStep.push_back(e.bytes);
            QVERIFY2(e.end - e.start > 1'000'000, "a bucket's all-reduce is timed by its NCCL kernel");
        }
        QCOMPARE(firstStep, kBucketBytes);
    }

    void replaysUnderEveryPolicy_data() {
        QTest::addColumn<QStringList>("extra");
        QTest::newRow("fifo") << QStringList{"--policy", "fifo"};
        QTest::newRow("ddp") << QStringList{"--policy", "ddp"};
        QTest::newRow("horovod") << QStringList{"--policy", "horovod"};
        QTest::newRow("bytescheduler") << QStringList{"--policy", "bytescheduler", "--segment-bytes", "4MiB"};
        QTest::newRow("pace") << QStringList{"--policy", "pace", "--segment-bytes", "4MiB"};
        QTest::newRow("pace fusion search") << QStringList{"--policy", "pace", "--fusion-search"};
        QTest::newRow("what-if link") << QStringList{"--policy", "pace", "--link-gbps", "100"};
        QTest::newRow("what-if ranks") << QStringList{"--policy", "ddp", "--ranks", "8"};
        QTest::newRow("what-if compute") << QStringList{"--policy", "ddp", "--compute-speed", "2"};
    }
    void replaysUnderEveryPolicy() {
        QFETCH(QStringList, extra);
        const ProcessResult r = runCli(QStringList{"replay", "--project", project_, "--json"} + extra);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject j = r.json();
        QVERIFY(j["predicted_iter_ms"].toDouble() > 0);
        QVERIFY(j["predicted_iter_ms"].toDouble() >= j["lower_bound_ms"].toDouble() - 1e-6);
    }

    void sweepsSegmentSize() {
        const ProcessResult r = runCli({"sweep", "--project", project_, "--policy", "pace", "--segment-bytes",
                                        "1MiB:64MiB", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
    }

    // Self-replay: DDP with the trace's own buckets predicts the measured iteration (the mean ProfilerStep).
    void selfReplayPredictsMeasuredIteration() {
        const ProcessResult r = runCli({"replay", "--project", project_, "--policy", "ddp", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject j = r.json();
        const double measured = j["measured_iter_ms"].toDouble(), predicted = j["predicted_iter_ms"].toDouble();
        QVERIFY(measured > 200 && measured < 240);  // the trace's ProfilerStep#5..6: 220-225 ms
        QVERIFY2(std::abs(predicted - measured) <= 0.10 * measured,
                 qPrintable(QString("predicted %1 ms, measured %2 ms").arg(predicted).arg(measured)));
    }

    // What a trace lacks for replay is said in one line, exit 2, naming how to record it.
    void refusesTracesWithoutReplayInput_data() {
        QTest::addColumn<QStringList>("files");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("legacy profiler array (real, Debian's torch 1.13, 2-rank Gloo DDP)")
            << QStringList{samplePath("traces/legacy_ddp_gloo_rank0.json")} << "record_shapes=True";
        QTest::newRow("kineto without autograd ops") << QStringList{samplePath("traces/kineto_rank0.json"),
                                                                    samplePath("traces/kineto_rank1.json")}
                                                     << "AccumulateGrad";
        QTest::newRow("horovod timeline") << QStringList{samplePath("traces/horovod_timeline.json")} << "ProfilerStep";
    }
    void refusesTracesWithoutReplayInput() {
        QFETCH(QStringList, files);
        QFETCH(QString, mentions);
        const QString project = dir_.filePath(QString("refuse-%1.pacer").arg(++count_));
        const ProcessResult imported = runCli(QStringList{"import", "--format", "chrome"} + files + QStringList{"--out", project});
        QVERIFY2(imported.exitCode == 0, imported.err.constData());  // it still imports, to be looked at
        const ProcessResult r = runCli({"replay", "--project", project, "--policy", "ddp"});
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.errLines().size(), 1);
        QVERIFY2(r.errLines().front().startsWith("pacer-cli: error: "), r.err.constData());
        QVERIFY2(r.errLines().front().contains("cannot be replayed"), r.err.constData());
        QVERIFY2(r.errLines().front().contains(mentions), r.err.constData());
    }

private:
    QTemporaryDir dir_;
    QString project_;
    int count_ = 0;
};

QTEST_GUILESS_MAIN(TraceReplayTest)
#include "tst_trace_replay.moc"
