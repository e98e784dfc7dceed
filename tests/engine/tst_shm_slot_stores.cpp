// How shared memory's all-reduce writes its slots (engine/transport/shm_slot_stores.h): the streaming copies and
// sums give exactly what the ordinary ones give at every alignment and length, and the choice between the two ways,
// driven as the transport drives it (rank 0 records, every rank reads the published way), settles on the faster way
// of each phase of the host, ignores chunks slowed by preemption, writes every chunk alike on every rank, and never
// explores on small chunks or under a fixed setting. (Exact sums over each way, across threads and processes, are in
// tst_engine_shm_transport.)
#include "engine/transport/shm_slot_stores.h"

#include <QTest>

#include <cstring>
#include <numeric>
#include <vector>

using namespace pacer::engine;
using namespace pacer::engine::shm;

namespace {

constexpr std::size_t kChunk = std::size_t(1) << 18;  // the transport's full chunk (kSlotFloats)

// Drives one channel's choice on two ranks through `phases` as the transport does: each chunk starts from the
// published way, rank 0 publishes what it decided at the end of the chunk before, then records this chunk. A
// phase is {ordinary ns per float, streaming ns per float, chunks, the way it should settle on}; every 7th chunk is
// slowed 5x (its thread preempted). Returns, per phase, the chunks of its second half not written the way it should
// settle on, and the way published at the end in *endsStreaming. Fails the test if the ranks ever write a chunk
// differently.
struct Phase {
    double cachedNs, streamingNs;
    int chunks;
    bool settlesStreaming;
};
std::vector<int> drive(const std::vector<Phase>& phases, bool* endsStreaming) {
    SlotStoreChoice rank0(SlotStores::Auto), rank1(SlotStores::Auto);
    bool published = false, next = false;
    std::vector<int> slowerWayLate;
    long chunk = 0;
    for (const Phase& p : phases) {
        int late = 0;
        for (int i = 0; i < p.chunks; ++i, ++chunk) {
            const bool chosen = published;
            const bool streaming = rank0.streamingFor(kChunk, chosen);
            if (rank1.streamingFor(kChunk, chosen) != streaming) {
                QTest::qFail("the ranks wrote a chunk differently", __FILE__, __LINE__);
                return {};
            }
            published = next;
            double ns = (streaming ? p.streamingNs : p.cachedNs) * kChunk;
            if (chunk % 7 == 3) ns *= 5;
            next = rank0.record(streaming, kChunk, std::chrono::nanoseconds(static_cast<long long>(ns)), chosen);
            if (i >= p.chunks / 2 && streaming != p.settlesStreaming) ++late;
        }
        slowerWayLate.push_back(late);
    }
    *endsStreaming = published;
    return slowerWayLate;
}

}  // namespace

class TestShmSlotStores : public QObject {
    Q_OBJECT
private slots:
    void streamingWritesWhatOrdinaryStoresWrite_data() {
        QTest::addColumn<int>("offset");  // floats from a 64-byte boundary, for the destination
        QTest::addColumn<int>("count");
        for (int offset : {0, 1, 2, 3, 5})
            for (int count : {0, 1, 3, 4, 5, 17, 1000, 262147})
                QTest::addRow("offset %d/count %d", offset, count) << offset << count;
    }
    void streamingWritesWhatOrdinaryStoresWrite() {
        QFETCH(int, offset);
        QFETCH(int, count);
        const std::size_t n = static_cast<std::size_t>(count);
        std::vector<float> from(n + 1), in(n + 1);
        for (std::size_t i = 0; i < n + 1; ++i) {
            from[i] = static_cast<float>(i % 1000) * 0.25f - 7.0f;
            in[i] = static_cast<float>((i * 7) % 13) * 1.5f + 0.125f;
        }
        // Destinations at `offset` floats past a 64-byte boundary, with a guard after them.
        std::vector<float> plainTo(n + 32, -1.0f), streamTo(n + 32, -1.0f);  // room for 16 floats of alignment
        const auto at = [&](std::vector<float>& v) {
            const auto address = reinterpret_cast<std::uintptr_t>(v.data());
            return v.data() + (64 - address % 64) / sizeof(float) % 16 + offset;
        };
        float* plain = at(plainTo);
        float* stream = at(streamTo);
        std::memcpy(plain, from.data() + 1, n * sizeof(float));  // the source unaligned too
        copyStreaming(stream, from.data() + 1, n);
        for (std::size_t i = 0; i < n + 8; ++i) QCOMPARE(stream[i], plain[i]);  // the guard after them untouched

        // The sums: into the slot (streaming) and into the copy (ordinary), against the plain loop.
        std::vector<float> copy(n), want(n);
        for (std::size_t i = 0; i < n; ++i) want[i] = plain[i] + in[i + 1];
        addIntoStreaming(stream, in.data() + 1, n, copy.data());
        for (std::size_t i = 0; i < n; ++i) {
            QCOMPARE(stream[i], want[i]);
            QCOMPARE(copy[i], want[i]);
        }
        QCOMPARE(stream[n], -1.0f);  // nothing written past the end
    }

