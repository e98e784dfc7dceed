// The simulator with the engine's real policies: hand-checked timings, the lower bound, determinism, what-if
// monotonicity, dependencies across iterations, PyTorch's DDP bucketing, and errors for broken input.
#include <QtTest>
#include <algorithm>
#include <map>

#include "engine/policy_config.h"
#include "engine/replay/replay.h"
#include "engine/sim/simulator.h"
#include "test_models.h"

using namespace pacer::engine;
using pacer::test::syntheticModel;
using pacer::test::zooModel;

namespace {

Workload modelNamed(const QString& name) {
    if (name == "synthetic") return syntheticModel(24, 40'000, 150'000, 300'000);
    return zooModel(name.toStdString());
}

void addModelPolicyRows() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("policy");
    for (const char* model : {"resnet50", "vgg16", "bert_base", "gpt2_small", "synthetic"})
        for (const std::string& policy : policyNames())
            QTest::addRow("%s/%s", model, policy.c_str()) << model << QString::fromStdString(policy);
}

// PyTorch's Reducer bucketing (compute_bucket_assignment_by_size, applied to gradient-ready order): walk the
// parameters in reverse order, add each to the open bucket, and close the bucket once its size reaches the
// current limit; the first limit is first_bucket_bytes, every later one bucket_bytes. A tensor above the limit
// thus closes the bucket it lands in, and lands alone when that bucket was empty.
std::vector<std::vector<int>> pytorchBuckets(const Workload& w, std::size_t first, std::size_t cap) {
    std::vector<std::vector<int>> buckets;
    std::vector<int> open;
    std::size_t size = 0, limit = first;
    for (int id = static_cast<int>(w.tensors.size()) - 1; id >= 0; --id) {
        open.push_back(id);
        size += w.tensors[id].bytes();
        if (size >= limit) {
            buckets.push_back(open);
            open.clear();
            size = 0;
            limit = cap;
        }
    }
    if (!open.empty()) buckets.push_back(open);
    return buckets;
}

// A policy that never sends anything: the simulator must report it, not spin.
class SilentPolicy final : public Policy {
public:
    std::string_view name() const override { return "silent"; }
    void beginIteration(Nanos) override {}
    void onGradientReady(int, Nanos) override {}
    std::optional<CommUnit> next(Nanos) override { return std::nullopt; }
    void onUnitDone(const CommUnit&, Nanos) override {}
    bool finished() const override { return false; }
};

// Two layers with one tensor each, forward 100 ns and backward 200 ns per layer: the hand-timed cases below.
Workload twoLayers(std::size_t elements0 = 1000, std::size_t elements1 = 1000) {
    Workload w;
    w.layers = {{"l0", 100, 200}, {"l1", 100, 200}};
    w.tensors = {{0, "l0.w", 0, elements0}, {1, "l1.w", 1, elements1}};
    return w;
}

// A fresh policy from `config`, simulated on `w`.
Result<SimResult> simulateWith(const Workload& w, const PolicyConfig& config, const CostModel& cost,
                               const SimOptions& options) {
    auto policy = makePolicy(config, w.tensors);
    if (!policy.ok()) return policy.status();
    return simulate(w, *policy.value(), cost, options);
}

// Pace with segments of 2000 bytes and no fusion: the preemption cases.
PolicyConfig paceSegments() {
    PolicyConfig pace;
    pace.name = "pace";
    pace.segment_bytes = 2000;
    pace.fuse_below_bytes = 0;
    return pace;
}

}  // namespace

class TestSimulator : public QObject {
    Q_OBJECT

private slots:
    // Two layers, one tensor each, fifo. By hand: forward 0-200, backward layer 1 200-400 (its tensor goes on the
    // wire 400-850: 50 + 4000 x 0.1), backward layer 0 400-600 (tensor 0: 850-1300). The next forward of layer 0
    // waits for 1300, so the steady period is 1300 ns with 600 compute, 900 comm, 200 of it hidden.
    void handComputedTwoLayers() {
        Result<SimResult> r = simulateWith(twoLayers(), PolicyConfig{}, CostModel{50, 0.1, {}}, SimOptions{4, 1});
        QVERIFY2(r.ok(), r.status().message().c_str());
        const SimFigures& f = r.value().figures;
        QCOMPARE(f.iter_ms, 1300e-6);
        QCOMPARE(f.compute_ms, 600e-6);
        QCOMPARE(f.comm_ms, 900e-6);
        QCOMPARE(f.exposed_comm_ms, 700e-6);
        QVERIFY(qAbs(f.overlap - 200.0 / 900.0) < 1e-12);
        QCOMPARE(f.idle_ms, 0.0);
        // The link carries both tensors (one unit: 850) and idles through l1's forward and backward (300): the
        // forward of l1 waits for its reduction and nothing of the next iteration is ready before l1's backward ends
        // (less 1 ns kept for rounding). Above compute 600 + layer 0's reduction 450 with nothing to overlap it.
        QVERIFY(qAbs(f.lower_bound_ms - 1150e-6) <= 1e-6);
        QCOMPARE(r.value().iteration_starts, (std::vector<Nanos>{0, 1300, 2600, 3900, 5200}));
        QCOMPARE(r.value().order.size(), std::size_t{2});
        QCOMPARE(r.value().order[0].pieces.front().tensor, 1);
        QCOMPARE(r.value().order[1].pieces.front().tensor, 0);
    }

