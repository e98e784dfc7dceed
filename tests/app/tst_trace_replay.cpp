// Replay of other people's traces: a real PyTorch DDP job's Kineto trace (rank 0 of a two-GPU ResNet-50-sized
// job over NCCL, from HolisticTraceAnalysis' test data, trimmed to the events replay reads) imports with its
// gradients, buckets and collective sizes, replays under every policy, sweeps, fusion search and what-ifs, and
// its self-replay predicts the measured iteration; traces that cannot be replayed say why in one line, exit 2.
#include "app/common/trace_conversion.h"
#include "process_helpers.h"
#include "profiler/import_chrome.h"
#include "profiler/project.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <sqlite3.h>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <set>

using namespace pacer::testing;
using pacer::profiler::EventKind;

namespace {

const QString kDdpNccl = QStringLiteral("traces/ddp_nccl_rank0.json");

// An Nsight Systems export built from its SQL text in samples/traces (the samples stay reviewable as text), with
// `edit` (SQL) applied, as `name` (default: the sample's).
QString exportFromSql(const QTemporaryDir& dir, const QString& sqlSample, const QString& edit = {},
                      const QString& name = {}) {
    QFile sql(samplePath(sqlSample));
    if (!sql.open(QIODevice::ReadOnly)) return {};
    const QString out = dir.filePath((name.isEmpty() ? QFileInfo(sqlSample).completeBaseName() : name) + ".sqlite");
    sqlite3* db = nullptr;
    const bool ok = sqlite3_open(out.toUtf8().constData(), &db) == SQLITE_OK &&
                    sqlite3_exec(db, sql.readAll().constData(), nullptr, nullptr, nullptr) == SQLITE_OK &&
                    sqlite3_exec(db, edit.toUtf8().constData(), nullptr, nullptr, nullptr) == SQLITE_OK;
    sqlite3_close(db);
    return ok ? out : QString();
}

// One rank's export of the hand-written two-rank job: process `pid`'s rows only (4343 is rank 0, 4242 rank 1).
QString onlyProcess(int pid) {
    const QString other = QString(" & 16777215 != %1;").arg(pid);
    return "DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE (globalPid >> 24)" + other +
           "DELETE FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE (globalTid >> 24)" + other +
           "DELETE FROM NVTX_EVENTS WHERE (globalTid >> 24)" + other;
}

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

    // An Nsight Systems export of a two-rank DDP job (emit_nvtx ranges, NCCL's ranges and payloads; hand-written
    // from the documented schema, see samples/traces/README.md) replays like a Kineto trace, its self-replay within
    // 10% of the measured step.
    void replaysNsysExport_data() {
        QTest::addColumn<QStringList>("extra");
        QTest::newRow("ddp") << QStringList{"--policy", "ddp"};
        QTest::newRow("fifo") << QStringList{"--policy", "fifo"};
        QTest::newRow("pace") << QStringList{"--policy", "pace", "--segment-bytes", "1KiB"};
        QTest::newRow("what-if ranks") << QStringList{"--policy", "ddp", "--ranks", "8"};
    }
    void replaysNsysExport() {
        QFETCH(QStringList, extra);
        const QString project = dir_.filePath("nsys-ddp.pacer");
        if (!QFile::exists(project)) {
            const QString db = exportFromSql(dir_, "traces/nsys_ddp_2rank.sql");
            QVERIFY(!db.isEmpty());
            const ProcessResult r = runCli({"import", "--format", "nsys", db, "--out", project});
            QVERIFY2(r.exitCode == 0, r.err.constData());
        }
        const ProcessResult r = runCli(QStringList{"replay", "--project", project, "--json"} + extra);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject j = r.json();
        const double measured = j["measured_iter_ms"].toDouble(), predicted = j["predicted_iter_ms"].toDouble();
        QCOMPARE(measured, 10.0);  // the export's 10 ms steps
        if (extra.contains("--ranks")) return;
        QVERIFY2(std::abs(predicted - measured) <= 0.10 * measured,
                 qPrintable(QString("predicted %1 ms, measured %2 ms").arg(predicted).arg(measured)));
    }

