// PACE tunes itself: on every workload tried the chosen settings predict no slower than pace's fixed defaults in
// the same order; what the user fixed is kept; the warm-up path (extraction, fit, tuning, simulation) yields a
// plan that covers every element once; the schedule and the warm-up spans survive their wire form, and a
// malformed message is refused.
#include <QtTest>

#include <map>

#include "engine/plan.h"
#include "engine/planning/schedule.h"
#include "engine/planning/self_tune.h"
#include "engine/planning/warmup_schedule.h"
#include "engine/replay/observed_run.h"
#include "engine/replay/replay.h"
#include "test_models.h"

using namespace pacer::engine;
using pacer::test::syntheticModel;
using pacer::test::zooModel;

namespace {

Workload workloadOf(const QString& name) {
    return name == "synthetic" ? syntheticModel(8, 40'000, 200'000, 400'000) : zooModel(name.toStdString());
}

// A per-call cost like a CPU rank's (~1 ms whatever the size) or a GPU cluster's (tens of microseconds).
CostModel link(double alphaUs, double gbps) { return CostModel{alphaUs * 1e3, 8.0 / gbps, {}}; }

TuneRequest paceDefaults(bool hostMemory) {
    TuneRequest r;
    r.policy.name = "pace";
    r.host_memory = hostMemory;
    return r;
}

// A simulated warm-up of the synthetic model: five iterations of pace at its defaults in dynamic order, as every
// rank's spans reach rank 0 at the switch (the last iteration's Iteration span is written after it: not there).
ObservedRun simulatedWarmup() {
    const Workload truth = workloadOf("synthetic");
    PolicyConfig pace;
    pace.name = "pace";
    auto warm = replay(asRun(truth, false, 1, true), link(1000, 2.5), pace, WhatIf{}, SimOptions{5, 1});
    if (!warm.ok()) return {};
    ObservedRun run = toObservedRun(asRun(truth, false, 1, true), warm.value().sim, "pace");
    std::erase_if(run.spans,
                  [](const ObservedSpan& s) { return s.kind == ObservedSpan::Iteration && s.iteration == 4; });
    return run;
}

// The run with time in [from, to) passing `factor` times slower and everything after moved later by the difference:
// a stretch of it on a machine that slowed down meanwhile, compute and collectives alike.
ObservedRun dilated(ObservedRun run, Nanos from, Nanos to, double factor) {
    const auto at = [&](Nanos t) {
        if (t < from) return t;
        if (t < to) return from + static_cast<Nanos>(static_cast<double>(t - from) * factor);
        return t + static_cast<Nanos>(static_cast<double>(to - from) * (factor - 1));
    };
    for (ObservedSpan& s : run.spans) {
        s.start = at(s.start);
        s.end = at(s.end);
    }
    return run;
}

ScheduleRequest selfTuning() {
    ScheduleRequest request;
    request.tune = paceDefaults(true);
    request.self_tune = true;
    return request;
}

}  // namespace

class SelfTuneTest : public QObject {
    Q_OBJECT

private slots:
    void neverSlowerThanDefaults_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<double>("alphaUs");
        QTest::addColumn<double>("gbps");
        for (const char* m : {"synthetic", "resnet50", "bert_base"})
            for (auto [alpha, gbps] : {std::pair{1000.0, 2.5}, std::pair{1000.0, 25.0}, std::pair{30.0, 10.0}})
                QTest::newRow(qPrintable(
                    QStringLiteral("%1 alpha %2 us %3 Gb/s").arg(m).arg(alpha, 0, 'f', 0).arg(gbps, 0, 'f', 1)))
                    << QString(m) << alpha << gbps;
    }
    void neverSlowerThanDefaults() {
        QFETCH(QString, model);
        QFETCH(double, alphaUs);
        QFETCH(double, gbps);
        const Workload w = workloadOf(model);
        const CostModel c = link(alphaUs, gbps);
        // Dynamic order only (order fixed), as the defaults run: the search holds the defaults among its options.
        TuneRequest request = paceDefaults(false);
        request.order_fixed = true;
        request.plan_order = false;
        auto tuned = tunePace(w, c, request);
        QVERIFY2(tuned.ok(), tuned.status().message().c_str());
        PolicyConfig defaults;
        defaults.name = "pace";
        auto plain = replay(asRun(w, false, 1, false), c, defaults, WhatIf{});
        QVERIFY(plain.ok());
        QVERIFY2(tuned.value().figures.iter_ms <= plain.value().sim.figures.iter_ms + 1e-9,
                 qPrintable(QString("tuned %1 ms, defaults %2 ms").arg(tuned.value().figures.iter_ms)
                                .arg(plain.value().sim.figures.iter_ms)));
        QVERIFY(!tuned.value().plan_order);
        QCOMPARE(tuned.value().channels, 1);
        QVERIFY(tuned.value().evaluations > 1);
    }