    // A plan (what a plan-order run was given) runs in its own order, each unit once its tensor is ready, as the
    // runtime's plan mode does: here tensor 0 (ready last, at 600) goes first, so the link idles from 400, when
    // tensor 1 is ready, to 600, where pace deciding for itself sends tensor 1 at once. Segments of 2000 bytes take
    // 50 + 2000 x 0.1 = 250 ns. The plan keeps the name and the optimizer barrier of the policy that made it.
    void aPlanRunsInItsOrderOnceEachUnitIsReady() {
        const std::vector<CommUnit> plan = {{{{0, 0, 0, 500}}}, {{{0, 1, 500, 500}}}, {{{1, 0, 0, 500}}},
                                            {{{1, 1, 500, 500}}}};
        PolicyConfig config = paceSegments();
        config.plan = plan;
        const CostModel cost{50, 0.1, {}};
        Result<SimResult> r = simulateWith(twoLayers(), config, cost, SimOptions{4, 1});
        QVERIFY2(r.ok(), r.status().message().c_str());
        std::vector<std::pair<Nanos, Nanos>> first;
        std::map<int, std::vector<std::pair<int, int>>> order;  // iteration -> (tensor, segment)
        for (const SimEvent& e : r.value().events) {
            if (e.kind != SimEvent::Comm) continue;
            order[e.iteration].emplace_back(e.unit.pieces.front().tensor, e.unit.pieces.front().segment);
            if (e.iteration == 0) first.emplace_back(e.start, e.end);
        }
        QCOMPARE(first, (std::vector<std::pair<Nanos, Nanos>>{{600, 850}, {850, 1100}, {1100, 1350}, {1350, 1600}}));
        QCOMPARE(order.size(), std::size_t{4});
        for (const auto& [iteration, units] : order)
            QCOMPARE(units, (std::vector<std::pair<int, int>>{{0, 0}, {0, 1}, {1, 0}, {1, 1}}));
        Result<SimResult> decides = simulateWith(twoLayers(), paceSegments(), cost, SimOptions{4, 1});
        QVERIFY(decides.ok());
        QCOMPARE(decides.value().order.front().pieces.front().tensor, 1);  // what the plan overrides

        auto planned = makePolicy(config, twoLayers().tensors);
        QVERIFY(planned.ok());
        QCOMPARE(planned.value()->name(), std::string_view("pace"));
        PolicyConfig ddp;
        ddp.name = "ddp";
        ddp.plan = {{{{0, 0, 0, 1000}, {1, 0, 0, 1000}}}};
        auto barrier = makePolicy(ddp, twoLayers().tensors);
        QVERIFY2(barrier.ok(), barrier.status().message().c_str());
        QVERIFY(barrier.value()->updateWaitsForAll());
        ddp.plan.push_back({{{1, 0, 0, 1000}}});  // tensor 1 twice
        auto twice = makePolicy(ddp, twoLayers().tensors);
        QVERIFY(!twice.ok());
        QVERIFY2(twice.status().message().find("recorded plan reduces twice") != std::string::npos,
                 twice.status().message().c_str());
    }

    // A unit that goes on straight after one that ended a wait of the next forward starts release_gap_ns after it
    // (the compute thread the reduction woke has the core), or once that compute blocks again if it does sooner. The
    // plan sends tensor 0 (ready at 600) and then tensor 1, 450 ns each: 600-1050 and 1050-1500 in the first
    // iteration. From the second on, the forward waits for tensor 0, so tensor 1 starts `expected` after it ends: the
    // gap, but no more than the 100 ns of l0's forward, after which the forward waits for tensor 1 and the comm
    // thread has the core (a 1000 ns gap came out as 1000 before). The first iteration's units go back to back (no
    // forward has waited yet). With channels nothing changes (their units overlap; the fit gives 0 there).
    void aUnitAfterOneThatEndedAWaitPaysTheReleaseGap_data() {
        QTest::addColumn<Nanos>("gap");
        QTest::addColumn<int>("channels");
        QTest::addColumn<Nanos>("expected");
        QTest::newRow("no gap") << Nanos{0} << 1 << Nanos{0};
        QTest::newRow("60 ns") << Nanos{60} << 1 << Nanos{60};
        QTest::newRow("100 ns") << Nanos{100} << 1 << Nanos{100};
        QTest::newRow("1000 ns, the woken compute blocks after 100") << Nanos{1000} << 1 << Nanos{100};
        QTest::newRow("100 ns, 2 channels") << Nanos{100} << 2 << Nanos{0};
    }
    void aUnitAfterOneThatEndedAWaitPaysTheReleaseGap() {
        QFETCH(Nanos, gap);
        QFETCH(int, channels);
        QFETCH(Nanos, expected);
        Workload w = twoLayers();
        w.release_gap_ns = gap;
        w.channels = channels;
        PolicyConfig config;
        config.name = "pace";
        config.fuse_below_bytes = 0;
        config.plan = {{{{0, 0, 0, 1000}}}, {{{1, 0, 0, 1000}}}};
        Result<SimResult> r = simulateWith(w, config, CostModel{50, 0.1, {}}, SimOptions{4, 1});
        QVERIFY2(r.ok(), r.status().message().c_str());
        std::map<int, std::vector<const SimEvent*>> units;
        for (const SimEvent& e : r.value().events)
            if (e.kind == SimEvent::Comm) units[e.iteration].push_back(&e);
        QCOMPARE(units[0].at(0)->start, Nanos{600});
        QCOMPARE(units[0].at(1)->start, channels == 1 ? Nanos{1050} : Nanos{600});
        for (int k = 1; k < 4; ++k) {
            QCOMPARE(units[k].at(0)->unit.pieces.front().tensor, 0);
            if (channels == 1) QCOMPARE(units[k].at(1)->start - units[k].at(0)->end, expected);
        }
    }

    // The runtime's wake-ups as a captured run measures them: the idle link takes a gradient 30 ns after it is
    // ready (l1: 430 instead of 400), and compute resumes 20 ns after the reduction it waited for (l0's, which
    // now ends at 1330: 1350). A unit that finds the link busy pays no dispatch delay (l0 waits for l1 anyway).
    void wakeUpLatenciesDelayOnlyWhatWaits() {
        Workload w = twoLayers();
        w.dispatch_ns = 30;
        w.resume_ns = 20;
        Result<SimResult> r = simulateWith(w, PolicyConfig{}, CostModel{50, 0.1, {}}, SimOptions{4, 1});
        QVERIFY2(r.ok(), r.status().message().c_str());
        QCOMPARE(r.value().iteration_starts, (std::vector<Nanos>{0, 1350, 2700, 4050, 5400}));
        QCOMPARE(r.value().figures.iter_ms, 1350e-6);
    }