    // Two ranks' exports (one nsys session each, cut from the hand-written job) import as one run that replays,
    // analyses and diffs like a single export; a rank given twice is refused in one line, exit 2, nothing written.
    void mergesPerRankNsysExports() {
        const QString rank0 = exportFromSql(dir_, "traces/nsys_ddp_2rank.sql", onlyProcess(4343), "rank0");
        const QString rank1 = exportFromSql(dir_, "traces/nsys_ddp_2rank.sql", onlyProcess(4242), "rank1");
        QVERIFY(!rank0.isEmpty() && !rank1.isEmpty());
        const QString refused = dir_.filePath("nsys-twice.pacer");
        const ProcessResult twice = runCli(
            {"import", "--format", "nsys", rank0,
             exportFromSql(dir_, "traces/nsys_ddp_2rank.sql", onlyProcess(4343), "rank0-again"), "--out", refused});
        QCOMPARE(twice.exitCode, 2);
        QCOMPARE(twice.errLines().size(), 1);
        QVERIFY2(twice.errLines().front().contains("a second export of rank 0"), twice.err.constData());
        QVERIFY(!QFile::exists(refused));

        const QString project = dir_.filePath("nsys-merged.pacer");
        const ProcessResult imported = runCli({"import", "--format", "nsys", rank1, rank0, "--out", project});
        QVERIFY2(imported.exitCode == 0, imported.err.constData());
        const ProcessResult replay = runCli({"replay", "--project", project, "--policy", "ddp", "--json"});
        QVERIFY2(replay.exitCode == 0, replay.err.constData());
        const double measured = replay.json()["measured_iter_ms"].toDouble(),
                     predicted = replay.json()["predicted_iter_ms"].toDouble();
        QCOMPARE(measured, 10.0);
        QVERIFY2(std::abs(predicted - measured) <= 0.10 * measured,
                 qPrintable(QString("predicted %1 ms, measured %2 ms").arg(predicted).arg(measured)));
        const ProcessResult analyze = runCli({"analyze", "--project", project, "--json"});
        QVERIFY2(analyze.exitCode == 0, analyze.err.constData());
        QCOMPARE(analyze.json()["ranks"].toArray().size(), 2);
        // Rank 1's first bucket's kernel starts 0.1 ms later than rank 0's (the hand-timed job): the straggler.
        QCOMPARE(analyze.json()["straggler_rank"].toInt(), 1);
        const ProcessResult diff = runCli({"diff", "--project", project, "1", "ddp", "--json"});
        QVERIFY2(diff.exitCode == 0, diff.err.constData());
        QVERIFY(!diff.json()["rows"].toArray().isEmpty());
    }