    void choiceFollowsTheFasterWay_data() {
        QTest::addColumn<QList<double>>("cachedNs");     // per phase: time per float written with ordinary stores
        QTest::addColumn<QList<double>>("streamingNs");  // and with streaming ones
        QTest::addColumn<QList<bool>>("settlesStreaming");  // per phase: the way it should settle on
        // The figures of docs/shm-slot-stores.md: cores sharing a cache, and cores far apart.
        QTest::newRow("cores share a cache") << QList<double>{0.40} << QList<double>{0.65} << QList<bool>{false};
        QTest::newRow("cores far apart") << QList<double>{2.00} << QList<double>{0.60} << QList<bool>{true};
        // Not worth a switch: ordinary stores stay.
        QTest::newRow("streaming a little faster: inside the margin")
            << QList<double>{0.60} << QList<double>{0.55} << QList<bool>{false};
        QTest::newRow("far apart, then sharing")
            << QList<double>{2.00, 0.40} << QList<double>{0.60, 0.65} << QList<bool>{true, false};
        QTest::newRow("sharing, then far apart")
            << QList<double>{0.40, 2.00} << QList<double>{0.65, 0.60} << QList<bool>{false, true};
        QTest::newRow("apart, sharing, apart")
            << QList<double>{2.00, 0.40, 2.00} << QList<double>{0.60, 0.65, 0.60} << QList<bool>{true, false, true};
    }
    void choiceFollowsTheFasterWay() {
        QFETCH(QList<double>, cachedNs);
        QFETCH(QList<double>, streamingNs);
        QFETCH(QList<bool>, settlesStreaming);
        constexpr int kChunks = 2000;
        std::vector<Phase> phases;
        for (qsizetype i = 0; i < cachedNs.size(); ++i)
            phases.push_back({cachedNs[i], streamingNs[i], kChunks, settlesStreaming[i]});
        bool streaming = false;
        const std::vector<int> late = drive(phases, &streaming);
        QCOMPARE(int(late.size()), int(phases.size()));
        QCOMPARE(streaming, bool(settlesStreaming.back()));
        // Settled in each phase's second half: the other way only on the explored chunks (one in kExplorePeriod),
        // not on the preempted ones around them.
        const int explored = kChunks / 2 / int(SlotStoreChoice::kExplorePeriod) + 1;
        for (int l : late) QVERIFY2(l <= explored, qPrintable(QString::number(l)));
    }

    void smallChunksNeverExploreNorCount() {
        SlotStoreChoice choice(SlotStores::Auto);
        const std::size_t small = SlotStoreChoice::kMeasuredFloats - 1;
        for (int i = 0; i < 1000; ++i) {
            QCOMPARE(choice.streamingFor(small, false), false);
            QCOMPARE(choice.streamingFor(small, true), true);
            // However slow they look, small chunks do not move the choice.
            QCOMPARE(choice.record(false, small, std::chrono::seconds(1), false), false);
        }
        // Only measured chunks count toward the explorations: the kRecheckAfter-th large chunk, then every
        // kExplorePeriod-th, and kRecheckAfter after each change of the published way.
        const auto explored = [&](std::uint64_t chunks, bool published) {
            std::vector<std::uint64_t> at;
            for (std::uint64_t i = 1; i <= chunks; ++i)
                if (choice.streamingFor(kChunk, published) != published) at.push_back(i);
            return at;
        };
        const std::uint64_t first = SlotStoreChoice::kRecheckAfter, period = SlotStoreChoice::kExplorePeriod;
        QCOMPARE(explored(first + 2 * period, false),
                 (std::vector<std::uint64_t>{first, first + period, first + 2 * period}));
        QCOMPARE(explored(first + period, true), (std::vector<std::uint64_t>{first, first + period}));
        // The share a run records counts the way in force, not the explorations: the first 2 * period + first
        // chunks were published ordinary, the next first + period streaming, of which two explored ordinary.
        QVERIFY(!choice.fixed());
        QCOMPARE(choice.measuredChunks(), std::uint64_t{3 * period + 2 * first});
        QCOMPARE(choice.streamingChunks(), std::uint64_t{first + period});
    }

    void fixedSettingsNeverChange_data() {
        QTest::addColumn<int>("setting");
        QTest::addColumn<bool>("streaming");
        QTest::newRow("cached") << int(SlotStores::Cached) << false;
        QTest::newRow("streaming") << int(SlotStores::Streaming) << true;
    }
    void fixedSettingsNeverChange() {
        QFETCH(int, setting);
        QFETCH(bool, streaming);
        SlotStoreChoice choice(static_cast<SlotStores>(setting));
        for (int i = 0; i < 500; ++i) {
            const bool published = i % 2 == 0;  // whatever was published
            QCOMPARE(choice.streamingFor(kChunk, published), streaming);
            // The fixed way measured ten times slower than anything: still the way.
            QCOMPARE(choice.record(streaming, kChunk, std::chrono::milliseconds(100), published), streaming);
        }
        QVERIFY(choice.fixed());
        QCOMPARE(choice.measuredChunks(), std::uint64_t{500});
        QCOMPARE(choice.streamingChunks(), std::uint64_t{streaming ? 500u : 0u});
    }
};

QTEST_GUILESS_MAIN(TestShmSlotStores)
#include "tst_shm_slot_stores.moc"
