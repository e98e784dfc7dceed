// What replay reads off an observed run for its workload (engine/replay/observed_run.cpp, observed_wakeups.cpp):
// per-layer times through the latest rank, what collectives took from compute, the untraced time, the threads' wake-up
// latencies and Horovod's tick; and the run's model: outlier iterations set aside, stalls, the ranks' unevenness,
// per-iteration estimates. And the runs it refuses.
#include <QtTest>

#include <numeric>
#include <set>

#include "engine/plan.h"
#include "engine/policy_config.h"
#include "engine/replay/observed_plan.h"
#include "engine/replay/observed_run.h"
#include "engine/replay/replay.h"
#include "observed_runs.h"
#include "test_models.h"

using namespace pacer::engine;
using namespace pacer::engine::testing;
using pacer::test::syntheticModel;
using pacer::test::zooModel;

class TestReplayExtraction : public QObject {
    Q_OBJECT

private slots:
    // A Horovod tick starts its round late by the comm threads' timed wake-up (Workload::timer_wake_ns): replay reads
    // it off the rounds (the one after the iteration's first, a cycle on, at its last join) and replays the run as
    // itself. Begun on the tick, the small MLP's Horovod runs at 10 Gb/s (39-43 us late) replayed 1.3-1.8% too fast.
    // And the runtime begins the cycle at rank 0's entry into the first round, earlier than the last rank's by however
    // far rank 0's backward ran ahead (Workload::tick_anchor_lead_ns): in the row where rank 0 entered it 300 us
    // early and waited there, replay reads the lead too (read without it, the cycle began 300 us late, and the ticks
    // with it: the same truth begun at the last rank's round takes over 1% longer).
    void horovodTicksStartAsLateAsTheRunsDid_data() {
        QTest::addColumn<int>("layers");
        QTest::addColumn<Nanos>("backward");
        QTest::addColumn<Nanos>("late");
        QTest::addColumn<Nanos>("lead");
        for (const Nanos late : {Nanos{0}, Nanos{40'000}, Nanos{150'000}}) {
            QTest::addRow("small, %lld us late", static_cast<long long>(late / 1000))
                << 4 << Nanos{100'000} << late << Nanos{0};
            QTest::addRow("deep, %lld us late", static_cast<long long>(late / 1000))
                << 16 << Nanos{400'000} << late << Nanos{0};
        }
        QTest::addRow("small, 60 us late, rank 0 300 us ahead")
            << 4 << Nanos{100'000} << Nanos{60'000} << Nanos{300'000};
    }
    void horovodTicksStartAsLateAsTheRunsDid() {
        QFETCH(int, layers);
        QFETCH(Nanos, backward);
        QFETCH(Nanos, late);
        QFETCH(Nanos, lead);
        CostModel cost{70'000, 0.8, {}};
        Workload truth = dynamicOrderTruth(layers, backward, false, cost);
        truth.timer_wake_ns = late;
        truth.tick_anchor_lead_ns = lead;
        PolicyConfig horovod;
        horovod.name = "horovod";
        horovod.cycle_ns = 1'000'000;
        Result<ReplayResult> ran = replay(truth, cost, horovod, WhatIf{}, SimOptions{8, 2});
        QVERIFY(ran.ok());
        ObservedRun observed = toObservedRun(truth, ran.value().sim, "horovod");
        observed.cycle_ns = horovod.cycle_ns;  // what app::inputFromRun reads from the run's settings
        std::vector<ObservedSpan*> rankZeroRounds;
        for (ObservedSpan& s : observed.spans)
            if (s.kind == ObservedSpan::Round && s.rank == 0) rankZeroRounds.push_back(&s);
        std::sort(rankZeroRounds.begin(), rankZeroRounds.end(), [](auto* a, auto* b) { return a->start < b->start; });
        std::set<int> firstSeen;
        for (ObservedSpan* s : rankZeroRounds)
            if (firstSeen.insert(s->iteration).second) s->start -= lead;
        Workload extracted = extractWorkload(observed).value();
        QVERIFY2(qAbs(extracted.timer_wake_ns - late) <= 1'000, qPrintable(QString::number(extracted.timer_wake_ns)));
        QVERIFY2(qAbs(extracted.tick_anchor_lead_ns - lead) <= 1'000,
                 qPrintable(QString::number(extracted.tick_anchor_lead_ns)));
        Result<CostModel> fitted = fitCostModel(observed);
        QVERIFY(fitted.ok());
        Result<ReplayResult> predicted = replay(extracted, fitted.value(), horovod, WhatIf{});
        QVERIFY(predicted.ok());
        const double simulated = ran.value().sim.figures.iter_ms;
        qInfo("predicted %.3f ms, simulated %.3f ms", predicted.value().sim.figures.iter_ms, simulated);
        QVERIFY2(qAbs(predicted.value().sim.figures.iter_ms / simulated - 1) < 0.005,
                 qPrintable(QString::number(predicted.value().sim.figures.iter_ms)));
        if (lead > 0) {
            Workload together = truth;
            together.tick_anchor_lead_ns = 0;
            Result<ReplayResult> begunLater = replay(together, cost, horovod, WhatIf{}, SimOptions{8, 2});
            QVERIFY(begunLater.ok());
            QVERIFY2(qAbs(begunLater.value().sim.figures.iter_ms / simulated - 1) > 0.01,
                     "the lead no longer matters here");
        }
    }

    // A noisy source: one steady iteration of eleven lost a core for 50 ms on one rank. modelObservedRun sets it
    // aside (the workload is the truth's again), keeps one estimate per other steady iteration, and the band of a
    // prediction holds the prediction; with identical iterations it has no width at all.
    void outlierIterationIsSetAsideAndTheBandHoldsThePrediction() {
        const Workload truth = syntheticModel(6, 16'384, 50'000, 200'000);
        PolicyConfig fifo;
        fifo.name = "fifo";
        ObservedRun run = simulatedFifoCapture(truth);
        QVERIFY(!run.spans.empty());

        Result<ObservedModel> clean = modelObservedRun(run);
        QVERIFY2(clean.ok(), clean.status().message().c_str());
        QVERIFY(clean.value().set_aside.empty());
        // Iterations 1..10: 0 warms up, and 11, the last, was never followed by its optimizer step.
        QCOMPARE(clean.value().iterations.size(), std::size_t{10});
        Result<ReplayResult> r = replay(clean.value().workload, clean.value().cost, fifo, WhatIf{}, SimOptions{},
                                        clean.value().iterations);
        QVERIFY(r.ok());
        QCOMPARE(r.value().band.iteration_ms.size(), std::size_t{10});
        QVERIFY(qAbs(r.value().band.high_ms - r.value().band.low_ms) < 1e-6);
        QVERIFY(r.value().band.low_ms <= r.value().sim.figures.iter_ms + 1e-9);
        QVERIFY(r.value().sim.figures.iter_ms <= r.value().band.high_ms + 1e-9);

        stallRank0InIteration5(run);
        Result<ObservedModel> noisy = modelObservedRun(run);
        QVERIFY2(noisy.ok(), noisy.status().message().c_str());
        QCOMPARE(noisy.value().set_aside, std::vector<int>{5});
        QCOMPARE(noisy.value().iterations.size(), std::size_t{9});
        QCOMPARE(noisy.value().workload.layers[2].backward, truth.layers[2].backward);
        // Without setting it aside, the mean would carry a fifth of a second's worth of it.
        QVERIFY(extractWorkload(run).value().layers[2].backward > truth.layers[2].backward + 1'000'000);

        // The stall is still part of the run's mean period, and of the mean of a run predicted from it: its 50 ms
        // over the ten steady iterations a mean counts (1..10; the last drains the link), 5 ms per iteration, as
        // idle time on top of the clean prediction and its bound.
        QCOMPARE(clean.value().workload.stall_ns, Nanos{0});
        QVERIFY2(qAbs(noisy.value().workload.stall_ns - 5'000'000) < 50'000,
                 qPrintable(QString("stall %1 ns per iteration").arg(noisy.value().workload.stall_ns)));
        Result<ReplayResult> stalled = replay(noisy.value().workload, noisy.value().cost, fifo, WhatIf{}, SimOptions{},
                                              noisy.value().iterations);
        QVERIFY(stalled.ok());
        const SimFigures& f = stalled.value().sim.figures;
        const SimFigures& c = r.value().sim.figures;
        QCOMPARE(f.stall_ms, noisy.value().workload.stall_ns / 1e6);
        QVERIFY(qAbs(f.iter_ms - (c.iter_ms + f.stall_ms)) < 1e-3);
        QVERIFY(qAbs(f.lower_bound_ms - (c.lower_bound_ms + f.stall_ms)) < 1e-3);
        QVERIFY(qAbs(f.compute_ms + f.exposed_comm_ms + f.idle_ms - f.iter_ms) < 1e-9);
        // The band spans a run without the stall (its iterations, each replayed alone) and one with it.
        QVERIFY(stalled.value().band.low_ms <= c.iter_ms + 1e-9);
        QVERIFY(stalled.value().band.high_ms >= f.iter_ms - 1e-9);
    }

    // ObservedModel::for_another, for replaying another schedule: where collectives take CPU from compute, each
    // rank's step times evened out per iteration to the ranks' mean plus the rank's usual offset. Here layer 2's
    // backward runs 400 us longer on one rank: ranks that take turns at it (rank 0 in even iterations, rank 1 in odd
    // ones) leave half of it behind, whole iterations and each one alike; a rank that is always the slower one stays
    // so; without CPU taken by collectives the ranks' unevenness is their own and there is no such model.
    void anotherScheduleLeavesTheRanksUnevennessBehind_data() {
        QTest::addColumn<bool>("takeTurns");
        QTest::addColumn<bool>("cpu");
        QTest::addColumn<double>("leftBehind");  // of what the 400 us added to the own model; < 0: no for_another
        QTest::addRow("ranks take turns") << true << true << 0.5;
        QTest::addRow("rank 1 always the slower") << false << true << 0.0;
        QTest::addRow("collectives take no CPU") << true << false << -1.0;
    }
    void anotherScheduleLeavesTheRanksUnevennessBehind() {
        QFETCH(bool, takeTurns);
        QFETCH(bool, cpu);
        QFETCH(double, leftBehind);
        const Workload truth = syntheticModel(6, 16'384, 50'000, 200'000);
        ObservedRun run = simulatedFifoCapture(truth, 22);
        QVERIFY(!run.spans.empty());
        run.comm_cpu = cpu ? CommCpu{1'000, 0.0} : CommCpu{};  // a microsecond a collective: nothing to speak of
        Result<ObservedModel> even = modelObservedRun(run);
        QVERIFY2(even.ok(), even.status().message().c_str());
        for (ObservedSpan& s : run.spans)
            if (s.kind == ObservedSpan::Backward && s.layer == 2 && s.rank == (takeTurns ? s.iteration % 2 : 1))
                s.end += 400'000;
        Result<ObservedModel> model = modelObservedRun(run);
        QVERIFY2(model.ok(), model.status().message().c_str());
        if (leftBehind < 0) {
            QVERIFY(!model.value().for_another.has_value());
            return;
        }
        QVERIFY(model.value().for_another.has_value());
        const ObservedModel::ForAnother& another = *model.value().for_another;
        // What the longer spans added to the run's own model (a little less than their 400 us: the next layer's
        // start moved too), and how much of that for_another has not.
        const double extra = model.value().workload.layers[2].backward - even.value().workload.layers[2].backward;
        QVERIFY2(extra > 300'000, qPrintable(QString::number(extra)));
        const auto behind = [&](const Workload& own, const Workload& evened) {
            return static_cast<double>(own.layers[2].backward - evened.layers[2].backward) / extra;
        };
        // Within 1/42: of the 21 counted iterations (1..21) rank 1 took 11, and its usual offset keeps that one.
        QVERIFY2(qAbs(behind(model.value().workload, another.workload) - leftBehind) < 0.03,
                 qPrintable(QString::number(behind(model.value().workload, another.workload))));
        QCOMPARE(another.iterations.size(), model.value().iterations.size());
        for (std::size_t i = 0; i < another.iterations.size(); ++i) {
            QCOMPARE(another.iterations[i].iteration, model.value().iterations[i].iteration);
            const double b = behind(model.value().iterations[i].workload, another.iterations[i].workload);
            QVERIFY2(qAbs(b - leftBehind) < 0.03, qPrintable(QString("iteration %1: %2").arg(i).arg(b)));
        }
        // Only the layer times differ: the rest is the run's.
        QCOMPARE(another.workload.dispatch_ns, model.value().workload.dispatch_ns);
        QCOMPARE(another.workload.layers[0].forward, model.value().workload.layers[0].forward);
    }

    // The machine's stalls are not the schedule's: a replay of another schedule pays them as the run's own does. Until
    // 2026-12-05 for_another left them out, so that on CPU ranks every prediction of another schedule was short of
    // the source's stalls (seven grids of bench_prediction: signed mean error per run -1.0%, with them +0.1%).
    void anotherSchedulePaysTheRunsStalls() {
        const Workload truth = syntheticModel(6, 16'384, 50'000, 200'000);
        ObservedRun run = simulatedFifoCapture(truth, 22);
        run.comm_cpu = CommCpu{1'000, 0.0};  // collectives take CPU: for_another is set
        stallRank0InIteration5(run);
        Result<ObservedModel> model = modelObservedRun(run);
        QVERIFY2(model.ok(), model.status().message().c_str());
        QCOMPARE(model.value().set_aside, std::vector<int>{5});
        QVERIFY(model.value().workload.stall_ns > 1'000'000);
        QVERIFY(model.value().for_another.has_value());
        QCOMPARE(model.value().for_another->workload.stall_ns, model.value().workload.stall_ns);
        PolicyConfig pace;
        pace.name = "pace";
        Result<ReplayResult> r = replay(model.value().for_another->workload, model.value().cost, pace, WhatIf{},
                                        SimOptions{}, model.value().for_another->iterations);
        QVERIFY(r.ok());
        QCOMPARE(r.value().sim.figures.stall_ms, model.value().workload.stall_ns / 1e6);
    }

    // Ranks stall out of phase: rank 0 loses its core for 50 ms late in iteration 5, and rank 1, already in iteration
    // 6, waits for it there. Each rank's mean period over the 20 steady iterations rose by 2.5 ms, which is what a
    // run's iter_ms shows; the slowest rank of each iteration counted the one stall twice (5 ms per iteration).
    void outOfPhaseStallCountsOnce() {
        ObservedRun run = simulatedFifoCapture(syntheticModel(6, 16'384, 50'000, 200'000), 22);
        for (ObservedSpan& s : run.spans)
            if (s.kind == ObservedSpan::Iteration && s.iteration == 5 + s.rank)  // rank 0 in 5, rank 1 in 6
                s.end += 50'000'000;
        Result<ObservedModel> model = modelObservedRun(run);
        QVERIFY2(model.ok(), model.status().message().c_str());
        QCOMPARE(model.value().set_aside, (std::vector<int>{5, 6}));
        QVERIFY2(qAbs(model.value().workload.stall_ns - 2'500'000) < 50'000,
                 qPrintable(QString("stall %1 ns per iteration").arg(model.value().workload.stall_ns)));
    }

    // The collectives' period needs two periods after the first iteration's end; iterations without collectives
    // (a gap in the numbering) make no period.
    void collectivePeriodNeedsThreeIterations() {
        ObservedRun run = simulatedFifoCapture(syntheticModel(6, 16'384, 50'000, 200'000), 4);
        QVERIFY(collectivePeriodMs(run).ok());
        std::erase_if(run.spans,
                      [](const ObservedSpan& s) { return s.kind == ObservedSpan::Comm && s.iteration == 2; });
        QVERIFY(!collectivePeriodMs(run).ok());  // ends of 0, 1, 3: no period after the first one
    }

    // The outlier's wake-ups go with it: an iteration whose collectives all started 5 ms late (the communication
    // thread lost its core) is set aside, and the dispatch latency of the replay, and of every per-iteration
    // estimate, is what the kept iterations showed. (It once came from every iteration: one such stall made a
    // horovod run's self-replay 3x too slow.)
    void outlierIterationsWakeUpsAreSetAsideToo() {
        // Backward slow enough that the link idles before each gradient: every unit gives a dispatch sample.
        Workload truth = syntheticModel(6, 16'384, 50'000, 2'000'000);
        truth.dispatch_ns = 30'000;
        ObservedRun run = simulatedFifoCapture(truth);
        QVERIFY(!run.spans.empty());
        Result<ObservedModel> clean = modelObservedRun(run);
        QVERIFY(clean.ok());
        QVERIFY(qAbs(clean.value().workload.dispatch_ns - truth.dispatch_ns) < 1'000);

        constexpr Nanos kStall = 5'000'000;  // less than an iteration: the stalled units keep their place in the order
        for (ObservedSpan& s : run.spans) {
            if (s.iteration != 5) continue;
            if (s.kind == ObservedSpan::Comm) {
                s.start += kStall;
                s.end += kStall;
            } else if (s.kind == ObservedSpan::Iteration) {
                s.end += kStall;
            }
        }
        Result<ObservedModel> noisy = modelObservedRun(run);
        QVERIFY2(noisy.ok(), noisy.status().message().c_str());
        QCOMPARE(noisy.value().set_aside, std::vector<int>{5});
        QCOMPARE(noisy.value().workload.dispatch_ns, clean.value().workload.dispatch_ns);
        for (const IterationEstimate& e : noisy.value().iterations)
            QCOMPARE(e.workload.dispatch_ns, noisy.value().workload.dispatch_ns);
        // Counted with the others, the one stalled sample would have more than doubled the mean.
        QVERIFY(extractWorkload(run).value().dispatch_ns > 2 * clean.value().workload.dispatch_ns);
    }

    // A slow wake-up after one layer stays with that layer. The comm thread woke 7 us after every layer of a fifo
    // run of the transformer but one, after which it waited 0.35-0.7 ms in 12-22% of iterations (what the core ran
    // next); one mean charged at every wake-up priced a schedule that wakes after other layers (pace's plan order,
    // fused groups) 60-100 us a unit too dear. Read per layer, the fifo capture predicts a policy whose units wake
    // after other layers (DDP's buckets): within 0.5%, where the one mean is off by more than twice as much.
    void aSlowWakeUpAfterOneLayerStaysWithThatLayer() {
        // Backward slow enough that the link idles before each gradient: every unit gives a dispatch sample.
        Workload truth = syntheticModel(6, 16'384, 50'000, 2'000'000);
        truth.dispatch_ns = 7'000;
        truth.dispatch_by_layer_ns = {-1, -1, -1, 600'000, -1, -1};
        const ObservedRun run = simulatedFifoCapture(truth);
        QVERIFY(!run.spans.empty());
        Result<ObservedModel> model = modelObservedRun(run);
        QVERIFY2(model.ok(), model.status().message().c_str());
        const Workload& read = model.value().workload;
        QCOMPARE(read.dispatch_by_layer_ns.size(), truth.layers.size());
        for (int l = 0; l < 6; ++l)
            QVERIFY2(qAbs(read.dispatchAfter(l) - truth.dispatchAfter(l)) < 1'000,
                     qPrintable(QString("layer %1: %2 ns").arg(l).arg(read.dispatchAfter(l))));
        for (const IterationEstimate& e : model.value().iterations)
            QCOMPARE(e.workload.dispatch_by_layer_ns, read.dispatch_by_layer_ns);

        PolicyConfig ddp;
        ddp.name = "ddp";
        ddp.first_bucket_bytes = ddp.bucket_bytes = 700 << 10;  // buckets across layers: none ends at layer 3
        const CostModel cost{100'000, 2.0, {}};
        Result<ReplayResult> target = replay(truth, cost, ddp, WhatIf{}, SimOptions{12, 1});
        Result<ReplayResult> byLayer = replay(read, cost, ddp, WhatIf{}, SimOptions{12, 1});
        Workload pooled = read;
        pooled.dispatch_by_layer_ns.clear();
        Result<ReplayResult> oneMean = replay(pooled, cost, ddp, WhatIf{}, SimOptions{12, 1});
        QVERIFY(target.ok() && byLayer.ok() && oneMean.ok());
        const double truthMs = target.value().sim.figures.iter_ms;
        const double errorByLayer = qAbs(byLayer.value().sim.figures.iter_ms / truthMs - 1);
        const double errorOneMean = qAbs(oneMean.value().sim.figures.iter_ms / truthMs - 1);
        qInfo("ddp %.3f ms; by layer %.3f, one mean (%.0f us) %.3f", truthMs, byLayer.value().sim.figures.iter_ms,
              pooled.dispatch_ns / 1e3, oneMean.value().sim.figures.iter_ms);
        QVERIFY2(errorByLayer < 0.005, qPrintable(QString::number(errorByLayer)));
        QVERIFY2(errorOneMean > 0.005 && errorOneMean > 2 * errorByLayer, qPrintable(QString::number(errorOneMean)));
    }

    // A Horovod run holds every unit until its cycle's tick, so the time from a gradient to its unit is mostly
    // that hold, not the comm thread's wake-up: it gives no dispatch samples (a run of the small MLP gave 240-390 us
    // against 10-30 us from fifo runs, and replay charges it at every wake-up, the ticks' included).
    void horovodHoldsAreNoWakeUps() {
        Workload truth = syntheticModel(6, 16'384, 50'000, 2'000'000);
        truth.dispatch_ns = 30'000;
        PolicyConfig horovod;
        horovod.name = "horovod";
        horovod.cycle_ns = 5'000'000;
        Result<ReplayResult> captured =
            replay(truth, CostModel{100'000, 2.0, {}}, horovod, WhatIf{}, SimOptions{12, 1});
        QVERIFY2(captured.ok(), captured.status().message().c_str());
        const ObservedRun run = toObservedRun(truth, captured.value().sim, "horovod");
        Result<ObservedModel> model = modelObservedRun(run);
        QVERIFY2(model.ok(), model.status().message().c_str());
        QCOMPARE(model.value().workload.dispatch_ns, Nanos{0});
        ObservedRun asFifo = run;
        asFifo.policy = "fifo";  // the same spans read as a policy that does not hold: the hold counts
        QVERIFY(modelObservedRun(asFifo).value().workload.dispatch_ns > 100'000);
    }

    // Each kept iteration's estimate (the band's) reads that iteration and its neighbours, not the whole run again:
    // what it finds must be what the whole run, read for that iteration, gives. Iterations made uneven (each rank's
    // spans stretched by 0-15% by iteration), so that one iteration's figures are not every other's.
    void iterationEstimatesReadTheirNeighbourhoodAlone() {
        const Workload truth = syntheticModel(8, 40'000, 150'000, 300'000);
        ObservedRun run = simulatedPlanCapture(truth, inputSideFirst(truth), 1);
        for (ObservedSpan& s : run.spans) {
            const double stretch = 1.0 + 0.05 * ((s.iteration * 3 + s.rank) % 4);
            s.end = s.start + static_cast<Nanos>(static_cast<double>(s.end - s.start) * stretch);
        }
        Result<ObservedModel> model = modelObservedRun(run);
        QVERIFY2(model.ok(), model.status().message().c_str());
        QVERIFY(model.value().iterations.size() >= 5);
        std::set<Nanos> backwards;  // of layer 0
        for (const IterationEstimate& e : model.value().iterations) {
            Result<Workload> w = extractWorkload(run, {e.iteration});
            Result<CostModel> c = fitCostModel(run, {e.iteration});
            QVERIFY(w.ok() && c.ok());
            QCOMPARE(e.workload.layers.size(), w.value().layers.size());
            for (std::size_t l = 0; l < w.value().layers.size(); ++l) {
                QCOMPARE(e.workload.layers[l].forward, w.value().layers[l].forward);
                QCOMPARE(e.workload.layers[l].backward, w.value().layers[l].backward);
            }
            QCOMPARE(e.workload.tail_ns, w.value().tail_ns);
            QCOMPARE(e.workload.update_ns_per_element, w.value().update_ns_per_element);
            QCOMPARE(e.cost.alpha_ns, c.value().alpha_ns);
            QCOMPARE(e.cost.ns_per_byte, c.value().ns_per_byte);
            QCOMPARE(e.cost.first_unit_extra_ns, c.value().first_unit_extra_ns);
            QCOMPARE(e.cost.unit_gap_ns, c.value().unit_gap_ns);
            QCOMPARE(e.cost.measured, c.value().measured);
            backwards.insert(e.workload.layers[0].backward);
        }
        QVERIFY2(backwards.size() > 1, "the iterations were meant to differ");
    }

    // The comm thread's delay after a collective that ended a compute wait is read back from a run that paid it (the
    // plan sends the input side first, so the forward waits for the first units and later ones follow straight on),
    // and replay with it reproduces the run; without it replay is too fast. The woken compute ran 152-170 us before it
    // blocked again, and the gap lasts no longer (the simulator's cap): a 160 us gap shows as 152-160 and is read back
    // as 160 (read as their mean, 157, before); a 400 us gap shows only as those runs, and what is read back (the
    // longest, no more than the gap) reproduces the run all the same.
    void releaseGapIsReadBackAndReplayed_data() {
        QTest::addColumn<Nanos>("gap");
        QTest::addColumn<bool>("exact");
        QTest::newRow("160 us, longer than some runs") << Nanos{160'000} << true;
        QTest::newRow("400 us, longer than every run") << Nanos{400'000} << false;
    }
    void releaseGapIsReadBackAndReplayed() {
        QFETCH(Nanos, gap);
        QFETCH(bool, exact);
        const Workload truth = syntheticModel(8, 40'000, 150'000, 300'000);
        const ObservedRun run = simulatedPlanCapture(truth, inputSideFirst(truth), 1, gap);
        Result<Workload> w = extractWorkload(run);
        Result<CostModel> cost = fitCostModel(run);
        Result<double> observed = observedIterationMs(run);
        QVERIFY(w.ok() && cost.ok() && observed.ok());
        const Nanos readBack = w.value().release_gap_ns;
        if (exact) QVERIFY2(qAbs(readBack - gap) <= 1, qPrintable(QString::number(readBack)));
        QVERIFY2(readBack >= 150'000 && readBack <= gap, qPrintable(QString::number(readBack)));
        PolicyConfig own = paceQuarterMiB();
        own.plan = inputSideFirst(truth);
        Result<ReplayResult> with = replay(w.value(), cost.value(), own, WhatIf{});
        Workload without = w.value();
        without.release_gap_ns = 0;
        Result<ReplayResult> none = replay(without, cost.value(), own, WhatIf{});
        QVERIFY(with.ok() && none.ok());
        QVERIFY2(qAbs(with.value().sim.figures.iter_ms / observed.value() - 1) < 0.01,
                 qPrintable(QString::number(with.value().sim.figures.iter_ms)));
        QVERIFY2(none.value().sim.figures.iter_ms < 0.97 * observed.value(),
                 qPrintable(QString::number(none.value().sim.figures.iter_ms)));
        QCOMPARE(extractWorkload(simulatedPlanCapture(truth, inputSideFirst(truth), 1, 0)).value().release_gap_ns,
                 Nanos{0});
    }

    void extractionTakesSlowestRankThenMean() {
        ObservedRun run = twoTensorRun();
        // Iteration 0 is warm-up (huge); in iterations 1..3 the slowest rank's forward of layer 0 takes 130, 120
        // and 500 (rank 0 was descheduled once): the mean, 250, is what the measured mean iteration paid. Layer
        // 1's backward is traced as two kernels per iteration that add up.
        const Nanos fwd[2][4] = {{9000, 100, 110, 500}, {9000, 130, 120, 140}};
        for (int rank = 0; rank < 2; ++rank)
            for (int it = 0; it < 4; ++it) {
                run.spans.push_back(span(ObservedSpan::Forward, rank, it, 0, 0, fwd[rank][it]));
                run.spans.push_back(span(ObservedSpan::Forward, rank, it, 1, 0, 70));
                run.spans.push_back(span(ObservedSpan::Backward, rank, it, 1, 0, 100));
                run.spans.push_back(span(ObservedSpan::Backward, rank, it, 1, 200, 250));
                run.spans.push_back(span(ObservedSpan::Backward, rank, it, 0, 0, 300));
                ObservedSpan u = span(ObservedSpan::Update, rank, it, -1, 0, 4000);  // 2000 elements: 2 ns each
                run.spans.push_back(u);
            }
        Result<Workload> w = extractWorkload(run);
        QVERIFY2(w.ok(), w.status().message().c_str());
        QCOMPARE(w.value().layers.size(), std::size_t{2});
        QCOMPARE(w.value().layers[0].forward, Nanos{250});
        QCOMPARE(w.value().layers[1].forward, Nanos{70});
        QCOMPARE(w.value().layers[1].backward, Nanos{150});
        QCOMPARE(w.value().layers[0].backward, Nanos{300});
        QCOMPARE(w.value().update_ns_per_element, 2.0);
        QCOMPARE(w.value().ranks, 2);
    }

    // Rank 0 is descheduled during layer 0's forward, rank 1 during layer 1's, in the same iteration. Each rank
    // took 600 ns for both: the collective that follows waits for 600, not for 1000 (the sum of per-layer
    // maxima would invent a rank that had both hiccups). Layer 1 gets what the latest rank still needed after the
    // latest rank's layer 0.
    void extractionFollowsTheLatestRankThroughTheIteration() {
        ObservedRun run = twoTensorRun();
        const Nanos fwd[2][2] = {{500, 100}, {100, 500}};
        for (int rank = 0; rank < 2; ++rank)
            for (int it = 0; it < 3; ++it) {
                const bool steady = it > 0;  // iteration 0 is warm-up
                run.spans.push_back(span(ObservedSpan::Forward, rank, it, 0, 0, steady ? fwd[rank][0] : 9000));
                run.spans.push_back(span(ObservedSpan::Forward, rank, it, 1, 10'000, 10'000 + fwd[rank][1]));
                run.spans.push_back(span(ObservedSpan::Backward, rank, it, 1, 20'000, 20'200));
                run.spans.push_back(span(ObservedSpan::Backward, rank, it, 0, 30'000, 30'300));
            }
        Result<Workload> w = extractWorkload(run);
        QVERIFY2(w.ok(), w.status().message().c_str());
        QCOMPARE(w.value().layers[0].forward + w.value().layers[1].forward, Nanos{600});
        QCOMPARE(w.value().layers[0].forward, Nanos{500});
        QCOMPARE(w.value().layers[1].forward, Nanos{100});
        QCOMPARE(w.value().layers[1].backward, Nanos{200});
        QCOMPARE(w.value().layers[0].backward, Nanos{300});
    }

    // The same for the tail (the untraced time after the last backward): both ranks take 1000 ns an iteration, rank
    // 0 with a 500 ns backward of layer 0 and a 100 ns tail, rank 1 with 300 and 300. The latest rank is through
    // its backward at 900 and both are through their tails at 1000: the tail is 100, not rank 1's 300 (which would
    // make an iteration of 1200 that neither rank ran).
    void theTailIsTheLatestRanksLastStep() {
        ObservedRun run = twoTensorRun();
        const Nanos period = 1000, lastBackward[2] = {500, 300};
        for (int rank = 0; rank < 2; ++rank)
            for (int it = 0; it < 4; ++it) {
                const Nanos t = it * period;
                run.spans.push_back(span(ObservedSpan::Forward, rank, it, 0, t, t + 100));
                run.spans.push_back(span(ObservedSpan::Forward, rank, it, 1, t + 100, t + 200));
                run.spans.push_back(span(ObservedSpan::Backward, rank, it, 1, t + 200, t + 400));
                run.spans.push_back(span(ObservedSpan::Backward, rank, it, 0, t + 400, t + 400 + lastBackward[rank]));
            }
        Result<Workload> w = extractWorkload(run);
        QVERIFY2(w.ok(), w.status().message().c_str());
        QCOMPARE(w.value().layers[0].backward, Nanos{500});
        QCOMPARE(w.value().tail_ns, Nanos{100});
        const Workload& x = w.value();
        QCOMPARE(x.layers[0].forward + x.layers[1].forward + x.layers[1].backward + x.layers[0].backward + x.tail_ns,
                 period);
    }

    // The first iteration of a run is left out of the means as a warm-up, unless the caller already cut the warm-up
    // away (ObservedRun::warmup_removed: the replay of a stored run starts at the first iteration its iter_ms
    // counts): then the first one left counts like the others. Iteration 5 forward 400 ns, 6-8 100 ns.
    void aRunCutToItsSteadyIterationsKeepsTheFirst_data() {
        QTest::addColumn<bool>("removed");
        QTest::addColumn<Nanos>("forward");
        QTest::newRow("warm-up still in the run: the first is left out") << false << Nanos{100};
        QTest::newRow("warm-up cut away: the first counts") << true << Nanos{175};
    }
    void aRunCutToItsSteadyIterationsKeepsTheFirst() {
        QFETCH(bool, removed);
        QFETCH(Nanos, forward);
        ObservedRun run = twoTensorRun();
        run.warmup_removed = removed;
        for (int rank = 0; rank < 2; ++rank)
            for (int it = 5; it < 9; ++it) {
                const Nanos t = it * 10'000;
                run.spans.push_back(span(ObservedSpan::Forward, rank, it, 0, t, t + (it == 5 ? 400 : 100)));
                run.spans.push_back(span(ObservedSpan::Forward, rank, it, 1, t + 1000, t + 1100));
                run.spans.push_back(span(ObservedSpan::Backward, rank, it, 1, t + 2000, t + 2100));
                run.spans.push_back(span(ObservedSpan::Backward, rank, it, 0, t + 3000, t + 3100));
            }
        Result<Workload> w = extractWorkload(run);
        QVERIFY2(w.ok(), w.status().message().c_str());
        QCOMPARE(w.value().layers[0].forward, forward);
    }

    void untracedComputeTimeIsChargedToNeighbours() {
        // One rank, iterations 0 (warm-up) and 1: forward 0, a 50 ns gap, forward 1, backward 1, a 20 ns gap,
        // backward 0, a 30 ns gap, then a wait. The gap before a span belongs to it; the one after the last
        // backward is the iteration's tail (the next batch): it delays the next forward, not the gradients.
        ObservedRun run = twoTensorRun();
        run.ranks = 1;
        for (int it = 0; it < 2; ++it) {
            const Nanos t = it * 10'000;
            run.spans.push_back(span(ObservedSpan::Forward, 0, it, 0, t, t + 100));
            run.spans.push_back(span(ObservedSpan::Forward, 0, it, 1, t + 150, t + 250));
            run.spans.push_back(span(ObservedSpan::Backward, 0, it, 1, t + 250, t + 450));
            run.spans.push_back(span(ObservedSpan::Backward, 0, it, 0, t + 470, t + 670));
            run.spans.push_back(span(ObservedSpan::Wait, 0, it, 0, t + 700, t + 10'000));
        }
        Result<Workload> w = extractWorkload(run);
        QVERIFY2(w.ok(), w.status().message().c_str());
        QCOMPARE(w.value().layers[0].forward, Nanos{100});
        QCOMPARE(w.value().layers[1].forward, Nanos{150});
        QCOMPARE(w.value().layers[1].backward, Nanos{200});
        QCOMPARE(w.value().layers[0].backward, Nanos{220});
        QCOMPARE(w.value().tail_ns, Nanos{30});
    }

    // On busy CPU ranks a collective's CPU came out of compute: layer 0's backward (4000 ns traced) ran while a
    // collective took 1000 ns of CPU from it, and the 2000 ns gap before layer 1's forward was a collective's
    // alone (all of it CPU). Extraction keeps the compute: 3000 and no gap. The collective's work begins when the
    // last rank joins (rank 1 at 1000; rank 0's span from 500 was a wait in a barrier). Without CPU figures
    // (comm_cpu zero) the same run extracts as before.
    void extractionLeavesOutWhatCollectivesTook_data() {
        QTest::addColumn<bool>("measured");
        QTest::newRow("cpu measured") << true;
        QTest::newRow("not measured") << false;
    }
    void extractionLeavesOutWhatCollectivesTook() {
        QFETCH(bool, measured);
        ObservedRun run = twoTensorRun();
        for (int rank = 0; rank < 2; ++rank)
            for (int it = 0; it < 3; ++it) {
                const Nanos t = it * 100'000;
                run.spans.push_back(span(ObservedSpan::Forward, rank, it, 0, t, t + 100));
                // a 2000 ns gap, taken entirely by a collective of 2000 ns CPU
                run.spans.push_back(span(ObservedSpan::Forward, rank, it, 1, t + 2100, t + 2200));
                run.spans.push_back(span(ObservedSpan::Backward, rank, it, 1, t + 2200, t + 2300));
                run.spans.push_back(span(ObservedSpan::Backward, rank, it, 0, t + 2300, t + 6300));
                ObservedSpan gapComm = comm(rank, it, 0, 8000, t + 100, 2000);
                gapComm.cpu = measured ? 2000 : -1;
                run.spans.push_back(gapComm);
                // joined by rank 0 at 2800 and by rank 1 at 3300 (the last join): busy 3300..5300 on both
                ObservedSpan bwdComm = comm(rank, it, 1, 4000, t + (rank == 0 ? 2800 : 3300), rank == 0 ? 2500 : 2000);
                bwdComm.cpu = measured ? 1000 : -1;
                run.spans.push_back(bwdComm);
            }
        if (measured) {
            // Two sizes, so the fitted line is the CPU per collective exactly: 0.25 ns per byte.
            const CommCpu fit = fitCommCpu(run);
            QCOMPARE(fit.at(8000), 2000.0);
            QCOMPARE(fit.at(4000), 1000.0);
        }
        Result<Workload> w = extractWorkload(run);
        QVERIFY2(w.ok(), w.status().message().c_str());
        QCOMPARE(w.value().layers[0].backward, measured ? Nanos{3000} : Nanos{4000});
        QCOMPARE(w.value().layers[1].forward, measured ? Nanos{100} : Nanos{2100});
        QCOMPARE(w.value().comm_cpu.any(), measured);
    }

    // A gap before a wait in the middle of forward (layer 1 waits for its reduction) still goes to the span before
    // it: the wait began only after that gap.
    void gapBeforeAForwardWaitGoesToTheSpanBefore() {
        ObservedRun run = twoTensorRun();
        run.ranks = 1;
        for (int it = 0; it < 2; ++it) {
            const Nanos t = it * 10'000;
            run.spans.push_back(span(ObservedSpan::Forward, 0, it, 0, t, t + 100));
            run.spans.push_back(span(ObservedSpan::Wait, 0, it, 1, t + 140, t + 1000));
            run.spans.push_back(span(ObservedSpan::Forward, 0, it, 1, t + 1000, t + 1100));
            run.spans.push_back(span(ObservedSpan::Backward, 0, it, 1, t + 1100, t + 1300));
            run.spans.push_back(span(ObservedSpan::Backward, 0, it, 0, t + 1300, t + 1500));
        }
        Result<Workload> w = extractWorkload(run);
        QVERIFY2(w.ok(), w.status().message().c_str());
        QCOMPARE(w.value().layers[0].forward, Nanos{140});
        QCOMPARE(w.value().layers[1].forward, Nanos{100});
        QCOMPARE(w.value().tail_ns, Nanos{0});  // iteration 1's backward is followed by nothing
    }

    void badRunsAreErrors_data() {
        QTest::addColumn<int>("breakage");
        QTest::addColumn<QString>("error");
        QTest::newRow("no spans") << 0 << "no forward or backward";
        QTest::newRow("reversed span") << 1 << "ends before it starts";
        QTest::newRow("rank out of range") << 2 << "rank 5";
        QTest::newRow("no tensors") << 3 << "no gradient tensors";
        QTest::newRow("no comm") << 4 << "no communication spans";
        QTest::newRow("zero bytes") << 5 << "0 bytes";
    }
    void badRunsAreErrors() {
        QFETCH(int, breakage);
        QFETCH(QString, error);
        ObservedRun run = twoTensorRun();
        run.spans.push_back(span(ObservedSpan::Forward, 0, 0, 0, 0, 10));
        run.spans.push_back(comm(0, 0, 0, 4000, 0, 10));
        Status s;
        switch (breakage) {
            case 0:
                run.spans.erase(run.spans.begin());
                s = extractWorkload(run).status();
                break;
            case 1:
                run.spans[0].end = -5;
                s = extractWorkload(run).status();
                break;
            case 2:
                run.spans[0].rank = 5;
                s = extractWorkload(run).status();
                break;
            case 3:
                run.tensors.clear();
                s = fitCostModel(run).status();
                break;
            case 4:
                run.spans.pop_back();
                s = fitCostModel(run).status();
                break;
            case 5:
                run.spans.back().bytes = 0;
                s = fitCostModel(run).status();
                break;
        }
        QVERIFY(!s.ok());
        QVERIFY2(QString::fromStdString(s.message()).contains(error), s.message().c_str());
    }
};

QTEST_GUILESS_MAIN(TestReplayExtraction)
#include "tst_replay_extraction.moc"