    // What a prediction rests on is printed: the fitted cost of each message size the trace has (its buckets),
    // ascending, and no agreement round (a GPU run agrees in rounds of its own, which the buckets' times include).
    void printsTheFittedCosts() {
        const ProcessResult r = runCli({"replay", "--project", project_, "--policy", "ddp", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject j = r.json();
        std::set<std::int64_t> expected(kBucketBytes.begin(), kBucketBytes.end());
        std::vector<std::int64_t> sizes;
        for (const QJsonValue& v : j["cost_table"].toArray()) {
            sizes.push_back(static_cast<std::int64_t>(v.toObject()["bytes"].toDouble()));
            QVERIFY(v.toObject()["us"].toDouble() > 0);
        }
        QVERIFY(std::is_sorted(sizes.begin(), sizes.end()));
        QCOMPARE(std::set<std::int64_t>(sizes.begin(), sizes.end()), expected);
        QCOMPARE(j["round_us"].toDouble(), 0.0);
    }

    // What a trace lacks for replay is said in one line, exit 2, naming how to record it.
    void refusesTracesWithoutReplayInput_data() {
        QTest::addColumn<QString>("format");
        QTest::addColumn<QStringList>("files");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("legacy profiler array (real, Debian's torch 1.13, 2-rank Gloo DDP)")
            << "chrome" << QStringList{samplePath("traces/legacy_ddp_gloo_rank0.json")} << "record_shapes=True";
        QTest::newRow("kineto without autograd ops") << "chrome" << QStringList{samplePath("traces/kineto_rank0.json"),
                                                                                samplePath("traces/kineto_rank1.json")}
                                                     << "AccumulateGrad";
        QTest::newRow("horovod timeline") << "chrome" << QStringList{samplePath("traces/horovod_timeline.json")} << "ProfilerStep";
        // Real Nsight Systems exports (pipit's test data), not DDP jobs: built from their SQL text below.
        QTest::newRow("nsys 2024.5 export without emit_nvtx (real, CloverLeaf)")
            << "nsys" << QStringList{"traces/nsys_real_cloverleaf_2024.sql"} << "emit_nvtx(record_shapes=True)";
    }
    void refusesTracesWithoutReplayInput() {
        QFETCH(QString, format);
        QFETCH(QStringList, files);
        QFETCH(QString, mentions);
        if (format == "nsys") {
            files = QStringList{exportFromSql(dir_, files.front())};
            QVERIFY(!files.front().isEmpty());
        }
        const QString project = dir_.filePath(QString("refuse-%1.pacer").arg(++count_));
        const ProcessResult imported = runCli(QStringList{"import", "--format", format} + files + QStringList{"--out", project});
        QVERIFY2(imported.exitCode == 0, imported.err.constData());  // it still imports, to be looked at
        const ProcessResult r = runCli({"replay", "--project", project, "--policy", "ddp"});
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.errLines().size(), 1);
        QVERIFY2(r.errLines().front().startsWith("pacer-cli: error: "), r.err.constData());
        QVERIFY2(r.errLines().front().contains("cannot be replayed"), r.err.constData());
        QVERIFY2(r.errLines().front().contains(mentions), r.err.constData());
    }

    // diff: the trace against its own DDP replay lines up bucket by bucket; a run against itself shows no drift.
    void diffsRunAgainstSelfReplay() {
        const ProcessResult r = runCli({"diff", "--project", project_, "1", "ddp", "--run", "1", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonArray rows = r.json()["rows"].toArray();
        int buckets = 0;
        for (const auto& v : rows) {
            const QJsonObject row = v.toObject();
            if (!row["in_a"].toBool() || !row["in_b"].toBool()) continue;
            QCOMPARE(row["kind"].toString(), QString("allreduce"));
            QCOMPARE(row["count_a"].toDouble(), 1.0);
            QCOMPARE(row["count_b"].toDouble(), 1.0);
            // Replay starts each bucket within 5% of the iteration (~11 ms) of where the trace did.
            QVERIFY2(std::abs(row["start_change_us"].toDouble()) < 11'000, qPrintable(row["key"].toString()));
            ++buckets;
        }
        QCOMPARE(buckets, 5);
        QVERIFY(rows.first().toObject()["in_b"].toBool());  // shared units first
        const ProcessResult same = runCli({"diff", "--project", project_, "1", "1", "--json"});
        QVERIFY2(same.exitCode == 0, same.err.constData());
        for (const auto& v : same.json()["rows"].toArray()) QCOMPARE(v.toObject()["drift_us"].toDouble(), 0.0);
    }

    // Perfetto's protobuf: every slice begun is ended on its track, tracks are declared before use, and every
    // bucket's all-reduce terminates the flows of its gradients (161 per step over the steps replayed).
    void exportsPerfettoWithGradientFlows() {
        const QString out = dir_.filePath("ddp.perfetto-trace");
        const ProcessResult r = runCli({"export", "--format", "perfetto", "--project", project_, "--run", "1", "--out", out});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QFile f(out);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray bytes = f.readAll();
        ProtoReader trace{bytes};
        std::set<std::uint64_t> tracks, flowsOut, flowsIn;
        std::map<std::uint64_t, int> open;
        int packets = 0;
        while (auto packet = trace.next()) {
            QCOMPARE(packet->field, 1);
            ++packets;
            ProtoReader p{packet->bytes};
            while (auto f = p.next()) {
                if (f->field == 60) {
                    ProtoReader d{f->bytes};
                    while (auto g = d.next())
                        if (g->field == 1) tracks.insert(g->value);
                } else if (f->field == 11) {
                    ProtoReader ev{f->bytes};
                    std::uint64_t type = 0, track = 0;
                    while (auto g = ev.next()) {
                        if (g->field == 9) type = g->value;
                        if (g->field == 11) track = g->value;
                        if (g->field == 47) QVERIFY(flowsOut.insert(g->value).second);
                        if (g->field == 48) QVERIFY(flowsIn.insert(g->value).second);
                    }
                    QVERIFY2(tracks.count(track), "a slice on an undeclared track");
                    open[track] += type == 1 ? 1 : -1;
                    QVERIFY(open[track] >= 0);
                }
            }
        }
        QVERIFY(trace.ok());
        QVERIFY(packets > 1000);
        for (const auto& [track, depth] : open) QCOMPARE(depth, 0);
        QCOMPARE(flowsIn, flowsOut);
        QVERIFY(flowsIn.size() >= 161);
    }

private:
    // Reads protobuf fields one at a time: varints, fixed64 and length-delimited ones (what the exporter writes).
    struct ProtoReader {
        QByteArray data;
        int pos = 0;
        bool bad = false;
        struct Field {
            int field = 0;
            std::uint64_t value = 0;
            QByteArray bytes;
        };
        bool ok() const { return !bad && pos == data.size(); }
        std::uint64_t varint() {
            std::uint64_t v = 0;
            for (int shift = 0; pos < data.size() && shift < 64; shift += 7) {
                const auto b = static_cast<unsigned char>(data[pos++]);
                v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
                if (!(b & 0x80)) return v;
            }
            bad = true;
            return 0;
        }
        std::optional<Field> next() {
            if (bad || pos >= data.size()) return std::nullopt;
            const std::uint64_t key = varint();
            Field f;
            f.field = static_cast<int>(key >> 3);
            switch (key & 7) {
                case 0: f.value = varint(); break;
                case 1:
                    if (pos + 8 > data.size()) return bad = true, std::nullopt;
                    for (int i = 0; i < 8; ++i) f.value |= static_cast<std::uint64_t>(static_cast<unsigned char>(data[pos + i])) << (8 * i);
                    pos += 8;
                    break;
                case 2: {
                    const std::uint64_t n = varint();
                    if (n > static_cast<std::uint64_t>(data.size() - pos)) return bad = true, std::nullopt;
                    f.bytes = data.mid(pos, static_cast<int>(n));
                    pos += static_cast<int>(n);
                    break;
                }
                default: return bad = true, std::nullopt;
            }
            if (bad) return std::nullopt;
            return f;
        }
    };

    QTemporaryDir dir_;
    QString project_;
    int count_ = 0;
};

QTEST_GUILESS_MAIN(TraceReplayTest)
#include "tst_trace_replay.moc"
