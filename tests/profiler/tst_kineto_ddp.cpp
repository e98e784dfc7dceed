// The replay input of a DDP job from Kineto traces, on a hand-timed two-rank trace whose every figure is worked out
// by hand below: recorded with shapes, the newer NCCL kernel naming (ncclDevKernel_AllReduce_*), GPU ready times
// later than the host's. (The real trace in samples/traces covers the older naming, no shapes and one rank:
// tests/app/tst_trace_replay.cpp.)
#include "profiler/import_chrome.h"
#include "profiler/trace_model.h"
#include "test_util.h"

#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

using namespace pacer::profiler;
using nlohmann::json;

namespace {

// Per rank, two 10 ms steps. In each (S = the step's start, µs): backward starts at S+4000; gradients accumulate
// (ready order) with shapes [10,10], [10], [1000], [50,2] at S+4500, +5000, +6000, +7000 (100 µs each); DDP
// launches bucket 0 (the first two: 110 floats) at S+5200 and bucket 1 (1100 floats) at S+7200; their NCCL kernels
// run S+5300+100·rank .. S+5800 and S+7300 .. S+8000; a compute kernel launched at S+4450 runs until S+4900, so
// the first gradient is ready on the GPU at S+4900, later than its op's end (S+4600); the optimizer steps at
// S+8500 .. S+9500.
json rankTrace(int rank) {
    json events = json::array();
    auto x = [&](const std::string& cat, const std::string& name, double ts, double dur, json args = json::object(),
                 int tid = 1) {
        events.push_back({{"ph", "X"}, {"cat", cat}, {"name", name}, {"pid", 1}, {"tid", tid}, {"ts", ts}, {"dur", dur},
                          {"args", args}});
    };
    const std::vector<std::vector<int>> dims = {{10, 10}, {10}, {1000}, {50, 2}};
    for (int step = 1; step <= 2; ++step) {
        const double s = step * 10000.0;
        const int corr = 100 * step;
        x("user_annotation", "ProfilerStep#" + std::to_string(step), s, 10000);
        x("cpu_op", "autograd::engine::evaluate_function: MmBackward0", s + 4000, 300);
        x("cuda_runtime", "cudaLaunchKernel", s + 4450, 10, {{"correlation", corr}});
        x("kernel", "ampere_sgemm_64x64_nn", s + 4460, 440, {{"correlation", corr}, {"stream", 7}}, 7);
        for (int g = 0; g < 4; ++g)
            x("cpu_op", "torch::autograd::AccumulateGrad", s + (g == 0 ? 4500 : 4000 + 1000 * g), 100,
              {{"Input Dims", json::array({dims[g]})}});
        x("cpu_op", "record_param_comms", s + 5200, 50,
          {{"Collective name", "allreduce"}, {"In msg nelems", 110}, {"dtype", "Float"}, {"Group size", 2}});
        x("cpu_op", "record_param_comms", s + 7200, 50,
          {{"Collective name", "allreduce"}, {"In msg nelems", 1100}, {"dtype", "Float"}, {"Group size", 2}});
        x("kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", s + 5300 + 100 * rank,
          500 - 100 * rank, {{"correlation", corr + 1}, {"stream", 20}}, 20);
        x("kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", s + 7300, 700,
          {{"correlation", corr + 2}, {"stream", 20}}, 20);
        x("cpu_op", "Optimizer.step#SGD.step", s + 8500, 1000);
    }
    return {{"schemaVersion", 1},
            {"distributedInfo", {{"backend", "nccl"}, {"rank", rank}, {"world_size", 2}}},
            {"traceEvents", events}};
}

}  // namespace

class KinetoDdpTest : public QObject {
    Q_OBJECT
private slots:
    void extractsTheHandTimedJob() {
        QTemporaryDir dir;
        std::vector<std::string> files;
        for (int rank : {1, 0}) {  // any file order: ranks come from distributedInfo
            files.push_back(dir.filePath(QString("rank%1.json").arg(rank)).toStdString());
            std::ofstream(files.back()) << rankTrace(rank).dump();
        }
        RunInfo info;
        auto parsed = parseChromeTrace(files, &info);
        QVERIFY2(parsed.ok(), parsed.ok() ? "" : parsed.status().message().c_str());
        const RunTrace& t = parsed.value();
        QCOMPARE(info.policy, std::string("ddp"));
        QCOMPARE(info.ranks, 2);
        const json imported = json::parse(info.experiment_json)["imported"];
        QCOMPARE(imported["exact_sizes"].get<bool>(), true);
        // Forward order is the reverse of ready order: ids 3, 2, 1, 0 became ready in that order.
        QCOMPARE(imported["buckets"].dump(), std::string("[[2,3],[0,1]]"));
        QCOMPARE(t.tensors.size(), std::size_t{4});
        const std::vector<std::int64_t> elements = {100, 1000, 10, 100};
        for (int id = 0; id < 4; ++id) {
            QCOMPARE(t.tensors[static_cast<std::size_t>(id)].id, id);
            QCOMPARE(t.tensors[static_cast<std::size_t>(id)].elements, elements[static_cast<std::size_t>(id)]);
        }
        int replayTracks = 0;
        for (const Track& track : t.tracks) replayTracks += isReplayInputTrack(track);
        QCOMPARE(replayTracks, 4);  // compute and comm per rank

        // Rank 0, step 2 (S = 20000 µs): backward spans end at each gradient's ready time; buckets as launched.
        std::map<int, const Track*> trackOf;
        for (const Track& track : t.tracks) trackOf[track.id] = &track;
        std::map<int, std::pair<std::int64_t, std::int64_t>> backward;  // layer -> (start, end) ns
        std::vector<std::tuple<int, std::int64_t, std::int64_t, std::int64_t>> allreduce;  // (tensor, bytes, start, end)
        for (const TraceEvent& e : t.events) {
            const Track& track = *trackOf[e.track];
            if (!isReplayInputTrack(track) || track.rank != 0 || e.iteration != 2) continue;
            if (e.kind == EventKind::Backward) backward[e.layer] = {e.start, e.end};
            if (e.kind == EventKind::AllReduce) allreduce.emplace_back(e.tensor, e.bytes, e.start, e.end);
        }
        const std::int64_t S = 20'000'000;
        QCOMPARE(backward[3], std::make_pair(S + 4'000'000, S + 4'900'000));  // ready on the GPU, after the op
        QCOMPARE(backward[2], std::make_pair(S + 4'900'000, S + 5'100'000));
        QCOMPARE(backward[1], std::make_pair(S + 5'100'000, S + 6'100'000));
        QCOMPARE(backward[0], std::make_pair(S + 6'100'000, S + 7'100'000));
        QCOMPARE(allreduce.size(), std::size_t{2});
        QCOMPARE(allreduce[0], std::make_tuple(3, std::int64_t{440}, S + 5'300'000, S + 5'800'000));
        QCOMPARE(allreduce[1], std::make_tuple(1, std::int64_t{4400}, S + 7'300'000, S + 8'000'000));
    }

