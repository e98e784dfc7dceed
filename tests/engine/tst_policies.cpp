// The policies as plain code: every policy covers every element exactly once, in the shape its paper describes
// (DDP buckets, Horovod cycles, ByteScheduler credit, PACE segments and fusion), and bad settings are refused.
#include "engine/policies/ddp_policy.h"
#include "engine/policies/segmenting.h"
#include "engine/policy_config.h"

#include <QTest>

#include <map>
#include <random>

using namespace pacer::engine;

Q_DECLARE_METATYPE(std::vector<std::size_t>)

namespace {

std::vector<TensorInfo> makeTensors(const std::vector<std::size_t>& elements) {
    std::vector<TensorInfo> tensors;
    for (std::size_t i = 0; i < elements.size(); ++i) {
        std::string name = "t";  // appended, not "t" + ...: GCC 12 reports a false -Wrestrict on that form
        name += std::to_string(i);
        tensors.push_back(TensorInfo{static_cast<int>(i), name, static_cast<int>(i), elements[i]});
    }
    return tensors;
}

// Drives a policy through one iteration: gradients arrive in backward order, 1 us apart, each unit takes 1 us.
// Returns the units in issue order; fails the test if the policy stalls.
std::vector<CommUnit> runIteration(Policy& policy, std::size_t tensorCount, std::vector<int> readyOrder = {}) {
    if (readyOrder.empty())
        for (int t = static_cast<int>(tensorCount) - 1; t >= 0; --t) readyOrder.push_back(t);
    std::vector<CommUnit> units;
    Nanos now = 0;
    policy.beginIteration(now);
    std::size_t nextReady = 0;
    for (int step = 0; step < 100000 && !policy.finished(); ++step) {
        if (nextReady < readyOrder.size()) policy.onGradientReady(readyOrder[nextReady++], now);
        if (auto unit = policy.next(now)) {
            now += 1000;
            policy.onUnitDone(*unit, now);
            units.push_back(*unit);
        } else if (nextReady >= readyOrder.size()) {
            if (policy.wakeTime() == kNever) break;  // stalled: nothing held back, nothing ready
            now = std::max(now + 1, policy.wakeTime());
        } else {
            now += 1000;
        }
    }
    return units;
}

}  // namespace

class TestPolicies : public QObject {
    Q_OBJECT
private slots:
    void coversEveryElementOnce_data() {
        QTest::addColumn<QString>("policy");
        QTest::addColumn<std::vector<std::size_t>>("elements");
        QTest::addColumn<qulonglong>("segmentBytes");
        const std::vector<std::pair<const char*, std::vector<std::size_t>>> models = {
            {"one", {1}},
            {"odd", {7, 1, 13, 1001, 3}},
            {"mlp", {4096 * 1024, 1024, 1024 * 512, 512, 512 * 10, 10}},
            {"many-small", std::vector<std::size_t>(40, 33)},
        };
        for (const std::string& p : policyNames())
            for (const auto& [modelName, elements] : models)
                for (qulonglong seg : {4ull, 1000ull, 64ull << 10, 4ull << 20}) {
                    if (seg == 4 && elements.front() > 100000) continue;  // millions of 1-float segments: no new case
                    QTest::addRow("%s/%s/seg%llu", p.c_str(), modelName, seg) << QString::fromStdString(p) << elements << seg;
                }
    }
    void coversEveryElementOnce() {
        QFETCH(QString, policy);
        QFETCH(std::vector<std::size_t>, elements);
        QFETCH(qulonglong, segmentBytes);
        const auto tensors = makeTensors(elements);
        PolicyConfig config;
        config.name = policy.toStdString();
        config.segment_bytes = segmentBytes;
        config.bucket_bytes = 1 << 20;
        config.first_bucket_bytes = 64 << 10;
        config.fusion_bytes = 1 << 20;
        auto made = makePolicy(config, tensors);
        QVERIFY2(made.ok(), made.message().c_str());
        for (int iteration = 0; iteration < 2; ++iteration) {  // state resets between iterations
            const auto units = runIteration(**made, tensors.size());
            QVERIFY((*made)->finished());
            std::map<int, std::size_t> covered;
            // The bound the runtime sizes its staging buffers by (Policy::largestUnitElements) holds every unit;
            // where a unit is one item (pace, manual) it is the largest unit itself.
            const std::size_t bound = (*made)->largestUnitElements();
            std::size_t largest = 0;
            for (const CommUnit& u : units) largest = std::max(largest, u.elements());
            if (bound > 0) QVERIFY2(largest <= bound, qPrintable(QString("unit of %1 > bound %2").arg(largest).arg(bound)));
            if (config.name == "pace" || config.name == "manual") QCOMPARE(bound, largest);
            if (config.name == "bytescheduler") QVERIFY(bound > 0);
            for (const CommUnit& u : units) {
                QVERIFY(!u.pieces.empty());
                for (const Piece& p : u.pieces) {
                    QVERIFY(p.offset + p.count <= tensors[p.tensor].elements);
                    covered[p.tensor] += p.count;
                    if (config.name == "pace" || config.name == "manual" || config.name == "bytescheduler")
                        QVERIFY(p.count * sizeof(float) <= std::max<std::size_t>(segmentBytes, 4) || u.pieces.size() > 1);
                }
            }
            for (const TensorInfo& t : tensors) QCOMPARE(covered[t.id], t.elements);
        }
    }

