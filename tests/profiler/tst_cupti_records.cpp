// CUPTI record conversion on the CPU, with CUDA 13.0 activity records built in memory: kinds, tracks per
// stream, clock offset, NVTX start/end pairing, external correlation to tensor/segment. And the tracer itself
// either runs (GPU present) or says "no GPU" cleanly.
#include <QtTest>

#include <cstring>

#include "profiler/cupti_records.h"
#include "profiler/cupti_tracer.h"
#include "profiler/kernel_name.h"
#include "profiler/rank_file.h"
#include "profiler/project.h"

using namespace pacer::profiler;

namespace {
template <typename T>
T zeroed(CUpti_ActivityKind kind) {
    T r;
    std::memset(&r, 0, sizeof r);
    r.kind = kind;
    return r;
}
const CUpti_Activity* asRecord(const void* p) { return static_cast<const CUpti_Activity*>(p); }
}  // namespace

class TestCuptiRecords : public QObject {
    Q_OBJECT
private slots:
    void convertsEveryKind() {
        const std::int64_t offset = -5'000;
        CuptiRecordConverter conv(2, 1000, offset);

        auto k = zeroed<CUpti_ActivityKernel10>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
        k.start = 100'000; k.end = 130'000; k.deviceId = 1; k.streamId = 20; k.correlationId = 77;
        k.name = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
        auto k2 = k;
        k2.streamId = 7; k2.start = 50'000; k2.end = 60'000; k2.correlationId = 78; k2.name = "gemm";
        auto cp = zeroed<CUpti_ActivityMemcpy6>(CUPTI_ACTIVITY_KIND_MEMCPY);
        cp.start = 140'000; cp.end = 141'000; cp.deviceId = 1; cp.streamId = 20; cp.bytes = 4096; cp.copyKind = 8;
        auto ms = zeroed<CUpti_ActivityMemset4>(CUPTI_ACTIVITY_KIND_MEMSET);
        ms.start = 10'000; ms.end = 11'000; ms.deviceId = 1; ms.streamId = 7; ms.bytes = 64;
        auto api = zeroed<CUpti_ActivityAPI>(CUPTI_ACTIVITY_KIND_RUNTIME);
        api.start = 90'000; api.end = 95'000; api.threadId = 4242; api.correlationId = 77; api.cbid = 211;
        auto sync = zeroed<CUpti_ActivitySynchronization2>(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
        sync.start = 131'000; sync.end = 150'000; sync.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
        auto m1 = zeroed<CUpti_ActivityMarker2>(CUPTI_ACTIVITY_KIND_MARKER);
        m1.flags = CUPTI_ACTIVITY_FLAG_MARKER_START; m1.id = 9; m1.timestamp = 85'000; m1.name = "segment 3[1]";
        m1.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD; m1.objectId.pt.threadId = 4242;
        auto m2 = zeroed<CUpti_ActivityMarker2>(CUPTI_ACTIVITY_KIND_MARKER);
        m2.flags = CUPTI_ACTIVITY_FLAG_MARKER_END; m2.id = 9; m2.timestamp = 135'000;
        auto x = zeroed<CUpti_ActivityExternalCorrelation>(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
        x.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0; x.correlationId = 77; x.externalId = encodeSegmentId(3, 1);
        auto other = zeroed<CUpti_ActivityAPI>(CUPTI_ACTIVITY_KIND_CONTEXT);

        for (const void* r : {static_cast<const void*>(&x), static_cast<const void*>(&k), static_cast<const void*>(&k2),
                              static_cast<const void*>(&cp), static_cast<const void*>(&ms), static_cast<const void*>(&api),
                              static_cast<const void*>(&sync), static_cast<const void*>(&m1), static_cast<const void*>(&m2)})
            QVERIFY(conv.add(asRecord(r)));
        QVERIFY(!conv.add(asRecord(&other)));
        QCOMPARE(conv.ignored(), std::uint64_t{1});

        const auto events = conv.takeEvents();
        QCOMPARE(events.size(), std::size_t{7});
        // Tracks: (dev 1, stream 20), (dev 1, stream 7), API thread, sync, NVTX thread; numbered from 1000.
        const auto& tracks = conv.tracks();
        QCOMPARE(tracks.size(), std::size_t{5});
        QCOMPARE(tracks[0].id, 1000);
        QCOMPARE(tracks[0].rank, 2);
        QCOMPARE(tracks[0].kind, TrackKind::CudaStream);
        QVERIFY(tracks[0].name.find("device 1 stream 20") != std::string::npos);

        auto find = [&](EventKind kind) {
            return *std::find_if(events.begin(), events.end(), [&](const auto& e) { return e.kind == kind; });
        };
        const TraceEvent nccl = *std::find_if(events.begin(), events.end(), [](const auto& e) { return e.correlation == 77 && e.kind == EventKind::Kernel; });
        QCOMPARE(nccl.start, std::int64_t{100'000 + offset});
        QCOMPARE(nccl.end, std::int64_t{130'000 + offset});
        QCOMPARE(nccl.tensor, 3);   // from the external correlation record
        QCOMPARE(nccl.segment, 1);
        QCOMPARE(nccl.track, 1000);
        QCOMPARE(find(EventKind::Memcpy).bytes, std::int64_t{4096});
        QCOMPARE(find(EventKind::Memcpy).name, std::string("Memcpy DtoD"));
        QCOMPARE(find(EventKind::Memcpy).track, 1000);
        QCOMPARE(find(EventKind::Memset).track, 1001);
        QCOMPARE(find(EventKind::Runtime).tensor, 3);  // the launch shares the correlation id
        QVERIFY2(find(EventKind::Runtime).name.rfind("cudaLaunchKernel", 0) == 0, find(EventKind::Runtime).name.c_str());
        QCOMPARE(find(EventKind::Sync).name, std::string("cudaStreamSynchronize"));
        const TraceEvent marker = find(EventKind::Marker);
        QCOMPARE(marker.name, std::string("segment 3[1]"));
        QCOMPARE(marker.end - marker.start, std::int64_t{50'000});
        for (std::size_t i = 1; i < events.size(); ++i)
            QVERIFY(events[i - 1].track < events[i].track ||
                    (events[i - 1].track == events[i].track && events[i - 1].start <= events[i].start));
        QVERIFY(conv.takeEvents().empty());
    }

    void unmatchedMarkerEndIsIgnored() {
        CuptiRecordConverter conv(0, 1000, 0);
        auto m = zeroed<CUpti_ActivityMarker2>(CUPTI_ACTIVITY_KIND_MARKER);
        m.flags = CUPTI_ACTIVITY_FLAG_MARKER_END; m.id = 5;
        QVERIFY(conv.add(asRecord(&m)));
        QVERIFY(conv.takeEvents().empty());
        QCOMPARE(conv.ignored(), std::uint64_t{1});
    }

    void convertedEventsStoreInARankFile() {
        QTemporaryDir dir;
        const std::string file = dir.filePath("rank0.pacer").toStdString();
        CuptiRecordConverter conv(0, 1000, 0);
        auto k = zeroed<CUpti_ActivityKernel10>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
        k.start = 10; k.end = 20; k.streamId = 3; k.name = "k";
        QVERIFY(conv.add(asRecord(&k)));
        auto writer = RankFileWriter::create(file, RunInfo{"gpu", "pace", "", 0, 1, 1, "gpu", 0}, 0);
        QVERIFY(writer.ok());
        CpuTracer tracer(0);
        tracer.addTrack(TrackKind::Compute, "rank 0 compute");
        tracer.record(EventKind::Forward, 0, -1, 1, 2, 0);
        QVERIFY((*writer)->flush(tracer).ok());
        const Status s = (*writer)->writeEvents(conv.tracks(), conv.takeEvents(), 3);
        QVERIFY2(s.ok(), s.message().c_str());
        QVERIFY((*writer)->close().ok());
        auto run = readRun(file, 0);
        QVERIFY(run.ok());
        QCOMPARE(run->tracks.size(), std::size_t{2});
        QCOMPARE(run->events.size(), std::size_t{2});
        auto sum = readRunSummary(file, 0);
        QCOMPARE(sum->dropped, std::uint64_t{3});
    }

    // Symbols as CUPTI reported them on an H200 (2026-12-04), and NCCL's kernel as CUDA mangles it: the analysis
    // tells communication from compute by a kernel name starting with "nccl".
    void kernelsAreNamedAsNsightNamesThem_data() {
        QTest::addColumn<QString>("symbol");
        QTest::addColumn<QString>("shown");
        QTest::newRow("own kernel in an anonymous namespace")
            << "_ZN5pacer7kernels4cuda43_GLOBAL__N__7f9c301a_10_kernels_cu_f8e9052f8addBiasKEPfPKfmi" << "addBiasK";
        QTest::newRow("template keeps its arguments")
            << "_ZN7cutlass7Kernel2I41cutlass_80_simt_sgemm_64x64_8x5_nn_align1EEvNT_6ParamsE"
            << "Kernel2<cutlass_80_simt_sgemm_64x64_8x5_nn_align1>";
        QTest::newRow("NCCL kernel") << "_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE"
                                     << "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
        QTest::newRow("cuBLAS name is not mangled")
            << "sm80_xmma_gemm_f32f32_f32f32_f32_nt_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas"
            << "sm80_xmma_gemm_f32f32_f32f32_f32_nt_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas";
        QTest::newRow("not demangleable is kept") << "_Zbroken" << "_Zbroken";
    }
    void kernelsAreNamedAsNsightNamesThem() {
        QFETCH(QString, symbol);
        QFETCH(QString, shown);
        QCOMPARE(QString::fromStdString(kernelDisplayName(symbol.toStdString())), shown);
        // Through the converter too: the stored kernel event carries the shown name.
        CuptiRecordConverter conv(0, 1, 0);
        auto k = zeroed<CUpti_ActivityKernel10>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
        const std::string name = symbol.toStdString();
        k.start = 1'000; k.end = 2'000; k.name = name.c_str();
        QVERIFY(conv.add(asRecord(&k)));
        const auto events = conv.takeEvents();
        QCOMPARE(events.size(), std::size_t{1});
        QCOMPARE(QString::fromStdString(events.front().name), shown);
    }

    void tracerStartsOrSaysNoGpu() {
        auto tracer = CuptiTracer::start(0);
        if (!tracer.ok()) {
            QVERIFY2(tracer.message().find("no GPU") != std::string::npos, tracer.message().c_str());
            return;
        }
        QVERIFY((*tracer)->flush().ok());
        (void)(*tracer)->takeEvents();
        QVERIFY(!CuptiTracer::start(0).ok());  // one subscriber per process
        QVERIFY((*tracer)->stop().ok());
    }
};

QTEST_GUILESS_MAIN(TestCuptiRecords)
#include "tst_cupti_records.moc"