    // The wake-up is the one that the layer whose backward made the gradient ready showed (Workload::dispatchAfter):
    // l1's gradient, ready at 400, goes on the idle link at 400 + its layer's latency, or dispatch_ns's 30 where its
    // layer has none of its own; l0's, ready at 600 while l1's unit (450 ns) is still on the link, pays nothing.
    void wakeUpLatencyIsTheLayers_data() {
        QTest::addColumn<std::vector<Nanos>>("byLayer");
        QTest::addColumn<Nanos>("l1Start");
        QTest::newRow("one for every layer") << std::vector<Nanos>{} << Nanos{430};
        QTest::newRow("l1's own") << std::vector<Nanos>{-1, 200} << Nanos{600};
        QTest::newRow("l0's own, l1 the default") << std::vector<Nanos>{200, -1} << Nanos{430};
    }
    void wakeUpLatencyIsTheLayers() {
        QFETCH(std::vector<Nanos>, byLayer);
        QFETCH(Nanos, l1Start);
        Workload w = twoLayers();
        w.dispatch_ns = 30;
        w.dispatch_by_layer_ns = byLayer;
        Result<SimResult> r = simulateWith(w, PolicyConfig{}, CostModel{50, 0.1, {}}, SimOptions{2, 1});
        QVERIFY2(r.ok(), r.status().message().c_str());
        std::vector<const SimEvent*> units;
        for (const SimEvent& e : r.value().events)
            if (e.kind == SimEvent::Comm && e.iteration == 0) units.push_back(&e);
        QCOMPARE(units.size(), std::size_t{2});
        QCOMPARE(units[0]->unit.pieces.front().tensor, 1);
        QCOMPARE(units[0]->start, l1Start);
        QCOMPARE(units[1]->start, units[0]->end);
        // A latency for some other number of layers is refused, not read past the end.
        w.dispatch_by_layer_ns = {30};
        QVERIFY(!simulateWith(w, PolicyConfig{}, CostModel{50, 0.1, {}}, SimOptions{2, 1}).ok());
    }

    // Horovod's cycle as the runtime keeps it: the iteration begins with the round that the first gradient's news
    // starts, once the comm thread is awake (dispatch_ns after l1's gradient at 400), and the tick a cycle later
    // wakes the thread again (another dispatch_ns): the fused unit starts at 400 + 30 + 1000 + 30. Without the
    // wake-ups (0) it starts on the tick, 1400. (Measured on the small MLP: 110 us between the first gradient plus a
    // cycle and the unit, two wake-ups.) With readiness riding on units the first round costs R (430 to 430 + R); l0,
    // ready at 600, waits for the tick's round as in the runtime, which hears it and sends both: the tick's round
    // starts at 1460 and the unit after it, at 1460 + R (rounds are events of their own, as the runtime traces them).
    // A round of its own for l0 (as when every news started one) would end at 430 + 2R, past the tick when R is 600:
    // the tick's round at 1630.
    void horovodTicksPayTheCommThreadsWakeUps_data() {
        QTest::addColumn<Nanos>("dispatch");
        QTest::addColumn<Nanos>("round");  // 0: readiness does not ride on units (no stand-alone rounds)
        QTest::newRow("wake-ups of 30 ns") << Nanos{30} << Nanos{0};
        QTest::newRow("none") << Nanos{0} << Nanos{0};
        QTest::newRow("riding, short rounds") << Nanos{30} << Nanos{100};
        QTest::newRow("riding, rounds longer than the wait") << Nanos{30} << Nanos{600};
    }
    void horovodTicksPayTheCommThreadsWakeUps() {
        QFETCH(Nanos, dispatch);
        QFETCH(Nanos, round);
        Workload w = twoLayers();
        w.dispatch_ns = dispatch;
        w.readiness_rides_on_units = round > 0;
        CostModel cost{50, 0.1, {}};
        cost.first_unit_extra_ns = static_cast<double>(round);
        PolicyConfig horovod;
        horovod.name = "horovod";
        horovod.cycle_ns = 1000;
        Result<SimResult> r = simulateWith(w, horovod, cost, SimOptions{2, 1});
        QVERIFY2(r.ok(), r.status().message().c_str());
        std::vector<SimEvent> comms, rounds;
        for (const SimEvent& e : r.value().events) {
            if (e.kind == SimEvent::Comm && e.iteration == 0) comms.push_back(e);
            if (e.kind == SimEvent::Round && e.iteration == 0) rounds.push_back(e);
        }
        QCOMPARE(comms.size(), std::size_t{1});
        QCOMPARE(comms.front().unit.pieces.size(), std::size_t{2});  // both gradients in one fused unit
        QCOMPARE(comms.front().start, 400 + dispatch + 1000 + dispatch + round);
        // The first gradient's round, then the tick's, which chose the unit.
        QCOMPARE(rounds.size(), static_cast<std::size_t>(round > 0 ? 2 : 0));
        if (round > 0) {
            QCOMPARE(rounds.front().start, 400 + dispatch);
            QCOMPARE(rounds.back().start, 400 + dispatch + 1000 + dispatch);
            QCOMPARE(rounds.back().end, comms.front().start);
        }
    }

    // The tail after backward (the next batch) delays the next forward, not the gradients: with 100 ns of tail the
    // hand-computed case above keeps its reductions (the link is the bottleneck) and its period of 1300 ns; with
    // 800 ns the compute stream is: 600 + 800 = 1400.
    // Where the worker fills a wait with ready updates (Workload::updates_fill_waits), pace does and the baselines
    // do not (Policy::updatesFillWaits). twoLayers with 300 ns of update a layer, no fusion: l1.w is reduced
    // 400-850 and l0.w 850-1300 in the first iteration, as in handComputedTwoLayers. Each layer's update before its
    // forward: layer 0 waits until 1300, updates (300), forwards, then l1 updates (300) and forwards, backward 400:
    // a period of 1900 ns. Filled: from the backward's end the stream waits for l1.w (its reduction ends before
    // l0.w's), updates l1 while l0.w is on the wire, and then waits for l0.w: l1's update is off the path, 1600 ns.
    void updatesFillTheWaitUnderPaceOnly_data() {
        QTest::addColumn<QString>("policy");
        QTest::addColumn<bool>("fills");
        QTest::addColumn<Nanos>("period");
        QTest::newRow("pace, the worker fills") << "pace" << true << Nanos{1600};
        QTest::newRow("pace, a run that did not fill") << "pace" << false << Nanos{1900};
        QTest::newRow("fifo keeps its updates in order") << "fifo" << true << Nanos{1900};
        QTest::newRow("bytescheduler keeps its updates in order") << "bytescheduler" << true << Nanos{1900};
    }
    void updatesFillTheWaitUnderPaceOnly() {
        QFETCH(QString, policy);
        QFETCH(bool, fills);
        QFETCH(Nanos, period);
        Workload w = twoLayers();
        w.update_ns_per_element = 0.3;
        w.updates_fill_waits = fills;
        PolicyConfig config;
        config.name = policy.toStdString();
        config.segment_bytes = 1 << 20;
        config.fuse_below_bytes = 0;
        Result<SimResult> r = simulateWith(w, config, CostModel{50, 0.1, {}}, SimOptions{4, 1});
        QVERIFY2(r.ok(), r.status().message().c_str());
        const SimFigures& f = r.value().figures;
        QCOMPARE(f.iter_ms, static_cast<double>(period) / 1e6);
        QCOMPARE(f.compute_ms, 1200e-6);  // the same work in another order
        QVERIFY(f.lower_bound_ms <= f.iter_ms);
        // Filled, l1's update of iteration 1 runs before the wait for l0.w ends (at 1300), right after l1.w's
        // reduction (850); in order, after l0's forward.
        Nanos l1Update = -1;
        for (const SimEvent& e : r.value().events)
            if (e.kind == SimEvent::Update && e.iteration == 0 && e.layer == 1) l1Update = e.start;
        QCOMPARE(l1Update, fills && policy == "pace" ? Nanos{850} : Nanos{1700});
    }

