// The CPU tracer: records from many threads all arrive, a full ring drops and counts instead of blocking,
// names and tracks keep their ids.
#include <QtTest>

#include <thread>

#include "profiler/clock.h"
#include "profiler/cpu_tracer.h"

using namespace pacer::profiler;

class TestCpuTracer : public QObject {
    Q_OBJECT
private slots:
    void clockIsMonotonic() {
        const std::int64_t a = nowNs(), b = nowNs();
        QVERIFY(a > 0);
        QVERIFY(b >= a);
    }

    void internIsStable() {
        CpuTracer tracer(0);
        const int a = tracer.internName("fc1");
        const int b = tracer.internName("fc2");
        QCOMPARE(tracer.internName("fc1"), a);
        QVERIFY(a != b);
        QCOMPARE(tracer.names().at(static_cast<std::size_t>(b)), std::string("fc2"));
    }

    void tracksGetIds() {
        CpuTracer tracer(3);
        QCOMPARE(tracer.addTrack(TrackKind::Compute, "rank 3 compute"), 0);
        QCOMPARE(tracer.addTrack(TrackKind::Comm, "rank 3 comm"), 1);
        const auto tracks = tracer.tracks();
        QCOMPARE(tracks.size(), std::size_t{2});
        QCOMPARE(tracks[1].rank, 3);
        QCOMPARE(tracks[1].kind, TrackKind::Comm);
    }

    void manyThreadsAllArrive_data() {
        QTest::addColumn<int>("threads");
        QTest::addColumn<int>("perThread");
        QTest::newRow("1 thread") << 1 << 50000;
        QTest::newRow("4 threads") << 4 << 30000;
        QTest::newRow("8 threads, more than a ring each") << 8 << 100000;
    }
    void manyThreadsAllArrive() {
        QFETCH(int, threads);
        QFETCH(int, perThread);
        CpuTracer tracer(0, 1u << 20);  // rings large enough that nothing drops even if the flush thread stalls
        const int name = tracer.internName("x");
        std::vector<std::thread> pool;
        for (int t = 0; t < threads; ++t)
            pool.emplace_back([&, t] {
                for (int i = 0; i < perThread; ++i)
                    tracer.record(EventKind::Forward, t, name, i, i + 1, i, t, -1, -1, i * 2);
            });
        for (auto& th : pool) th.join();
        const auto records = tracer.drain();
        QCOMPARE(tracer.dropped(), std::uint64_t{0});
        QCOMPARE(records.size(), static_cast<std::size_t>(threads) * perThread);
        // Each thread's records arrive complete and in its own order.
        std::vector<std::int64_t> next(static_cast<std::size_t>(threads), 0);
        for (const TraceRecord& r : records) {
            QCOMPARE(r.layer, r.track);
            QCOMPARE(r.start, next[static_cast<std::size_t>(r.track)]++);
            QCOMPARE(r.bytes, r.start * 2);
            QCOMPARE(r.end, r.start + 1);
        }
        QVERIFY(tracer.drain().empty());
    }

    void fullRingDropsAndCounts() {
        // A tiny ring and a burst much faster than the 1 ms flush period: some records must be dropped, and
        // kept + dropped must account for every call.
        CpuTracer tracer(0, 16);
        const int n = 200000;
        for (int i = 0; i < n; ++i) tracer.record(EventKind::Wait, 0, -1, i, i, 0);
        const auto kept = tracer.drain().size();
        QVERIFY(tracer.dropped() > 0);
        QCOMPARE(kept + tracer.dropped(), static_cast<std::uint64_t>(n));
    }

    void twoTracersOnOneThread() {
        CpuTracer a(0), b(1);
        for (int i = 0; i < 10; ++i) {
            a.record(EventKind::Forward, 0, -1, i, i + 1, 0);
            b.record(EventKind::Backward, 0, -1, i, i + 1, 0);
        }
        QCOMPARE(a.drain().size(), std::size_t{10});
        const auto rb = b.drain();
        QCOMPARE(rb.size(), std::size_t{10});
        QCOMPARE(rb[0].kind, EventKind::Backward);
    }

    void kindNamesRoundTrip() {
        for (int k = 0; k < kEventKindCount; ++k) {
            const auto kind = static_cast<EventKind>(k);
            QCOMPARE(eventKindFromName(eventKindName(kind)), std::optional<EventKind>(kind));
        }
        QVERIFY(!eventKindFromName("bogus"));
        for (int k = 0; k < kTrackKindCount; ++k) {
            const auto kind = static_cast<TrackKind>(k);
            QCOMPARE(trackKindFromName(trackKindName(kind)), std::optional<TrackKind>(kind));
        }
    }
};

QTEST_GUILESS_MAIN(TestCpuTracer)
#include "tst_cpu_tracer.moc"