    void ddpBucketsFollowReverseOrderWithSmallFirstBucket() {
        // 5 tensors of 600 KiB, PyTorch's rule (a bucket closes once it reaches its limit): the first bucket
        // (1 MiB) closes at 1.2 MB with two tensors; the rest (1.8 MB) stays below the 2 MiB cap.
        const auto tensors = makeTensors(std::vector<std::size_t>(5, 600 * 256));
        const auto buckets = ddpBuckets(tensors, 1 << 20, 2 << 20);
        const std::vector<std::vector<int>> expected = {{4, 3}, {2, 1, 0}};
        QCOMPARE(buckets, expected);
        PolicyConfig c;
        c.name = "ddp";
        c.first_bucket_bytes = 1 << 20;
        c.bucket_bytes = 2 << 20;
        auto policy = makePolicy(c, tensors);
        QVERIFY((*policy)->updateWaitsForAll());
        // Ready out of order: bucket 1 completes before bucket 0 but must wait for it.
        const auto units = runIteration(**policy, tensors.size(), {2, 1, 0, 3, 4});
        QCOMPARE(units.size(), std::size_t(2));
        QCOMPARE(units[0].pieces.front().tensor, 4);
        QCOMPARE(units[1].pieces.size(), std::size_t(3));
    }

    void horovodHoldsWorkUntilTheCycle() {
        const auto tensors = makeTensors({100, 100, 100});
        PolicyConfig c;
        c.name = "horovod";
        c.cycle_ns = 1'000'000;
        auto made = makePolicy(c, tensors);
        Policy& p = **made;
        p.beginIteration(0);
        p.onGradientReady(2, 10);
        p.onGradientReady(1, 20);
        QVERIFY(!p.next(500'000));
        QCOMPARE(p.wakeTime(), Nanos(1'000'000));
        auto unit = p.next(1'000'000);
        QVERIFY(unit);
        QCOMPARE(unit->pieces.size(), std::size_t(2));  // both fused into one buffer, in ready order
        QCOMPARE(unit->pieces[0].tensor, 2);
        p.onUnitDone(*unit, 1'100'000);
        p.onGradientReady(0, 1'200'000);
        QVERIFY(!p.next(1'200'000));
        QCOMPARE(p.wakeTime(), Nanos(2'000'000));
    }

    void paceSendsTheUrgentTensorAtTheNextSegment() {
        // Tensor 2 (large, low priority) is ready first; tensor 0 becomes ready after two of its segments.
        const auto tensors = makeTensors({1000, 1000, 1 << 16});
        PolicyConfig c;
        c.name = "pace";
        c.segment_bytes = 4096;
        c.fuse_below_bytes = 0;
        auto made = makePolicy(c, tensors);
        Policy& p = **made;
        p.beginIteration(0);
        p.onGradientReady(2, 0);
        for (int i = 0; i < 2; ++i) {
            auto u = p.next(0);
            QCOMPARE(u->pieces.front().tensor, 2);
            QCOMPARE(u->pieces.front().segment, i);
            p.onUnitDone(*u, 0);
        }
        p.onGradientReady(0, 0);
        auto u = p.next(0);
        QCOMPARE(u->pieces.front().tensor, 0);
        QCOMPARE(u->priority, 0);
    }

    void paceFusesSmallAdjacentTensors() {
        const auto tensors = makeTensors({10, 10, 10, 100000, 10, 10});
        PolicyConfig c;
        c.name = "pace";
        c.fuse_below_bytes = 1024;
        const auto groups = greedyFusionGroups(tensors, c.fuse_below_bytes, c.segment_bytes);
        const std::vector<std::vector<int>> expected = {{0, 1, 2}, {3}, {4, 5}};
        QCOMPARE(groups, expected);
        auto made = makePolicy(c, tensors);
        const auto units = runIteration(**made, tensors.size());
        QCOMPARE(units.front().pieces.size(), std::size_t(2));  // {4,5} is ready first
        QCOMPARE(units.back().pieces.size(), std::size_t(3));   // {0,1,2} waits for tensor 0
        c.fusion_groups = {{1, 2}};  // explicit groups from the DP search win over the greedy ones
        auto explicitMade = makePolicy(c, tensors);
        const auto explicitUnits = runIteration(**explicitMade, tensors.size());
        int fused = 0;
        for (const auto& u : explicitUnits) fused += u.pieces.size() > 1;
        QCOMPARE(fused, 1);
    }

    void byteSchedulerCreditPacksPartitions() {
        const auto tensors = makeTensors({4096});
        PolicyConfig c;
        c.name = "bytescheduler";
        c.segment_bytes = 1024;  // 16 partitions
        c.credit = 4;
        auto made = makePolicy(c, tensors);
        const auto units = runIteration(**made, tensors.size());
        QCOMPARE(units.size(), std::size_t(4));
        QCOMPARE(units.front().pieces.size(), std::size_t(4));
    }

    void manualFollowsUserPriorities() {
        const auto tensors = makeTensors({100, 100, 100});
        PolicyConfig c;
        c.name = "manual";
        c.priorities = {2, 0, 1};
        auto made = makePolicy(c, tensors);
        Policy& p = **made;
        p.beginIteration(0);
        for (int t : {2, 1, 0}) p.onGradientReady(t, 0);
        std::vector<int> order;
        while (auto u = p.next(0)) {
            order.push_back(u->pieces.front().tensor);
            p.onUnitDone(*u, 0);
        }
        QCOMPARE(order, (std::vector<int>{1, 2, 0}));
        QVERIFY(p.finished());
    }

    void badSettingsAreClearErrors_data() {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("expected");
        QTest::newRow("unknown policy") << "name" << "unknown policy 'lifo'";
        QTest::newRow("zero segment") << "segment" << "segment size is 0 bytes";
        QTest::newRow("negative credit") << "credit" << "credit is negative";
        QTest::newRow("zero credit") << "credit0" << "credit is 0";
        QTest::newRow("group not adjacent") << "groups" << "not a run of adjacent tensors";
        QTest::newRow("group out of range") << "groups-range" << "does not exist";
        QTest::newRow("priorities count") << "priorities" << "give one per tensor";
        QTest::newRow("zero cycle") << "cycle" << "cycle time must be positive";
    }
    void badSettingsAreClearErrors() {
        QFETCH(QString, field);
        QFETCH(QString, expected);
        const auto tensors = makeTensors({10, 20, 30});
        PolicyConfig c;
        if (field == "name") c.name = "lifo";
        if (field == "segment") c.segment_bytes = 0;
        if (field == "credit") c.credit = -1;
        if (field == "credit0") c.credit = 0;
        if (field == "groups") c.fusion_groups = {{0, 2}};
        if (field == "groups-range") c.fusion_groups = {{2, 3}};
        if (field == "priorities") c.priorities = {1};
        if (field == "cycle") c.cycle_ns = 0;
        QVERIFY(validate(PolicyConfig{}, tensors).ok());
        const Status s = validate(c, tensors);
        QVERIFY(!s.ok());
        QVERIFY2(s.message().find(expected.toStdString()) != std::string::npos, s.message().c_str());
        QVERIFY(!makePolicy(c, tensors).ok());
    }
};

QTEST_GUILESS_MAIN(TestPolicies)
#include "tst_policies.moc"