    void tailDelaysTheNextForwardOnly_data() {
        QTest::addColumn<Nanos>("tail");
        QTest::addColumn<Nanos>("period");
        QTest::newRow("hidden behind the link") << Nanos{100} << Nanos{1300};
        QTest::newRow("longer than the link") << Nanos{800} << Nanos{1400};
    }
    void tailDelaysTheNextForwardOnly() {
        QFETCH(Nanos, tail);
        QFETCH(Nanos, period);
        Workload w = twoLayers();
        w.tail_ns = tail;
        Result<SimResult> r = simulateWith(w, PolicyConfig{}, CostModel{50, 0.1, {}}, SimOptions{4, 1});
        QVERIFY2(r.ok(), r.status().message().c_str());
        QCOMPARE(r.value().figures.iter_ms, static_cast<double>(period) / 1e6);
        QVERIFY(r.value().figures.lower_bound_ms <= r.value().figures.iter_ms);
        const SimFigures& f = r.value().figures;
        QVERIFY(qAbs(f.compute_ms + f.exposed_comm_ms + f.idle_ms - f.iter_ms) < 1e-12);
    }

    // Busy CPU ranks: each collective's CPU comes out of compute. The hand-computed case on a link twice as fast
    // (50 + 0.05 ns per byte: 250 ns a unit) with 125 ns of CPU per collective (half its span): l1.w runs while
    // layer 0's backward computes, which takes 200 + 0.5 x 250 = 325 ns instead of 200. From the first steady
    // iteration on: forward 200, backward 200 + 325, then l0.w (250): a period of 975 ns against 900 without,
    // and 725 ns of compute against 600. The first iteration knows no units of its own yet (backward 200).
    void collectivesTakeTheirCpuFromCompute_data() {
        QTest::addColumn<double>("cpuNs");
        QTest::addColumn<Nanos>("period");
        QTest::addColumn<Nanos>("compute");
        QTest::newRow("cores to spare") << 0.0 << Nanos{900} << Nanos{600};
        QTest::newRow("busy cores") << 125.0 << Nanos{975} << Nanos{725};
    }
    void collectivesTakeTheirCpuFromCompute() {
        QFETCH(double, cpuNs);
        QFETCH(Nanos, period);
        QFETCH(Nanos, compute);
        Workload w = twoLayers();
        w.comm_cpu.alpha_ns = cpuNs;
        Result<SimResult> r = simulateWith(w, PolicyConfig{}, CostModel{50, 0.05, {}}, SimOptions{5, 2});
        QVERIFY2(r.ok(), r.status().message().c_str());
        const std::vector<Nanos>& starts = r.value().iteration_starts;
        for (std::size_t k = 2; k < starts.size(); ++k) QCOMPARE(starts[k] - starts[k - 1], period);
        QVERIFY(qAbs(r.value().figures.compute_ms - static_cast<double>(compute) / 1e6) < 1e-12);
        QVERIFY(r.value().figures.lower_bound_ms <= r.value().figures.iter_ms);
    }