    // Without shapes, each bucket's message is shared evenly by its gradients; the sums stay exact.
    void sharesBucketBytesWithoutShapes() {
        json trace = rankTrace(0);
        for (json& e : trace["traceEvents"]) e["args"].erase("Input Dims");
        RunInfo info;
        auto parsed = parseChromeTraceText(trace.dump(), "noshapes.json", &info);
        QVERIFY(parsed.ok());
        QCOMPARE(json::parse(info.experiment_json)["imported"]["exact_sizes"].get<bool>(), false);
        const auto& tensors = parsed.value().tensors;
        QCOMPARE(tensors.size(), std::size_t{4});
        QCOMPARE(tensors[2].elements + tensors[3].elements, std::int64_t{110});
        QCOMPARE(tensors[0].elements + tensors[1].elements, std::int64_t{1100});
        QCOMPARE(tensors[0].elements, std::int64_t{550});
    }

    // No message sizes and no shapes: nothing to size the buckets with, said as what to record.
    void saysWhatIsMissing() {
        json trace = rankTrace(0);
        for (json& e : trace["traceEvents"]) {
            e["args"].erase("Input Dims");
            e["args"].erase("In msg nelems");
        }
        RunInfo info;
        auto parsed = parseChromeTraceText(trace.dump(), "nosizes.json", &info);
        QVERIFY(parsed.ok());  // it imports all the same
        const std::string missing = json::parse(info.experiment_json)["imported"]["replay_missing"].get<std::string>();
        QVERIFY2(missing.find("record_shapes=True") != std::string::npos, missing.c_str());
        QCOMPARE(info.policy, std::string("imported"));
    }

    // Sizes no gradient bucket has (crafted or corrupt traces): said as such, where products and sums of them
    // overflowed int64 (undefined behaviour; a wrapped message size read as "no message sizes").
    void refusesSizesBeyondAnyBucket_data() {
        QTest::addColumn<qint64>("firstMessage");  // "In msg nelems" of each step's first bucket; -1: none recorded
        QTest::addColumn<QList<qint64>>("firstShape");  // "Input Dims" of each step's first gradient; empty: as recorded
        QTest::newRow("message of 2^61 floats (wraps int64)") << qint64{(1LL << 61) + 5} << QList<qint64>{};
        QTest::newRow("message of 2^40 floats") << qint64{1LL << 40} << QList<qint64>{};
        QTest::newRow("shape of 2^60 elements, no message") << qint64{-1} << QList<qint64>{1LL << 30, 1LL << 30};
        QTest::newRow("shape of 2^64 elements (wraps), no message") << qint64{-1} << QList<qint64>{1LL << 32, 1LL << 32};
    }
    void refusesSizesBeyondAnyBucket() {
        QFETCH(qint64, firstMessage);
        QFETCH(QList<qint64>, firstShape);
        json trace = rankTrace(0);
        for (json& e : trace["traceEvents"]) {
            const std::string name = e["name"];
            const double offset = e["ts"].get<double>() - std::floor(e["ts"].get<double>() / 10000) * 10000;
            if (name == "record_param_comms" && offset == 5200) {
                if (firstMessage < 0) e["args"].erase("In msg nelems");
                else e["args"]["In msg nelems"] = firstMessage;
            }
            if (name == "torch::autograd::AccumulateGrad" && offset == 4500 && !firstShape.isEmpty())
                e["args"]["Input Dims"] = json::array({json(std::vector<qint64>(firstShape.begin(), firstShape.end()))});
        }
        RunInfo info;
        auto parsed = parseChromeTraceText(trace.dump(), "huge.json", &info);
        QVERIFY(parsed.ok());  // the spans import all the same
        const json imported = json::parse(info.experiment_json)["imported"];
        QVERIFY2(imported.contains("replay_missing"), info.experiment_json.c_str());
        const std::string missing = imported["replay_missing"].get<std::string>();
        QVERIFY2(missing.find("bucket 0 is larger than 1 TiB") != std::string::npos, missing.c_str());
        QCOMPARE(info.policy, std::string("imported"));
    }
};

QTEST_GUILESS_MAIN(KinetoDdpTest)
#include "tst_kineto_ddp.moc"