    void keepsWhatTheUserSet() {
        const Workload w = workloadOf("synthetic");
        TuneRequest request = paceDefaults(true);
        request.segment_fixed = true;
        request.policy.segment_bytes = 96 << 10;  // not a power of two: the sweep could never pick it
        request.channels_fixed = true;
        request.channels = 2;
        auto tuned = tunePace(w, link(1000, 2.5), request);
        QVERIFY2(tuned.ok(), tuned.status().message().c_str());
        QCOMPARE(tuned.value().policy.segment_bytes, std::size_t{96 << 10});
        QVERIFY(tuned.value().plan_order);  // two channels need plan order
        QCOMPARE(tuned.value().channels, 2);
        QCOMPARE(tuned.value().workload.channels, 2);
    }

    // Several channels are a choice only where each can have a core: a workload whose collectives take CPU from
    // compute (every core busy) runs one channel unless the user asks for more; the same workload on a host with
    // cores to spare gets the channels its per-call cost calls for.
    void severalChannelsOnlyWhereCoresAreSpare_data() {
        QTest::addColumn<bool>("coresBusy");
        QTest::addColumn<int>("channelsAsked");  // 0: left to the choice
        QTest::addColumn<bool>("severalExpected");
        QTest::newRow("cores to spare: channels chosen") << false << 0 << true;
        QTest::newRow("cores busy: one channel") << true << 0 << false;
        QTest::newRow("cores busy, two asked: two") << true << 2 << true;
    }
    void severalChannelsOnlyWhereCoresAreSpare() {
        QFETCH(bool, coresBusy);
        QFETCH(int, channelsAsked);
        QFETCH(bool, severalExpected);
        Workload w = workloadOf("synthetic");
        if (coresBusy) w.comm_cpu = CommCpu{20'000, 0.1};
        TuneRequest request = paceDefaults(true);
        if (channelsAsked > 0) {
            request.channels_fixed = true;
            request.channels = channelsAsked;
        }
        auto tuned = tunePace(w, link(1000, 2.5), request);
        QVERIFY2(tuned.ok(), tuned.status().message().c_str());
        QCOMPARE(tuned.value().channels > 1, severalExpected);
        QCOMPARE(tuned.value().workload.channels, tuned.value().channels);
    }

    // Many small tensors whose collectives each cost a fixed millisecond and take their CPU from compute: few large
    // units are right, as DDP's buckets. PACE's search holds such groupings among its options, so the tuned pace
    // predicts no slower than DDP on the same workload (with groups capped at 16 tensors it trailed by 5-7%).
    void groupsAsLargeAsDdpsBucketsWhereCallsCostMost_data() {
        QTest::addColumn<int>("layers");
        QTest::addColumn<double>("gbps");
        QTest::newRow("54 tensors, 25 Gb/s") << 27 << 25.0;
        QTest::newRow("54 tensors, 10 Gb/s") << 27 << 10.0;
        QTest::newRow("80 tensors, 25 Gb/s") << 40 << 25.0;
    }
    void groupsAsLargeAsDdpsBucketsWhereCallsCostMost() {
        QFETCH(int, layers);
        QFETCH(double, gbps);
        Workload w = syntheticModel(layers, 2'000, 100'000, 200'000);
        w.comm_cpu = CommCpu{300'000, 0.5};
        const CostModel c = link(1000, gbps);
        auto tuned = tunePace(w, c, paceDefaults(true));
        QVERIFY2(tuned.ok(), tuned.status().message().c_str());
        PolicyConfig ddp;
        ddp.name = "ddp";
        auto ddpRun = replay(asRun(w, false, 1, true), c, ddp, WhatIf{});
        QVERIFY2(ddpRun.ok(), ddpRun.status().message().c_str());
        QVERIFY2(tuned.value().figures.iter_ms <= ddpRun.value().sim.figures.iter_ms * 1.001,
                 qPrintable(QStringLiteral("tuned pace %1 ms, ddp %2 ms")
                                .arg(tuned.value().figures.iter_ms)
                                .arg(ddpRun.value().sim.figures.iter_ms)));
    }

    // A what-if of two channels on a run made in dynamic order: the channels bring plan order with them.
    void channelsWhatIfOverridesTheRunsOrder() {
        TuneRequest request = paceDefaults(true);
        request.order_fixed = true;
        request.plan_order = false;
        WhatIf whatIf;
        whatIf.channels = 2;
        auto tuned = tunePace(workloadOf("synthetic"), link(1000, 2.5), request, whatIf);
        QVERIFY2(tuned.ok(), tuned.status().message().c_str());
        QVERIFY(tuned.value().plan_order);
        QCOMPARE(tuned.value().channels, 2);
    }

    void onlyPaceTunesItself() {
        TuneRequest request = paceDefaults(true);
        request.policy.name = "ddp";
        QVERIFY(!tunePace(workloadOf("synthetic"), link(1000, 2.5), request).ok());
        QVERIFY(!wantsSelfTune(request));
        request.policy.name = "pace";
        QVERIFY(wantsSelfTune(request));
        request.segment_fixed = request.fusion_fixed = request.order_fixed = true;
        request.plan_order = true;
        QVERIFY(wantsSelfTune(request));  // plan order with the channels left open: those are chosen
        request.plan_order = false;
        QVERIFY(!wantsSelfTune(request));  // dynamic order runs one channel: nothing left to choose
        request.plan_order = true;
        request.channels_fixed = true;
        QVERIFY(!wantsSelfTune(request));
    }

    // The warm-up path: a simulated "warm-up" as rank spans goes through extraction, fit, tuning and simulation;
    // the plan covers every element once and its prediction is replay's for the chosen settings.
    void warmupScheduleIsAValidPlan() {
        const Workload truth = workloadOf("synthetic");
        const ObservedRun observed = simulatedWarmup();
        const ScheduleRequest request = selfTuning();
        auto schedule = scheduleFromWarmup(observed, request);
        QVERIFY2(schedule.ok(), schedule.status().message().c_str());
        QVERIFY(schedule.value().tuned);
        QVERIFY(schedule.value().predicted_ms > 0);
        if (schedule.value().plan_order) {
            const Status st = validatePlan(schedule.value().plan, truth.tensors);
            QVERIFY2(st.ok(), st.message().c_str());
        } else {
            QVERIFY(schedule.value().plan.empty());
        }
        // The same extraction and fit that `pacer-cli replay` uses (over the settled iterations), then the same
        // tuning: the same prediction.
        const std::vector<int> settled = settledWarmupIterations(observed);
        QVERIFY(!settled.empty());
        auto workload = extractWorkload(observed, settled);
        auto cost = fitCostModel(observed, settled);
        QVERIFY(workload.ok() && cost.ok());
        TuneRequest same = request.tune;
        same.observed_policy = request.tune.policy;  // the warm-up runs the settings as given: pace's defaults
        same.observed_ms = warmupPeriodMs(observed).value();
        auto again = tunePace(workload.value(), cost.value(), same);
        QVERIFY(again.ok());
        QCOMPARE(again.value().figures.iter_ms, schedule.value().predicted_ms);
    }

    // The tuning calibrates against the period the collectives show, not against the ranks' Iteration spans: in a
    // real warm-up a rank that finished its first iteration early books its wait for the peer on its next ones, and
    // with the spans' median the tuning charged that start-up to every collective. Here one rank's spans are shifted
    // so (the collectives as they were): the schedule must be the one the undisturbed warm-up gives.
    void warmupCalibratesAgainstTheCollectivesPeriod() {
        const ObservedRun steady = simulatedWarmup();
        // Rank 1 ends iteration 0 and starts iteration 3 early, so iterations 1 and 2 hold 45% of the time each.
        ObservedRun shifted = steady;
        std::map<int, ObservedSpan*> spans;
        for (ObservedSpan& s : shifted.spans)
            if (s.kind == ObservedSpan::Iteration && s.rank == 1) spans[s.iteration] = &s;
        QCOMPARE(spans.size(), std::size_t{4});
        const Nanos from = spans[0]->start, span = spans[3]->end - from;
        spans[0]->end = spans[1]->start = from + span / 20;
        spans[1]->end = spans[2]->start = from + span / 2;
        spans[2]->end = spans[3]->start = from + span * 19 / 20;
        QVERIFY(observedIterationMs(shifted).value() > 1.3 * observedIterationMs(steady).value());
        QCOMPARE(warmupPeriodMs(shifted).value(), warmupPeriodMs(steady).value());

        auto fromSteady = scheduleFromWarmup(steady, selfTuning());
        auto fromShifted = scheduleFromWarmup(shifted, selfTuning());
        QVERIFY(fromSteady.ok() && fromShifted.ok());
        QCOMPARE(fromShifted.value().predicted_ms, fromSteady.value().predicted_ms);
        QCOMPARE(fromShifted.value().policy.segment_bytes, fromSteady.value().policy.segment_bytes);
        QCOMPARE(fromShifted.value().policy.fusion_groups, fromSteady.value().policy.fusion_groups);
    }

    // A warm-up still settling: each of iteration 1's collectives took 3/4 of a period longer. Its period lies far
    // above the warm-up's, so it is set aside, and the schedule is the one of the settled warm-up; every iteration's
    // mean would have made each collective slower than the run will see.
    void warmupLearnsFromItsSettledIterations() {
        const ObservedRun steady = simulatedWarmup();
        const auto slower = static_cast<Nanos>(0.75 * warmupPeriodMs(steady).value() * 1e6);
        ObservedRun settling = steady;
        for (ObservedSpan& s : settling.spans)
            if (s.kind == ObservedSpan::Comm && s.iteration == 1) s.end += slower;
        QCOMPARE(settledWarmupIterations(steady), (std::vector<int>{1, 2, 3, 4}));
        QCOMPARE(settledWarmupIterations(settling), (std::vector<int>{2, 3, 4}));

        auto fromSteady = scheduleFromWarmup(steady, selfTuning());
        auto fromSettling = scheduleFromWarmup(settling, selfTuning());
        QVERIFY(fromSteady.ok() && fromSettling.ok());
        const double steadyMs = fromSteady.value().predicted_ms;
        QVERIFY2(qAbs(fromSettling.value().predicted_ms / steadyMs - 1) < 0.01,
                 qPrintable(QString("%1 ms against %2").arg(fromSettling.value().predicted_ms).arg(steadyMs)));
    }

    // The prediction comes with a band from the settled warm-up iterations' spread, as replay's from a run's
    // iterations, and the margin that a few iterations cannot show: on a steady warm-up the margin alone around it,
    // and where one settled iteration ran 15% slower (the machine, not the schedule: every span in it stretched) a
    // wider one that still holds it.
    void warmupPredictionCarriesABand() {
        const ObservedRun steady = simulatedWarmup();
        const ObservedSpan* second = nullptr;
        for (const ObservedSpan& s : steady.spans)
            if (s.kind == ObservedSpan::Iteration && s.rank == 0 && s.iteration == 2) second = &s;
        QVERIFY(second);
        const ObservedRun noisy = dilated(steady, second->start, second->end, 1.15);
        QCOMPARE(settledWarmupIterations(noisy), settledWarmupIterations(steady));  // still one of the settled

        auto fromSteady = scheduleFromWarmup(steady, selfTuning());
        auto fromNoisy = scheduleFromWarmup(noisy, selfTuning());
        QVERIFY(fromSteady.ok() && fromNoisy.ok());
        const auto width = [](const Schedule& s) { return (s.predicted_high_ms - s.predicted_low_ms) / s.predicted_ms; };
        for (const Schedule* s : {&fromSteady.value(), &fromNoisy.value()}) {
            QVERIFY(s->predicted_low_ms > 0);
            QVERIFY2(s->predicted_low_ms <= s->predicted_ms && s->predicted_ms <= s->predicted_high_ms,
                     qPrintable(QString("%1 ms, band %2..%3")
                                    .arg(s->predicted_ms)
                                    .arg(s->predicted_low_ms)
                                    .arg(s->predicted_high_ms)));
        }
        const double margins = 2 * kWarmupBandMargin;
        QVERIFY2(width(fromSteady.value()) >= margins - 1e-9 && width(fromSteady.value()) < margins + 0.02,
                 qPrintable(QString::number(width(fromSteady.value()))));
        QVERIFY2(width(fromNoisy.value()) > margins + 0.05, qPrintable(QString::number(width(fromNoisy.value()))));
    }

    // A run slower than replay predicts for it pays the difference per collective; a faster one changes nothing.
    void calibratesPerCallCostToTheRun() {
        const Workload w = asRun(workloadOf("synthetic"), false, 1, true);
        const CostModel c = link(1000, 2.5);
        PolicyConfig pace;
        pace.name = "pace";
        auto r = replay(w, c, pace, WhatIf{});
        QVERIFY(r.ok());
        const double predicted = r.value().sim.figures.iter_ms;
        const double units = static_cast<double>(r.value().sim.order.size());
        QCOMPARE(calibratePerCallCost(w, c, pace, predicted * 0.9).alpha_ns, c.alpha_ns);
        QCOMPARE(calibratePerCallCost(w, c, pace, predicted * 1.01).alpha_ns, c.alpha_ns);
        const CostModel slower = calibratePerCallCost(w, c, pace, predicted * 1.5);
        QVERIFY(qAbs(slower.alpha_ns - (c.alpha_ns + predicted * 0.5 * 1e6 / units)) < 1.0);
        // Calibrated, the configuration that ran is predicted slower (overlap absorbs part of the extra cost, so
        // only the direction is certain).
        auto again = replay(w, slower, pace, WhatIf{});
        QVERIFY(again.ok());
        QVERIFY(again.value().sim.figures.iter_ms > predicted);
    }

    void scheduleRoundTrip() {
        Schedule s;
        s.policy.name = "pace";
        s.policy.segment_bytes = 1 << 20;
        s.policy.fuse_below_bytes = 0;
        s.policy.fusion_groups = {{0, 1}, {4, 5, 6}};
        s.plan_order = true;
        s.channels = 2;
        s.tuned = true;
        s.predicted_ms = 12.345;
        s.predicted_low_ms = 10.5;
        s.predicted_high_ms = 14.25;
        s.plan = {CommUnit{{Piece{3, 0, 0, 100}}, 3}, CommUnit{{Piece{0, 0, 0, 10}, Piece{1, 0, 0, 20}}, 0}};
        PolicyConfig base;
        base.name = "pace";
        base.credit = 9;
        auto back = decodeSchedule(encodeSchedule(s), base);
        QVERIFY2(back.ok(), back.status().message().c_str());
        QCOMPARE(back.value().policy.segment_bytes, s.policy.segment_bytes);
        QCOMPARE(back.value().policy.fuse_below_bytes, std::size_t{0});
        QCOMPARE(back.value().policy.fusion_groups, s.policy.fusion_groups);
        QCOMPARE(back.value().policy.credit, 9);  // the rest comes from the experiment
        QCOMPARE(back.value().plan_order, true);
        QCOMPARE(back.value().channels, 2);
        QVERIFY(back.value().tuned);
        QCOMPARE(back.value().predicted_ms, 12.345);
        QCOMPARE(back.value().predicted_low_ms, 10.5);
        QCOMPARE(back.value().predicted_high_ms, 14.25);
        std::vector<std::int64_t> upsideDown = encodeSchedule(s);
        std::swap(upsideDown[6], upsideDown[7]);  // a band whose high end lies below its low end
        QVERIFY(!decodeSchedule(upsideDown, base).ok());
        QCOMPARE(back.value().plan.size(), s.plan.size());
        QCOMPARE(back.value().plan[1].pieces.size(), std::size_t{2});
        QCOMPARE(back.value().plan[1].pieces[1].count, std::size_t{20});
    }

    void malformedScheduleRefused_data() {
        QTest::addColumn<int>("cut");  // words dropped from the end, or -1: one appended
        QTest::newRow("one word short") << 1;
        QTest::newRow("half") << 12;
        QTest::newRow("trailing word") << -1;
    }
    void malformedScheduleRefused() {
        QFETCH(int, cut);
        Schedule s;
        s.policy.fusion_groups = {{0, 1}};
        s.plan = {CommUnit{{Piece{0, 0, 0, 10}}, 0}, CommUnit{{Piece{1, 0, 0, 10}}, 1}};
        std::vector<std::int64_t> words = encodeSchedule(s);
        if (cut < 0) words.push_back(0);
        else words.resize(words.size() - static_cast<std::size_t>(cut));
        QVERIFY(!decodeSchedule(words, PolicyConfig{}).ok());
    }

    void spansRoundTrip() {
        std::vector<ObservedSpan> spans{{ObservedSpan::Comm, 1, 3, 2, 5, 1, 4096, 1000, 2000, 730},
                                        {ObservedSpan::Iteration, 0, 4, -1, -1, -1, 0, 5, 9}};
        auto back = decodeSpans(encodeSpans(spans));
        QVERIFY(back.ok());
        QCOMPARE(back.value().size(), std::size_t{2});
        QCOMPARE(back.value()[0].kind, ObservedSpan::Comm);
        QCOMPARE(back.value()[0].bytes, std::int64_t{4096});
        QCOMPARE(back.value()[1].end, Nanos{9});
        QCOMPARE(back.value()[0].cpu, Nanos{730});  // the collective's CPU reaches the tuner (Workload::comm_cpu)
        QCOMPARE(back.value()[1].cpu, Nanos{-1});
        std::vector<std::int64_t> words = encodeSpans(spans);
        words[1] = 99;  // no such kind
        QVERIFY(!decodeSpans(words).ok());
        QVERIFY(!decodeSpans({5, 0, 0}).ok());  // five spans announced, none there
    }
};

QTEST_GUILESS_MAIN(SelfTuneTest)
#include "tst_self_tune.moc"