    // What makes fewer collectives win on a CPU rank: the same bytes in many small segments pay the fixed CPU of
    // each one. Where compute hides the communication (1 ms of backward a layer, at most 1 MB of gradients), 10 us
    // of CPU per collective costs pace in 64 KiB segments more than fifo's whole tensors.
    void manyCollectivesTakeMoreFromCompute() {
        Workload w = syntheticModel(8, 20'000, 500'000, 1'000'000);
        const CostModel cost{20'000, 0.05, {}};
        PolicyConfig pace = paceSegments();
        pace.segment_bytes = 64 * 1024;
        auto iterMs = [&](const PolicyConfig& config, double cpuNs) {
            Workload v = w;
            v.comm_cpu.alpha_ns = cpuNs;
            Result<SimResult> r = simulateWith(v, config, cost, SimOptions{8, 3});
            return r.ok() ? r.value().figures.iter_ms : -1.0;
        };
        const double fifoLoss = iterMs(PolicyConfig{}, 10'000) - iterMs(PolicyConfig{}, 0);
        const double paceLoss = iterMs(pace, 10'000) - iterMs(pace, 0);
        QVERIFY2(fifoLoss >= 0 && paceLoss > fifoLoss,
                 qPrintable(QString("fifo loses %1 ms, pace in segments %2 ms").arg(fifoLoss).arg(paceLoss)));
    }

    // In dynamic CPU order a unit chosen by a stand-alone agreement round carries that round: the hand-computed
    // case with a 100 ns round has l1.w ready at 400 and chosen by the iteration's first round (400-950); l0.w,
    // ready at 600, after l1.w started, was not in the readiness that rode on l1.w, so a round of its own finds it
    // (950-1500): a period of 1500 ns. Where readiness does not ride on the units (plan order) no round is paid.
    void firstUnitPaysTheRoundWhereReadinessRides_data() {
        QTest::addColumn<bool>("rides");
        QTest::addColumn<Nanos>("period");
        QTest::newRow("rides") << true << Nanos{1500};
        QTest::newRow("plan") << false << Nanos{1300};
    }
    void firstUnitPaysTheRoundWhereReadinessRides() {
        QFETCH(bool, rides);
        QFETCH(Nanos, period);
        Workload w = twoLayers();
        w.readiness_rides_on_units = rides;
        CostModel cost{50, 0.1, {}};
        cost.first_unit_extra_ns = 100;
        Result<SimResult> r = simulateWith(w, PolicyConfig{}, cost, SimOptions{4, 1});
        QVERIFY2(r.ok(), r.status().message().c_str());
        QCOMPARE(r.value().figures.iter_ms, static_cast<double>(period) / 1e6);
    }

    // Above the largest size in the cost table the price per byte is the slope of the two largest sizes where bytes
    // are a fair part of their time, else the line's: a table of small units only (a 2-channel run whose larger ones
    // all queued) must not price 256 KiB by the slope of 1 and 5 KiB (34 ns/B here, against the wire's 8.29).
    void costAboveTheTableFollowsTheBytesWhereTheyCount_data() {
        QTest::addColumn<double>("alpha");
        QTest::addColumn<double>("nsPerByte");
        QTest::addColumn<double>("x0");
        QTest::addColumn<double>("y0");
        QTest::addColumn<double>("x1");
        QTest::addColumn<double>("y1");
        QTest::addColumn<double>("bytes");
        QTest::addColumn<double>("slope");
        QTest::newRow("bytes count: the two largest") << 100'000.0 << 1.0 << 65536.0 << 160'000.0 << 262144.0
                                                      << 400'000.0 << 524288.0 << 240'000.0 / 196'608.0;
        QTest::newRow("fixed costs dominate: the line") << 94'000.0 << 8.29 << 1024.0 << 113'000.0 << 5120.0
                                                        << 254'000.0 << 262144.0 << 8.29;
    }
    void costAboveTheTableFollowsTheBytesWhereTheyCount() {
        QFETCH(double, alpha);
        QFETCH(double, nsPerByte);
        QFETCH(double, x0);
        QFETCH(double, y0);
        QFETCH(double, x1);
        QFETCH(double, y1);
        QFETCH(double, bytes);
        QFETCH(double, slope);
        const CostModel cost{alpha, nsPerByte, {{x0, y0}, {x1, y1}}};
        QCOMPARE(cost.at(static_cast<std::size_t>(bytes)), static_cast<Nanos>(std::llround(y1 + slope * (bytes - x1))));
    }

    // On one channel the comm thread's gap goes before every unit that follows another directly. Fifo (units of
    // 450 ns): l1.w 400-850, l0.w right behind it, 850+G to 1300+G: a period of 1300 + G (the next iteration's l1.w
    // waits for its backward, not for the link). Pace in 2000-byte segments of 250 ns, l0.w one segment and l1.w
    // eight: l1's first segment from 400, l0.w (ready at 600) preempts at its end, then l1's other seven as one run:
    // 8 gaps in a chain the next iteration's forward of l1 waits for, a period of 2550 + 8 G.
    void unitsBackToBackPayTheCommThreadsGap_data() {
        QTest::addColumn<QString>("policy");
        QTest::addColumn<double>("gap");
        QTest::addColumn<Nanos>("period");
        QTest::newRow("fifo, no gap") << "fifo" << 0.0 << Nanos{1300};
        QTest::newRow("fifo, gap 30") << "fifo" << 30.0 << Nanos{1330};
        QTest::newRow("pace segments, no gap") << "pace" << 0.0 << Nanos{2550};
        QTest::newRow("pace segments, gap 30") << "pace" << 30.0 << Nanos{2790};
    }
    void unitsBackToBackPayTheCommThreadsGap() {
        QFETCH(QString, policy);
        QFETCH(double, gap);
        QFETCH(Nanos, period);
        const bool pace = policy == "pace";
        PolicyConfig config = pace ? paceSegments() : PolicyConfig{};
        const Workload w = pace ? twoLayers(500, 4000) : twoLayers();
        CostModel cost{50, 0.1, {}};
        cost.unit_gap_ns = gap;
        Result<SimResult> r = simulateWith(w, config, cost, SimOptions{4, 1});
        QVERIFY2(r.ok(), r.status().message().c_str());
        QCOMPARE(r.value().figures.iter_ms, static_cast<double>(period) / 1e6);
    }

    // Pace with segments of 250 ns; l1 is ready at 400, l0 (one unit) at 600, during l1's first segment. With a
    // round before every decision l0 preempts at 650. When readiness rides on the units, the decision at 650 knows
    // only what was ready at 400, so l1's second segment goes first; the one at 900 knows what was ready at 650,
    // l0 - one unit late, not late until the link runs dry (l1 in four segments: l0 still goes third).
    void readinessRidingOnUnitsIsHeardOneUnitLater_data() {
        QTest::addColumn<std::size_t>("l1Elements");
        QTest::addColumn<bool>("rides");
        QTest::addColumn<QList<int>>("tensors");
        QTest::newRow("2 segments, round per decision") << std::size_t{1000} << false << QList<int>{1, 0, 1};
        QTest::newRow("2 segments, rides on units") << std::size_t{1000} << true << QList<int>{1, 1, 0};
        QTest::newRow("4 segments, round per decision") << std::size_t{2000} << false << QList<int>{1, 0, 1, 1, 1};
        QTest::newRow("4 segments, rides on units") << std::size_t{2000} << true << QList<int>{1, 1, 0, 1, 1};
    }
    void readinessRidingOnUnitsIsHeardOneUnitLater() {
        QFETCH(std::size_t, l1Elements);
        QFETCH(bool, rides);
        QFETCH(QList<int>, tensors);
        Workload w = twoLayers(500, l1Elements);
        w.readiness_rides_on_units = rides;
        Result<SimResult> r = simulateWith(w, paceSegments(), CostModel{50, 0.1, {}}, SimOptions{2, 1});
        QVERIFY2(r.ok(), r.status().message().c_str());
        QList<int> order;
        for (const CommUnit& u : r.value().order) order.push_back(u.pieces.front().tensor);
        QCOMPARE(order, tensors);
    }

    // One layer, two tensors ready together at 300; each costs 2000 ns, of which 1000 are its bytes on the wire.
    // One channel: 300-2300, 2300-4300. Two: the second starts at 300 too, its fixed part hides behind the first's
    // bytes, and its own bytes follow them: done at 3300. With no fixed part there is nothing to hide: both
    // 2300, as the bytes share one wire.
    void channelsHideOnlyTheFixedCost_data() {
        QTest::addColumn<double>("alpha");
        QTest::addColumn<int>("channels");
        QTest::addColumn<Nanos>("period");
        QTest::newRow("fixed cost, 1 channel") << 1000.0 << 1 << Nanos{4300};
        QTest::newRow("fixed cost, 2 channels") << 1000.0 << 2 << Nanos{3300};
        QTest::newRow("fixed cost, 3 channels") << 1000.0 << 3 << Nanos{3300};
        QTest::newRow("bytes only, 1 channel") << 0.0 << 1 << Nanos{2300};
        QTest::newRow("bytes only, 2 channels") << 0.0 << 2 << Nanos{2300};
    }
    void channelsHideOnlyTheFixedCost() {
        QFETCH(double, alpha);
        QFETCH(int, channels);
        QFETCH(Nanos, period);
        Workload w;
        w.layers = {{"l0", 100, 200}};
        w.tensors = {{0, "l0.w", 0, 1000}, {1, "l0.b", 0, 1000}};
        w.channels = channels;
        Result<SimResult> r = simulateWith(w, PolicyConfig{}, CostModel{alpha, 0.25, {}}, SimOptions{4, 1});
        QVERIFY2(r.ok(), r.status().message().c_str());
        const auto& starts = r.value().iteration_starts;
        QCOMPARE(starts[2] - starts[1], period);
        QCOMPARE(r.value().figures.iter_ms, static_cast<double>(period) / 1e6);
        QVERIFY(r.value().figures.lower_bound_ms <= r.value().figures.iter_ms);
        QCOMPARE(r.value().order.size(), std::size_t{2});
    }

    // A head without gradients of its own at the output (GPT-2's LM head is tied to the embedding): l2 computes
    // 900 ns an iteration and owns no bytes. Between the start of l1's forward (after l1's reduction) and the end of
    // l1's backward (before which nothing of the next iteration is ready) the link has nothing to carry: 1200 ns
    // on top of every byte in one unit (50 + 44000 x 0.1 = 4450), less 1 ns for rounding. Comm alone said 4449,
    // compute with layer 0's reduction 1950. Fifo reaches 5800: t1 4050 from l1's backward, t0 450, then the
    // forward of l0 after t0 and on to l1's backward, 1300, with the link idle.
    void outputSideBoundsTheLinkIdle() {
        Workload w;
        w.layers = {{"l0", 100, 200}, {"l1", 100, 200}, {"head", 300, 600}};
        w.tensors = {{0, "l0.w", 0, 1000}, {1, "l1.w", 1, 10000}};
        Result<SimResult> r = simulateWith(w, PolicyConfig{}, CostModel{50, 0.1, {}}, SimOptions{4, 1});
        QVERIFY2(r.ok(), r.status().message().c_str());
        QCOMPARE(r.value().figures.iter_ms, 5800e-6);
        QVERIFY(qAbs(r.value().figures.lower_bound_ms - 5649e-6) <= 1e-9);
        QVERIFY(qAbs(lowerBoundMs(w, CostModel{50, 0.1, {}}) - 5649e-6) <= 1e-9);
    }

    void lowerBoundNeverAboveSimulated_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("policy");
        QTest::addColumn<double>("gbps");
        QTest::addColumn<int>("channels");
        for (const char* model : {"resnet50", "vgg16", "bert_base", "gpt2_small", "synthetic"})
            for (const std::string& policy : policyNames())
                for (double gbps : {1.0, 10.0, 100.0})
                    for (int channels : {1, 3})
                        QTest::addRow("%s/%s/%g/%dch", model, policy.c_str(), gbps, channels)
                            << model << QString::fromStdString(policy) << gbps << channels;
    }
    void lowerBoundNeverAboveSimulated() {
        QFETCH(QString, model);
        QFETCH(QString, policy);
        QFETCH(double, gbps);
        QFETCH(int, channels);
        PolicyConfig config;
        config.name = policy.toStdString();
        WhatIf whatIf;
        whatIf.link_gbps = gbps;
        whatIf.link_latency_us = 5;
        whatIf.channels = channels;
        // Also as a CPU run whose updates fill the waits (Workload::updates_fill_waits), which lowers the bound too.
        for (bool fills : {false, true}) {
            Workload w = modelNamed(model);
            w.updates_fill_waits = fills;
            Result<ReplayResult> r = replay(w, CostModel{}, config, whatIf);
            QVERIFY2(r.ok(), r.status().message().c_str());
            const SimFigures& f = r.value().sim.figures;
            QVERIFY2(f.lower_bound_ms <= f.iter_ms * (1 + 1e-12),
                     qPrintable(QString("bound %1 ms above simulated %2 ms").arg(f.lower_bound_ms).arg(f.iter_ms)));
            QVERIFY(f.lower_bound_ms > 0);
            // The figures add up: every iteration is compute, exposed communication or idle.
            QVERIFY(qAbs(f.compute_ms + f.exposed_comm_ms + f.idle_ms - f.iter_ms) < 1e-9 * f.iter_ms + 1e-12);
            QVERIFY(f.overlap >= 0 && f.overlap <= 1);
            QVERIFY(qAbs(f.comm_ms * (1 - f.overlap) - f.exposed_comm_ms) < 1e-9);
        }
    }

    // Runs of segments (SimOptions::segment_runs) change the events only: the same figures, iteration starts,
    // compute events and units (each run standing for the segments simulated one by one), with and without readiness riding on the units and CPU taken from
    // compute (and with it the comm thread's gap between back-to-back units), for each policy that cuts segments; and
    // at small segments the events are far fewer.
    void segmentRunsChangeOnlyTheEvents_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("policy");
        QTest::addColumn<int>("credit");
        QTest::addColumn<bool>("reversed");  // manual: output-side tensors first, so priorities preempt differently
        QTest::addColumn<qint64>("segment");
        QTest::addColumn<bool>("rides");
        QTest::addColumn<double>("cpuNs");
        struct Shape {
            const char* policy;
            int credit;
            bool reversed;
        };
        for (const char* model : {"resnet50", "gpt2_small", "synthetic"})
            for (const Shape& p : {Shape{"pace", 1, false}, Shape{"manual", 1, true}, Shape{"bytescheduler", 1, false},
                                   Shape{"bytescheduler", 4, false}})
                for (qint64 segment : {qint64{16} << 10, qint64{1} << 20})
                    for (bool rides : {false, true})
                        for (double cpuNs : {0.0, 20'000.0})
                            QTest::addRow("%s/%s%s%s/%lldKiB/%s/cpu%g", model, p.policy, p.credit > 1 ? "-credit4" : "",
                                          p.reversed ? "-reversed" : "", segment >> 10, rides ? "rides" : "plan", cpuNs)
                                << model << p.policy << p.credit << p.reversed << segment << rides << cpuNs;
    }
    void segmentRunsChangeOnlyTheEvents() {
        QFETCH(QString, model);
        QFETCH(QString, policy);
        QFETCH(int, credit);
        QFETCH(bool, reversed);
        QFETCH(qint64, segment);
        QFETCH(bool, rides);
        QFETCH(double, cpuNs);
        Workload w = modelNamed(model);
        w.readiness_rides_on_units = rides;
        w.comm_cpu.alpha_ns = cpuNs;
        w.comm_cpu.ns_per_byte = cpuNs > 0 ? 0.2 : 0;
        PolicyConfig config;
        config.name = policy.toStdString();
        config.segment_bytes = static_cast<std::size_t>(segment);
        config.credit = credit;
        if (reversed)
            for (const TensorInfo& t : w.tensors) config.priorities.push_back(static_cast<int>(w.tensors.size()) - t.id);
        CostModel cost{30'000, 0.8, {}};
        cost.first_unit_extra_ns = rides ? 15'000 : 0;
        cost.unit_gap_ns = cpuNs > 0 ? 4'000 : 0;
        SimOptions options{4, 2};
        Result<SimResult> every = simulateWith(w, config, cost, options);
        options.segment_runs = true;
        Result<SimResult> runs = simulateWith(w, config, cost, options);
        QVERIFY2(every.ok(), every.status().message().c_str());
        QVERIFY2(runs.ok(), runs.status().message().c_str());
        const SimResult& a = every.value();
        const SimResult& b = runs.value();
        QCOMPARE(b.iteration_starts, a.iteration_starts);
        QCOMPARE(b.figures.iter_ms, a.figures.iter_ms);
        QCOMPARE(b.figures.compute_ms, a.figures.compute_ms);
        QCOMPARE(b.figures.comm_ms, a.figures.comm_ms);
        QCOMPARE(b.figures.exposed_comm_ms, a.figures.exposed_comm_ms);
        // The comm events: each run stands for the units simulated one by one, from the first's start to the last's
        // end; every compute event is where it was.
        std::vector<const SimEvent*> units;  // every-unit comm events
        std::size_t computeA = 0, computeB = 0, runEvents = 0;  // compute events of each, comm events with runs
        for (const SimEvent& e : a.events) {
            if (e.kind == SimEvent::Comm) units.push_back(&e);
            else ++computeA;
        }
        std::size_t next = 0;
        for (const SimEvent& e : b.events) {
            if (e.kind != SimEvent::Comm) {
                ++computeB;
                continue;
            }
            ++runEvents;
            QVERIFY(e.units >= 1);
            QVERIFY2(next + static_cast<std::size_t>(e.units) <= units.size(), "more units than simulated one by one");
            QCOMPARE(e.start, units[next]->start);
            QCOMPARE(e.end, units[next + e.units - 1]->end);
            for (int i = 0; i < e.units; ++i) {
                const CommUnit& x = units[next + i]->unit;
                if (e.units == 1) {
                    QCOMPARE(e.unit.pieces.size(), x.pieces.size());
                    for (std::size_t p = 0; p < x.pieces.size(); ++p)
                        QVERIFY(e.unit.pieces[p].tensor == x.pieces[p].tensor && e.unit.pieces[p].offset == x.pieces[p].offset &&
                                e.unit.pieces[p].count == x.pieces[p].count);
                    continue;
                }
                const Piece& span = e.unit.pieces.front();
                const std::size_t begin = static_cast<std::size_t>(i) * e.unit_elements;
                QCOMPARE(x.pieces.size(), std::size_t{1});
                QVERIFY2(x.pieces[0].tensor == span.tensor && x.pieces[0].segment == span.segment + i &&
                             x.pieces[0].offset == span.offset + begin &&
                             x.pieces[0].count == std::min(e.unit_elements, span.count - begin),
                         qPrintable(QString("unit %1 of a run differs").arg(next + i)));
            }
            next += static_cast<std::size_t>(e.units);
        }
        QCOMPARE(next, units.size());
        QCOMPARE(computeB, computeA);
        std::vector<const SimEvent*> computeOfA, computeOfB;
        for (const SimEvent& e : a.events)
            if (e.kind != SimEvent::Comm) computeOfA.push_back(&e);
        for (const SimEvent& e : b.events)
            if (e.kind != SimEvent::Comm) computeOfB.push_back(&e);
        for (std::size_t i = 0; i < computeOfA.size(); ++i)
            QVERIFY2(computeOfA[i]->kind == computeOfB[i]->kind && computeOfA[i]->layer == computeOfB[i]->layer &&
                         computeOfA[i]->start == computeOfB[i]->start && computeOfA[i]->end == computeOfB[i]->end,
                     qPrintable(QString("compute event %1 moved").arg(i)));
        if (credit == 1 && segment <= (16 << 10))  // the shortcut engages: a run stands for many segments
            QVERIFY2(runEvents * 4 < units.size(), qPrintable(QString("%1 events for %2 units").arg(runEvents).arg(units.size())));
    }

    void deterministic_data() { addModelPolicyRows(); }
    void deterministic() {
        QFETCH(QString, model);
        QFETCH(QString, policy);
        PolicyConfig config;
        config.name = policy.toStdString();
        const Workload w = modelNamed(model);
        Result<ReplayResult> a = replay(w, CostModel{}, config, WhatIf{});
        Result<ReplayResult> b = replay(w, CostModel{}, config, WhatIf{});
        QVERIFY(a.ok() && b.ok());
        const auto& ea = a.value().sim.events;
        const auto& eb = b.value().sim.events;
        QCOMPARE(ea.size(), eb.size());
        for (std::size_t i = 0; i < ea.size(); ++i) {
            QCOMPARE(ea[i].kind, eb[i].kind);
            QCOMPARE(ea[i].start, eb[i].start);
            QCOMPARE(ea[i].end, eb[i].end);
            QCOMPARE(ea[i].unit.bytes(), eb[i].unit.bytes());
        }
        QCOMPARE(a.value().sim.figures.iter_ms, b.value().sim.figures.iter_ms);
    }

    void fasterLinkNeverSlower_data() { addModelPolicyRows(); }
    void fasterLinkNeverSlower() {
        QFETCH(QString, model);
        QFETCH(QString, policy);
        PolicyConfig config;
        config.name = policy.toStdString();
        const Workload w = modelNamed(model);
        double previous = std::numeric_limits<double>::infinity();
        for (double gbps : {1.0, 2.5, 10.0, 25.0, 100.0, 400.0}) {
            WhatIf whatIf;
            whatIf.link_gbps = gbps;
            Result<ReplayResult> r = replay(w, CostModel{}, config, whatIf);
            QVERIFY2(r.ok(), r.status().message().c_str());
            const double t = r.value().sim.figures.iter_ms;
            QVERIFY2(t <= previous * (1 + 1e-9),
                     qPrintable(QString("%1 Gb/s: %2 ms, slower link: %3 ms").arg(gbps).arg(t).arg(previous)));
            previous = t;
        }
        // And lower latency, faster compute: never slower either.
        WhatIf slow, fast;
        slow.link_latency_us = 50;
        fast.link_latency_us = 5;
        QVERIFY(replay(w, CostModel{}, config, fast).value().sim.figures.iter_ms <=
                replay(w, CostModel{}, config, slow).value().sim.figures.iter_ms);
        fast = WhatIf{};
        fast.compute_speed = 2;
        QVERIFY(replay(w, CostModel{}, config, fast).value().sim.figures.iter_ms <
                replay(w, CostModel{}, config, WhatIf{}).value().sim.figures.iter_ms);
    }

    // Layer i's next forward never starts before layer i's gradients are reduced (and, under ddp, before all).
    void crossIterationDependencies_data() { addModelPolicyRows(); }
    void crossIterationDependencies() {
        QFETCH(QString, model);
        QFETCH(QString, policy);
        PolicyConfig config;
        config.name = policy.toStdString();
        const Workload w = modelNamed(model);
        Result<ReplayResult> r = replay(w, CostModel{}, config, WhatIf{});
        QVERIFY(r.ok());
        std::map<std::pair<int, int>, Nanos> reduced;  // (iteration, layer) -> last reduction end
        std::map<int, Nanos> allReduced;
        for (const SimEvent& e : r.value().sim.events)
            if (e.kind == SimEvent::Comm)
                for (const Piece& p : e.unit.pieces) {
                    Nanos& t = reduced[{e.iteration, w.tensors[p.tensor].layer}];
                    t = std::max(t, e.end);
                    allReduced[e.iteration] = std::max(allReduced[e.iteration], e.end);
                }
        int checked = 0;
        for (const SimEvent& e : r.value().sim.events) {
            if (e.kind != SimEvent::Forward || e.iteration == 0) continue;
            const Nanos needed = policy == "ddp" ? allReduced[e.iteration - 1] : reduced[{e.iteration - 1, e.layer}];
            QVERIFY2(e.start >= needed, qPrintable(QString("forward of layer %1 at %2 before its reduction at %3")
                                                       .arg(e.layer)
                                                       .arg(e.start)
                                                       .arg(needed)));
            ++checked;
        }
        QCOMPARE(checked, 3 * static_cast<int>(w.layers.size()));
    }

    void ddpBucketsFollowPyTorch_data() {
        QTest::addColumn<QString>("model");
        for (const char* model : {"resnet50", "vgg16", "bert_base", "gpt2_small", "synthetic"})
            QTest::newRow(model) << model;
    }
    void ddpBucketsFollowPyTorch() {
        QFETCH(QString, model);
        const Workload w = modelNamed(model);
        PolicyConfig config;
        config.name = "ddp";
        Result<ReplayResult> r = replay(w, CostModel{}, config, WhatIf{});
        QVERIFY(r.ok());
        std::vector<std::vector<int>> seen;
        for (const CommUnit& u : r.value().sim.order) {
            seen.emplace_back();
            for (const Piece& p : u.pieces) {
                QCOMPARE(p.count, w.tensors[p.tensor].elements);  // DDP never cuts a tensor
                seen.back().push_back(p.tensor);
            }
        }
        const auto expected = pytorchBuckets(w, config.first_bucket_bytes, config.bucket_bytes);
        QCOMPARE(seen.size(), expected.size());
        for (std::size_t b = 0; b < expected.size(); ++b) QCOMPARE(seen[b], expected[b]);
    }

    void stalledPolicyIsAnError() {
        const Workload w = syntheticModel(3, 1000, 100, 200);
        SilentPolicy silent;
        Result<SimResult> r = simulate(w, silent, CostModel{}, SimOptions{});
        QVERIFY(!r.ok());
        QVERIFY2(r.status().message().find("stalled") != std::string::npos, r.status().message().c_str());
    }

    void malformedWorkloadIsAnError_data() {
        QTest::addColumn<int>("breakage");
        QTest::addColumn<QString>("error");
        QTest::newRow("no layers") << 0 << "no layers";
        QTest::newRow("bad id") << 1 << "has id";
        QTest::newRow("bad layer") << 2 << "names layer";
        QTest::newRow("empty tensor") << 3 << "no elements";
        QTest::newRow("negative time") << 4 << "negative";
        QTest::newRow("no iterations") << 5 << "at least 1 iteration";
        QTest::newRow("no channel") << 6 << "channels must be 1..16";
    }
    void malformedWorkloadIsAnError() {
        QFETCH(int, breakage);
        QFETCH(QString, error);
        Workload w = syntheticModel(3, 1000, 100, 200);
        SimOptions options;
        switch (breakage) {
            case 0:
                w.layers.clear();
                break;
            case 1:
                w.tensors[1].id = 5;
                break;
            case 2:
                w.tensors[1].layer = 9;
                break;
            case 3:
                w.tensors[2].elements = 0;
                break;
            case 4:
                w.layers[1].backward = -1;
                break;
            case 5:
                options.iterations = 0;
                break;
            case 6:
                w.channels = 0;
                break;
        }
        auto policy = makePolicy(PolicyConfig{}, syntheticModel(3, 1000, 100, 200).tensors);
        QVERIFY(policy.ok());
        Result<SimResult> r = simulate(w, *policy.value(), CostModel{}, options);
        QVERIFY(!r.ok());
        QVERIFY2(QString::fromStdString(r.status().message()).contains(error), r.status().message().c_str());
    }
};

QTEST_GUILESS_MAIN(TestSimulator)
#include "tst_simulator.moc"
