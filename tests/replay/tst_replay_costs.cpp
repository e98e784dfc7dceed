// The cost fits of replay (engine/replay/observed_costs.cpp): the all-reduce line through the slowest arrival, the
// sizes that show a fixed cost, the agreement rounds' cost (traced or inferred from the units that rode), the comm
// thread's gap, channels' busy stretches, and the CPU a collective takes from compute.
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

class TestReplayCosts : public QObject {
    Q_OBJECT

private slots:
    // Dynamic order on CPU ranks: a stand-alone agreement round chooses some units, and DDP's buckets are all chosen
    // so (one round per gradient's news while the bucket fills). A "capture" of a truth with a 300 us round,
    // replayed, must find the round's cost and predict another policy's run of the same truth.
    // Runs trace their rounds as spans of their own: then any policy's run tells the round from the unit, DDP's and
    // Horovod's included, whose units all come by a round. Runs traced before (each unit's span begins with its round,
    // `roundsInsideUnits`) are read by inference from fifo runs, where some units ride on the one before them and
    // show the collective alone (the old fit charged the round to whatever size the fifo run happened to send first,
    // and replay came out too fast for ddp); from a ddp run nothing tells the round's cost from the bucket's there.
    // The small sample MLP's shape (tiny compute, eight tensors) and a deeper synthetic model.
    void predictsDdpWhereEachBucketPaysARound_data() {
        QTest::addColumn<int>("layers");
        QTest::addColumn<Nanos>("backward");
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("to");
        QTest::addColumn<bool>("traced");  // the rounds as spans of their own
        for (const bool traced : {true, false}) {
            const char* how = traced ? "rounds traced" : "rounds inside units";
            QTest::addRow("small, fifo->ddp, %s", how) << 4 << Nanos{100'000} << "fifo" << "ddp" << traced;
            QTest::addRow("deep, fifo->ddp, %s", how) << 16 << Nanos{400'000} << "fifo" << "ddp" << traced;
            QTest::addRow("deep, fifo->pace, %s", how) << 16 << Nanos{400'000} << "fifo" << "pace" << traced;
            QTest::addRow("deep, fifo->horovod, %s", how) << 16 << Nanos{400'000} << "fifo" << "horovod" << traced;
            QTest::addRow("small, fifo->horovod, %s", how) << 4 << Nanos{100'000} << "fifo" << "horovod" << traced;
        }
        // From runs whose every unit a round chose (on the small model those are two or three sizes, too few to show
        // a fixed cost per call: `fitWeighted`).
        for (const char* source : {"ddp", "horovod"})
            for (const char* target : {"fifo", "pace"})
                QTest::addRow("deep, %s->%s, rounds traced", source, target)
                    << 16 << Nanos{400'000} << QString(source) << QString(target) << true;
    }
    void predictsDdpWhereEachBucketPaysARound() {
        QFETCH(int, layers);
        QFETCH(Nanos, backward);
        QFETCH(QString, from);
        QFETCH(QString, to);
        QFETCH(bool, traced);
        Workload truth = syntheticModel(layers, 16'384, 50'000, backward);
        truth.readiness_rides_on_units = true;
        truth.dispatch_ns = 40'000;
        truth.resume_ns = 30'000;
        CostModel cost{100'000, 8.0, {}};  // 1 Gb/s, 100 us per call
        cost.first_unit_extra_ns = 300'000;
        PolicyConfig a, b;
        a.name = from.toStdString();
        b.name = to.toStdString();
        a.first_bucket_bytes = b.first_bucket_bytes = 256 << 10;  // several buckets even on the small model
        Result<ReplayResult> runA = replay(truth, cost, a, WhatIf{}, SimOptions{8, 2});
        Result<ReplayResult> runB = replay(truth, cost, b, WhatIf{}, SimOptions{8, 2});
        QVERIFY(runA.ok() && runB.ok());
        const ObservedRun simulated = toObservedRun(truth, runA.value().sim, a.name);
        const ObservedRun observed = traced ? simulated : roundsInsideUnits(simulated);
        Result<CostModel> fitted = fitCostModel(observed);
        QVERIFY2(fitted.ok(), fitted.status().message().c_str());
        QVERIFY2(qAbs(fitted.value().first_unit_extra_ns - 300'000) < 3'000,
                     qPrintable(QString::number(fitted.value().first_unit_extra_ns)));
        Result<ReplayResult> predicted = replay(extractWorkload(observed).value(), fitted.value(), b, WhatIf{});
        QVERIFY(predicted.ok());
        const double error = qAbs(predicted.value().sim.figures.iter_ms / runB.value().sim.figures.iter_ms - 1);
        qInfo("%s -> %s: predicted %.3f ms, simulated %.3f ms", qPrintable(from), qPrintable(to),
              predicted.value().sim.figures.iter_ms, runB.value().sim.figures.iter_ms);
        QVERIFY2(error < 0.02, qPrintable(QString::number(error)));
    }

    // A run that decided without rounds (plan order: a self-tuned pace) measured none, yet every other policy
    // replayed from it runs in dynamic order, DDP with a round before each bucket: the fit prices a round as one
    // collective of the control block (controlBlockBytes), and its CPU likewise, where the worker measured no round
    // CPU either. The truth's rounds cost just that; priced at zero, the small MLP's DDP at 10 Gb/s was predicted
    // 14-29% too fast from a pace run. Deep and small synthetic models, with and without the collectives' CPU.
    void aRunWithoutRoundsPricesThemForDynamicOrder_data() {
        QTest::addColumn<int>("layers");
        QTest::addColumn<Nanos>("backward");
        QTest::addColumn<QString>("to");
        QTest::addColumn<bool>("cpu");
        for (const bool cpu : {false, true})
            for (const char* target : {"ddp", "fifo", "horovod"}) {
                const char* tag = cpu ? ", collectives take CPU" : "";
                QTest::addRow("small, pace->%s%s", target, tag) << 4 << Nanos{100'000} << QString(target) << cpu;
                QTest::addRow("deep, pace->%s%s", target, tag) << 16 << Nanos{400'000} << QString(target) << cpu;
            }
    }
    void aRunWithoutRoundsPricesThemForDynamicOrder() {
        QFETCH(int, layers);
        QFETCH(Nanos, backward);
        QFETCH(QString, to);
        QFETCH(bool, cpu);
        CostModel cost{100'000, 8.0, {}};  // 1 Gb/s, 100 us per call
        const Workload truth = dynamicOrderTruth(layers, backward, cpu, cost);
        Workload planned = truth;  // the self-tuned pace's plan order: readiness fresh, no rounds
        planned.readiness_rides_on_units = false;
        PolicyConfig pace, target;
        pace.name = "pace";
        target.name = to.toStdString();
        target.first_bucket_bytes = 256 << 10;  // several buckets even on the small model
        Result<ReplayResult> ran = replay(planned, cost, pace, WhatIf{}, SimOptions{8, 2});
        Result<ReplayResult> truthOfTarget = replay(truth, cost, target, WhatIf{}, SimOptions{8, 2});
        QVERIFY(ran.ok() && truthOfTarget.ok());
        ObservedRun observed = toObservedRun(planned, ran.value().sim, pace.name);
        observed.comm_cpu.round_ns = 0;  // what the worker reports where no round ran
        Result<CostModel> fitted = fitCostModel(observed);
        QVERIFY2(fitted.ok(), fitted.status().message().c_str());
        QVERIFY2(qAbs(fitted.value().first_unit_extra_ns - cost.first_unit_extra_ns) < 0.02 * cost.first_unit_extra_ns,
                 qPrintable(QString::number(fitted.value().first_unit_extra_ns)));
        Workload extracted = extractWorkload(observed).value();
        QVERIFY2(qAbs(extracted.comm_cpu.round_ns - truth.comm_cpu.round_ns) <= 0.02 * truth.comm_cpu.round_ns,
                 qPrintable(QString::number(extracted.comm_cpu.round_ns)));
        extracted.readiness_rides_on_units = true;  // the target runs in dynamic order (app::replayInput)
        Result<ReplayResult> predicted = replay(extracted, fitted.value(), target, WhatIf{});
        QVERIFY(predicted.ok());
        const double simulated = truthOfTarget.value().sim.figures.iter_ms;
        const double error = qAbs(predicted.value().sim.figures.iter_ms / simulated - 1);
        qInfo("pace -> %s: predicted %.3f ms, simulated %.3f ms", qPrintable(to),
              predicted.value().sim.figures.iter_ms, simulated);
        QVERIFY2(error < 0.02, qPrintable(QString::number(error)));
    }

    // A self-tuned pace may run nothing but large fused units once its warm-up is over (here one unit of every
    // tensor, in plan order), and one size shows no fixed cost: the line goes through the origin, and a unit of a
    // few hundred bytes costs next to nothing. The warm-up ran the settings as given in dynamic order, small units
    // among them (ObservedRun::warmup_spans): the fit takes the sizes below the steady ones from there, the wire's
    // and the CPU's, and predicts fifo's many small units as the truth runs them. From the steady iterations alone,
    // the transformer sample's fifo at 10 Gb/s was predicted 33% too fast from its pace run.
    // A stored run keeps no CPU per span but the worker's line (TraceBridge::commCpu, fitted with the warm-up's
    // sizes below the steady ones); read at the steady sizes alone it would lose its fixed cost again.
    void aSwitchedRunPricesSmallUnitsByItsWarmup_data() {
        QTest::addColumn<int>("layers");
        QTest::addColumn<Nanos>("backward");
        QTest::addColumn<bool>("cpu");
        QTest::addColumn<bool>("stored");
        for (const bool cpu : {false, true})
            for (const bool stored : {false, true}) {
                if (stored && !cpu) continue;
                const char* tag = !cpu     ? ""
                                  : stored ? ", collectives take CPU, the worker's line"
                                           : ", collectives take CPU";
                QTest::addRow("small%s", tag) << 4 << Nanos{100'000} << cpu << stored;
                QTest::addRow("deep%s", tag) << 16 << Nanos{400'000} << cpu << stored;
            }
    }
    void aSwitchedRunPricesSmallUnitsByItsWarmup() {
        QFETCH(int, layers);
        QFETCH(Nanos, backward);
        QFETCH(bool, cpu);
        QFETCH(bool, stored);
        CostModel cost{70'000, 0.8, {}};  // 10 Gb/s, 70 us per call: fifo's compute pays its units' CPU
        const Workload truth = dynamicOrderTruth(layers, backward, cpu, cost);
        Workload planned = truth;  // after the warm-up: plan order, readiness fresh, no rounds
        planned.readiness_rides_on_units = false;
        PolicyConfig given, tuned, fifo;
        given.name = tuned.name = "pace";
        fifo.name = "fifo";
        tuned.segment_bytes = 1 << 30;
        tuned.fusion_groups.emplace_back();
        for (const TensorInfo& t : truth.tensors) tuned.fusion_groups.back().push_back(t.id);
        Result<ReplayResult> warm = replay(truth, cost, given, WhatIf{}, SimOptions{5, 1});
        Result<ReplayResult> ran = replay(planned, cost, tuned, WhatIf{}, SimOptions{8, 2});
        Result<ReplayResult> truthOfFifo = replay(truth, cost, fifo, WhatIf{}, SimOptions{8, 2});
        QVERIFY(warm.ok() && ran.ok() && truthOfFifo.ok());
        // As a worker keeps them: every span with its own CPU, no stored line.
        auto measuredCpu = [&](ObservedRun run) {
            run.comm_cpu = {};
            for (ObservedSpan& s : run.spans) {
                if (s.kind == ObservedSpan::Comm) s.cpu = truth.comm_cpu.at(static_cast<std::size_t>(s.bytes));
                if (s.kind == ObservedSpan::Round) s.cpu = std::llround(truth.comm_cpu.round_ns);
            }
            return run;
        };
        ObservedRun observed = measuredCpu(toObservedRun(planned, ran.value().sim, "pace"));
        std::set<std::int64_t> steadySizes;
        for (const ObservedSpan& s : observed.spans)
            if (s.kind == ObservedSpan::Comm) steadySizes.insert(s.bytes);
        QCOMPARE(steadySizes.size(), std::size_t{1});
        for (const ObservedSpan& s : measuredCpu(toObservedRun(truth, warm.value().sim, "pace")).spans)
            if (s.iteration > 0)
                observed.warmup_spans.push_back(s);  // the first pays for allocation: app leaves it out
        if (stored) {  // as the worker sums them (TraceBridge): per size, before the switch and after
            std::map<double, std::pair<double, double>> steady, before;
            auto add = [](auto& sums, const ObservedSpan& s) {
                if (s.kind != ObservedSpan::Comm) return;
                auto& [sum, count] = sums[static_cast<double>(s.bytes)];
                sum += static_cast<double>(s.cpu);
                count += 1;
            };
            for (ObservedSpan& s : observed.spans) add(steady, s), s.cpu = -1;
            for (ObservedSpan& s : observed.warmup_spans) add(before, s), s.cpu = -1;
            observed.comm_cpu = fitCommCpu(steady, {0, 0}, before);
        }

        Result<CostModel> fitted = fitCostModel(observed);
        QVERIFY2(fitted.ok(), fitted.status().message().c_str());
        const std::size_t bias = truth.tensors[1].bytes();
        QVERIFY2(qAbs(fitted.value().at(bias) - cost.at(bias)) < 0.05 * cost.at(bias),
                 qPrintable(QString("a %1-byte unit: %2 ns").arg(bias).arg(fitted.value().at(bias))));
        Workload extracted = extractWorkload(observed).value();
        if (cpu)
            QVERIFY2(qAbs(extracted.comm_cpu.alpha_ns - truth.comm_cpu.alpha_ns) < 0.05 * truth.comm_cpu.alpha_ns,
                     qPrintable(QString::number(extracted.comm_cpu.alpha_ns)));
        extracted.readiness_rides_on_units = true;  // fifo runs in dynamic order (app::replayInput)
        Result<ReplayResult> predicted = replay(extracted, fitted.value(), fifo, WhatIf{});
        QVERIFY(predicted.ok());
        const double simulated = truthOfFifo.value().sim.figures.iter_ms;
        const double error = qAbs(predicted.value().sim.figures.iter_ms / simulated - 1);
        qInfo("pace -> fifo: predicted %.3f ms, simulated %.3f ms", predicted.value().sim.figures.iter_ms, simulated);
        QVERIFY2(error < 0.02, qPrintable(QString::number(error)));
    }

    // Dynamic order's stand-alone rounds take CPU of their own (CommCpu::round_ns), measured apart from the units'
    // (RoundEvent::cpu). A fifo run has a round before most of its few units, a pace run in 16 KiB segments dozens
    // of units back to back per round: the fit must tell the two apart, and extraction and simulation must charge a
    // round's CPU alike, or the pace run predicted from the fifo run is off by what the rounds took (on the small
    // MLP over shared memory, folded into the units' line, 10-25% too slow).
    void roundsTakeCpuOfTheirOwn() {
        Workload truth = syntheticModel(8, 4'096, 100'000, 400'000);  // as much compute as pace's communication
        truth.readiness_rides_on_units = true;
        truth.comm_cpu = {40'000, 0.1, 100'000};
        CostModel cost{70'000, 0.8, {}};
        cost.first_unit_extra_ns = 70'000;
        PolicyConfig fifo, pace;
        fifo.name = "fifo";
        pace.name = "pace";
        pace.segment_bytes = 16 << 10;
        Result<ReplayResult> runFifo = replay(truth, cost, fifo, WhatIf{}, SimOptions{8, 2});
        Result<ReplayResult> runPace = replay(truth, cost, pace, WhatIf{}, SimOptions{8, 2});
        QVERIFY(runFifo.ok() && runPace.ok());
        // As a worker keeps them: every span with its own CPU, no stored line.
        ObservedRun observed = toObservedRun(truth, runFifo.value().sim, "fifo");
        observed.comm_cpu = {};
        int rounds = 0;
        for (ObservedSpan& s : observed.spans) {
            if (s.kind == ObservedSpan::Comm)
                s.cpu = std::llround(truth.comm_cpu.at(static_cast<std::size_t>(s.bytes)));
            if (s.kind == ObservedSpan::Round) s.cpu = 100'000, ++rounds;
        }
        QVERIFY(rounds > 0);
        const CommCpu fit = fitCommCpu(observed);
        QVERIFY2(qAbs(fit.alpha_ns - 40'000) < 400 && qAbs(fit.ns_per_byte - 0.1) < 0.001 &&
                     qAbs(fit.round_ns - 100'000) < 1,
                 qPrintable(
                     QString("%1 ns + %2 ns/B, round %3 ns").arg(fit.alpha_ns).arg(fit.ns_per_byte).arg(fit.round_ns)));
        // Measured as before 2026-12-04: each round's CPU in the unit after it.
        ObservedRun folded = observed;
        for (ObservedSpan& s : folded.spans) s.cpu = -1;
        std::map<std::pair<int, int>, Nanos> pending;  // (rank, iteration) -> CPU of the rounds since the last unit
        std::vector<ObservedSpan*> byStart;
        for (ObservedSpan& s : folded.spans) byStart.push_back(&s);
        std::stable_sort(byStart.begin(), byStart.end(), [](auto* a, auto* b) { return a->start < b->start; });
        for (ObservedSpan* s : byStart) {
            if (s->kind == ObservedSpan::Round) pending[{s->rank, s->iteration}] += 100'000;
            if (s->kind == ObservedSpan::Comm) {
                s->cpu = std::llround(truth.comm_cpu.at(static_cast<std::size_t>(s->bytes))) +
                         pending[{s->rank, s->iteration}];
                pending[{s->rank, s->iteration}] = 0;
            }
        }
        {  // the case tells the two measurements apart: folded, fifo's rounds price pace's segments too dear
            Result<ReplayResult> predicted =
                replay(extractWorkload(folded).value(), fitCostModel(folded).value(), pace, WhatIf{});
            QVERIFY(predicted.ok());
            const double error = predicted.value().sim.figures.iter_ms / runPace.value().sim.figures.iter_ms - 1;
            qInfo("rounds folded into units: fifo -> pace predicted %.3f ms (%+.0f%%)",
                  predicted.value().sim.figures.iter_ms, 100 * error);
            QVERIFY2(error > 0.10, qPrintable(QString::number(error)));
        }
        for (const PolicyConfig& target : {fifo, pace}) {
            Result<ReplayResult> predicted =
                replay(extractWorkload(observed).value(), fitCostModel(observed).value(), target, WhatIf{});
            QVERIFY(predicted.ok());
            const double truthMs = (target.name == "fifo" ? runFifo : runPace).value().sim.figures.iter_ms;
            const double error = qAbs(predicted.value().sim.figures.iter_ms / truthMs - 1);
            qInfo("fifo -> %s: predicted %.3f ms, simulated %.3f ms", target.name.c_str(),
                  predicted.value().sim.figures.iter_ms, truthMs);
            QVERIFY2(error < 0.02, qPrintable(QString::number(error)));
        }
    }

    // A traced round is a collective of a few hundred bytes over the same transport, so it is one more size for the
    // cost line. A DDP run of the small model shows two or three bucket sizes, too few for a fixed cost per call
    // (fitWeighted puts the line through the origin), and fifo's eight small units were priced too cheap; with the
    // rounds' size in the fit the line finds the truth's 100 us per call. The truth's round costs what its line says
    // a collective of the round's bytes costs, as on a real transport.
    void aRoundIsOneMoreSizeForTheLine() {
        Workload truth = syntheticModel(4, 16'384, 50'000, 100'000);
        truth.readiness_rides_on_units = true;
        const CostModel line{100'000, 8.0, {}};  // 1 Gb/s, 100 us per call
        const std::int64_t roundBytes = 4 * (static_cast<std::int64_t>(truth.tensors.size()) + 4);
        CostModel cost = line;
        cost.first_unit_extra_ns = static_cast<double>(line.at(static_cast<std::size_t>(roundBytes)));
        PolicyConfig ddp, fifo;
        ddp.name = "ddp";
        fifo.name = "fifo";
        ddp.first_bucket_bytes = 256 << 10;
        Result<ReplayResult> runDdp = replay(truth, cost, ddp, WhatIf{}, SimOptions{8, 2});
        Result<ReplayResult> runFifo = replay(truth, cost, fifo, WhatIf{}, SimOptions{8, 2});
        QVERIFY(runDdp.ok() && runFifo.ok());
        ObservedRun observed = toObservedRun(truth, runDdp.value().sim, "ddp");
        std::set<std::int64_t> sizes;
        for (ObservedSpan& s : observed.spans) {
            if (s.kind == ObservedSpan::Round) s.bytes = roundBytes;  // as the runtime traces it
            if (s.kind == ObservedSpan::Comm) sizes.insert(s.bytes);
        }
        QVERIFY2(sizes.size() < 3, "the case needs a run whose units alone show no fixed cost");
        Result<CostModel> fitted = fitCostModel(observed);
        QVERIFY2(fitted.ok(), fitted.status().message().c_str());
        QVERIFY2(qAbs(fitted.value().alpha_ns - 100'000) < 5'000, qPrintable(QString::number(fitted.value().alpha_ns)));
        Result<ReplayResult> predicted = replay(extractWorkload(observed).value(), fitted.value(), fifo, WhatIf{});
        QVERIFY(predicted.ok());
        const double error = qAbs(predicted.value().sim.figures.iter_ms / runFifo.value().sim.figures.iter_ms - 1);
        QVERIFY2(error < 0.02, qPrintable(QString::number(error)));
    }

    // Riding readiness (dynamic order on CPU ranks): the riders' own table prices the units, but only where they
    // came in two sizes or more. Here the 1 MiB gradient and the first 148 KiB one are chosen by rounds and the
    // other two 148 KiB ones ride: a line through one size would go through the origin and price 1 MiB at 2.79 ms
    // instead of the 2.20 the run showed.
    void ridersOfOneSizeDoNotPriceTheOthers() {
        Workload truth;
        truth.ranks = 2;
        truth.readiness_rides_on_units = true;
        for (int l = 0; l < 4; ++l) {
            // Backward runs from the last layer: its 1 MiB gradient first, then the small ones 10 us apart.
            truth.layers.push_back({"layer" + std::to_string(l), 1'000'000, l == 3 ? 1'000'000 : 10'000});
            truth.tensors.push_back({l, "layer" + std::to_string(l), l, l == 3 ? std::size_t{262'144} : 37'888});
        }
        PolicyConfig fifo;
        fifo.name = "fifo";
        const CostModel cost{100'000, 2.0, {}};
        Result<ReplayResult> captured = replay(truth, cost, fifo, WhatIf{}, SimOptions{12, 1});
        QVERIFY(captured.ok());
        const ObservedRun run = toObservedRun(truth, captured.value().sim, "fifo");
        Result<CostModel> fitted = fitCostModel(run);
        QVERIFY2(fitted.ok(), fitted.status().message().c_str());
        const double oneMiB = static_cast<double>(fitted.value().at(1 << 20));
        const double truthOneMiB = static_cast<double>(cost.at(1 << 20));
        QVERIFY2(qAbs(oneMiB / truthOneMiB - 1) < 0.05, qPrintable(QString("1 MiB priced at %1 ns, ran in %2 ns")
                                                                   .arg(oneMiB).arg(truthOneMiB)));
    }

    void fitsLineThroughSlowestArrival() {
        // Rank 1 arrives late at every collective, so rank 0's spans include waiting; the shortest span of each
        // collective is the transfer. One wild outlier (a page fault) must not bend the line.
        ObservedRun run = twoTensorRun();
        const double alpha = 30'000, beta = 0.4;
        int tensor = 0;
        for (int it = 0; it < 3; ++it)
            for (std::int64_t bytes = 4096; bytes <= (8 << 20); bytes *= 2) {
                const Nanos d = static_cast<Nanos>(alpha + beta * static_cast<double>(bytes));
                run.spans.push_back(comm(0, it, tensor % 2, bytes, 1000, d + 50'000));
                run.spans.push_back(comm(1, it, tensor % 2, bytes, 51'000, d));
                ++tensor;
            }
        run.spans.push_back(comm(1, 2, 0, 12345, 0, 90'000'000));
        Result<CostModel> c = fitCostModel(run);
        QVERIFY2(c.ok(), c.status().message().c_str());
        QVERIFY2(qAbs(c.value().alpha_ns - alpha) < 10, qPrintable(QString::number(c.value().alpha_ns)));
        QVERIFY(qAbs(c.value().ns_per_byte - beta) < 1e-5);
    }

    void singleSizeFitsThroughOrigin() {
        ObservedRun run = twoTensorRun();
        for (int it = 0; it < 4; ++it) run.spans.push_back(comm(0, it, 0, 1 << 20, 0, 1'000'000));
        Result<CostModel> c = fitCostModel(run);
        QVERIFY(c.ok());
        QCOMPARE(c.value().alpha_ns, 0.0);
        QVERIFY(qAbs(c.value().ns_per_byte - 1'000'000.0 / (1 << 20)) < 1e-9);
    }

    // A fixed cost per call is read off sizes that show it: three or more, spread at least twice over. Two sizes fit
    // any line exactly, so the noise of their means lands in the fixed cost. The times are a DDP run's two buckets
    // (the transformer at 10 Gb/s: 1.0 and 2.4 MB), whose line drew 326 us a call where the fifo run of the same
    // cell measured 96 us over nine sizes; every collective of a schedule with small units paid it.
    void fixedCostNeedsSizesThatShowIt_data() {
        QTest::addColumn<QList<double>>("sizes");
        QTest::addColumn<QList<double>>("micros");
        QTest::addColumn<bool>("fixedCost");
        QTest::newRow("two buckets") << QList<double>{1061928, 2386944} << QList<double>{1197.55, 2284.62} << false;
        QTest::newRow("three close sizes") << QList<double>{1000000, 1300000, 1600000}
                                           << QList<double>{1150, 1380, 1700} << false;
        QTest::newRow("three sizes spread") << QList<double>{65536, 262144, 1048576}
                                            << QList<double>{150, 310, 950} << true;
    }
    void fixedCostNeedsSizesThatShowIt() {
        QFETCH(QList<double>, sizes);
        QFETCH(QList<double>, micros);
        QFETCH(bool, fixedCost);
        ObservedRun run = twoTensorRun();
        run.readiness_rides_on_units = false;  // DDP's buckets: each chosen by a round, every unit in the table
        run.comm_cpu = {600'000, 0.3};         // a stored CPU line, known only at the run's own sizes
        for (int it = 0; it < 4; ++it)
            for (qsizetype i = 0; i < sizes.size(); ++i)
                run.spans.push_back(comm(0, it, static_cast<int>(i % 2), static_cast<std::int64_t>(sizes[i]),
                                         (it * 10 + i) * 5'000'000, static_cast<Nanos>(micros[i] * 1000)));
        Result<CostModel> c = fitCostModel(run);
        QVERIFY2(c.ok(), c.status().message().c_str());
        const CommCpu cpu = fitCommCpu(run);
        if (fixedCost) {
            QVERIFY2(c.value().alpha_ns > 50'000, qPrintable(QString::number(c.value().alpha_ns)));
            QVERIFY(qAbs(cpu.alpha_ns - 600'000) < 1e-3);  // refitted at its own sizes, the line is the line
            return;
        }
        QCOMPARE(c.value().alpha_ns, 0.0);
        QCOMPARE(cpu.alpha_ns, 0.0);
        // Through the origin: every size is priced by its bytes, at the slope that fits the observed ones best.
        double num = 0, den = 0, cpuNum = 0;
        for (qsizetype i = 0; i < sizes.size(); ++i) {
            num += sizes[i] * micros[i] * 1000;
            den += sizes[i] * sizes[i];
            cpuNum += sizes[i] * (600'000 + 0.3 * sizes[i]);
        }
        QVERIFY(qAbs(c.value().ns_per_byte - num / den) < 1e-9);
        QVERIFY(qAbs(cpu.ns_per_byte - cpuNum / den) < 1e-9);
    }

    // A size far off the line that was seen in every iteration keeps its own mean in the table (a small collective
    // that waits for a core during backward costs that), while the line ignores it.
    void frequentSizeOffTheLineKeepsItsMean() {
        ObservedRun run = twoTensorRun();
        run.readiness_rides_on_units = false;  // every collective counts as it is (no agreement rounds to tell apart)
        const double alpha = 30'000, beta = 0.4;
        for (int it = 1; it < 6; ++it) {
            int tensor = 0;
            for (std::int64_t bytes = 4096; bytes <= (8 << 20); bytes *= 4) {
                const Nanos d = static_cast<Nanos>(alpha + beta * static_cast<double>(bytes));
                for (int rank = 0; rank < 2; ++rank) run.spans.push_back(comm(rank, it, tensor % 2, bytes, 0, d));
                ++tensor;
            }
            for (int rank = 0; rank < 2; ++rank) run.spans.push_back(comm(rank, it, 0, 40, 0, 2'000'000));
        }
        Result<CostModel> c = fitCostModel(run);
        QVERIFY2(c.ok(), c.status().message().c_str());
        QVERIFY2(qAbs(c.value().alpha_ns - alpha) < 10, qPrintable(QString::number(c.value().alpha_ns)));
        QCOMPARE(c.value().at(40), Nanos{2'000'000});
        QCOMPARE(c.value().at(4096), static_cast<Nanos>(alpha + beta * 4096));
    }

    // Dynamic order on CPU ranks: an iteration's first unit is chosen by a stand-alone agreement round (nothing
    // rode before it), so it takes longer than the same size later on. The table keeps the later units' time and
    // the difference is the first unit's extra; a run whose readiness did not ride (plan order) keeps the mean.
    void firstUnitOfAnIterationPaysTheRound_data() {
        QTest::addColumn<bool>("rides");
        QTest::addColumn<bool>("host");
        QTest::newRow("dynamic order, cpu") << true << true;
        QTest::newRow("plan order, cpu") << false << true;
        QTest::newRow("gpu") << false << false;
    }
    void firstUnitOfAnIterationPaysTheRound() {
        QFETCH(bool, rides);
        QFETCH(bool, host);
        ObservedRun run = twoTensorRun();
        run.readiness_rides_on_units = rides;
        run.host_memory = host;
        for (int it = 1; it < 5; ++it)
            for (int rank = 0; rank < 2; ++rank) {
                const Nanos t = it * 1'000'000;
                run.spans.push_back(comm(rank, it, 1, 4000, t, 3000));        // first: 1000 of it is the round
                run.spans.push_back(comm(rank, it, 0, 4000, t + 5000, 2000));
            }
        Result<CostModel> c = fitCostModel(run);
        QVERIFY2(c.ok(), c.status().message().c_str());
        QCOMPARE(c.value().at(4000), Nanos{rides ? 2000 : 2500});
        // Plan order infers no round from its first units; on CPU ranks it prices one as the control block's
        // collective (another policy replayed from it runs in dynamic order); a GPU run never rides.
        const double priced = host ? static_cast<double>(c.value().at(controlBlockBytes(run.tensors.size()))) : 0.0;
        QCOMPARE(c.value().first_unit_extra_ns, rides ? 1000.0 : priced);
    }

    // The comm thread's gap between back-to-back units: from the latest end of one collective over ranks to the
    // latest start of the next (rank 1 leaves tensor 1 100 ns after rank 0; tensor 0 starts 500 ns after that).
    // The iteration's first unit, chosen by a round, has nothing ahead of it; a fused unit (both tensors, 8000 bytes)
    // does not count, since a policy may hold fused units back on purpose, nor does a gap while a rank computed (a
    // comm thread that waited for a core). Where a round chose the second unit (then no pair counts) the gap is
    // read from the round's latest end (rank 1's, 3250 ns in) to the unit's latest start, 350 ns after.
    void commThreadsGapIsFittedFromUnitsBackToBack_data() {
        QTest::addColumn<std::int64_t>("secondBytes");
        QTest::addColumn<bool>("computing");
        QTest::addColumn<bool>("round");
        QTest::addColumn<double>("gap");
        QTest::newRow("a tensor of its own") << std::int64_t{4000} << false << false << 500.0;
        QTest::newRow("fused") << std::int64_t{8000} << false << false << 0.0;
        QTest::newRow("a rank computed meanwhile") << std::int64_t{4000} << true << false << 0.0;
        QTest::newRow("chosen by a round") << std::int64_t{4000} << false << true << 350.0;
        QTest::newRow("fused, chosen by a round") << std::int64_t{8000} << false << true << 350.0;
        QTest::newRow("chosen by a round, a rank computed meanwhile") << std::int64_t{4000} << true << true << 0.0;
    }
    void commThreadsGapIsFittedFromUnitsBackToBack() {
        QFETCH(std::int64_t, secondBytes);
        QFETCH(bool, computing);
        QFETCH(bool, round);
        QFETCH(double, gap);
        ObservedRun run = twoTensorRun();
        for (int it = 1; it < 5; ++it)
            for (int rank = 0; rank < 2; ++rank) {
                const Nanos t = it * 1'000'000;
                if (round) run.spans.push_back(span(ObservedSpan::Round, rank, it, -1, t + 3150, t + 3200 + 50 * rank));
                run.spans.push_back(comm(rank, it, 1, 4000, t, rank == 0 ? 3000 : 3100));
                run.spans.push_back(comm(rank, it, 0, secondBytes, t + 3600, 2000));
                if (computing && rank == 1)
                    run.spans.push_back(span(ObservedSpan::Forward, rank, it, 0, t + 3200, t + 3400));
            }
        Result<CostModel> c = fitCostModel(run);
        QVERIFY2(c.ok(), c.status().message().c_str());
        QCOMPARE(c.value().unit_gap_ns, gap);
    }

    // The first unit's extra survives the line's refit without an outlier: sizes on the line 1000 + 0.25 ns/B, the
    // iteration's first 4000-byte unit 1000 ns longer, and one 90 ms collective at an odd size in one iteration.
    void firstUnitExtraSurvivesTheOutlierPass() {
        ObservedRun run = twoTensorRun();
        auto onLine = [](std::int64_t bytes) { return static_cast<Nanos>(1000 + 0.25 * static_cast<double>(bytes)); };
        for (int it = 1; it < 5; ++it)
            for (int rank = 0; rank < 2; ++rank) {
                Nanos t = it * 100'000'000;
                run.spans.push_back(comm(rank, it, 1, 4000, t, onLine(4000) + 1000));  // first: carries the round
                t += 10'000;
                for (std::int64_t bytes : {std::int64_t{4000}, std::int64_t{65536}, std::int64_t{1} << 20,
                                           std::int64_t{4} << 20}) {
                    ObservedSpan c = comm(rank, it, 0, bytes, t, onLine(bytes));
                    c.segment = static_cast<int>(bytes % 1000);  // a collective of its own per size
                    run.spans.push_back(c);
                    t += 2'000'000;
                }
                if (it == 2) run.spans.push_back(comm(rank, it, 1, 12345, t, 90'000'000));
            }
        Result<CostModel> c = fitCostModel(run);
        QVERIFY2(c.ok(), c.status().message().c_str());
        QVERIFY2(qAbs(c.value().alpha_ns - 1000) < 1, qPrintable(QString::number(c.value().alpha_ns)));
        QCOMPARE(c.value().first_unit_extra_ns, 1000.0);
        QCOMPARE(c.value().at(4000), onLine(4000));
    }

    // Units that rode on the one before them give the per-call line only from sizes that make one. Per iteration
    // (1..6) a unit chosen by a round (its 1000 ns in its span) and a 4000-byte rider, all on the line 1000 +
    // 0.25 ns/B. "sparse": in two iterations a 1 MiB partition also rode, descheduled both times (8 ms); the other
    // iterations' 1 MiB units came by rounds, on the line. Drawn through the riders, the line priced 1 MiB at
    // about 8 ms (a BytesScheduler run replayed 121% too slow). "close": the riders are 4000 and 4160 bytes, the
    // larger a little faster by noise; the line through them was flat, every byte free (one replayed 11% too fast).
    void ridersDrawTheLineOnlyFromSizesThatMakeOne_data() {
        QTest::addColumn<bool>("sparse");
        QTest::newRow("a size that rode twice") << true;
        QTest::newRow("sizes 4% apart") << false;
    }
    void ridersDrawTheLineOnlyFromSizesThatMakeOne() {
        QFETCH(bool, sparse);
        ObservedRun run = twoTensorRun();
        auto onLine = [](std::int64_t bytes) { return static_cast<Nanos>(1000 + 0.25 * static_cast<double>(bytes)); };
        constexpr std::int64_t kMiB = std::int64_t{1} << 20;
        for (int it = 1; it <= 6; ++it)
            for (int rank = 0; rank < 2; ++rank) {
                Nanos t = it * 100'000'000;
                int segment = 0;
                auto add = [&](std::int64_t bytes, Nanos duration) {
                    ObservedSpan c = comm(rank, it, 0, bytes, t, duration);
                    c.segment = segment++;
                    run.spans.push_back(c);
                    t += duration + 10'000;
                };
                const bool twice = sparse && it <= 2;
                add(twice ? 4000 : kMiB, onLine(twice ? 4000 : kMiB) + 1000);  // chosen by a round
                if (sparse) {
                    add(4000, onLine(4000));
                    if (twice) add(kMiB, 8'000'000);
                } else {
                    add(it % 2 ? 4000 : 4160, it % 2 ? onLine(4000) : onLine(4000) - 10);
                }
            }
        Result<CostModel> c = fitCostModel(run);
        QVERIFY2(c.ok(), c.status().message().c_str());
        const Nanos mib = c.value().at(static_cast<std::size_t>(kMiB));
        qInfo("1 MiB priced at %lld ns (on the line %lld), %.3f ns/B", static_cast<long long>(mib),
              static_cast<long long>(onLine(kMiB)), c.value().ns_per_byte);
        // Its collectives' mean (those of the rounds less the round, and the two descheduled) bounds it above.
        QVERIFY2(mib <= (4 * onLine(kMiB) + 2 * 8'000'000) / 6, qPrintable(QString::number(mib)));
        QVERIFY2(mib >= onLine(kMiB) / 2, qPrintable(QString::number(mib)));
        QVERIFY2(c.value().ns_per_byte > 0.1, qPrintable(QString::number(c.value().ns_per_byte)));
    }

    // With several channels a collective that overlapped another also waited for its bytes; a size's collectives
    // that ran alone are what it costs (the simulator adds the queueing). Per iteration: two 4000-byte units in
    // flight together (3000 ns each), then one alone (2000 ns).
    void channelsFitFromCollectivesThatRanAlone() {
        ObservedRun run = twoTensorRun();
        run.channels = 2;
        run.readiness_rides_on_units = false;  // plan order, as channels need
        for (int it = 1; it < 4; ++it)
            for (int rank = 0; rank < 2; ++rank) {
                const Nanos t = it * 1'000'000;
                run.spans.push_back(comm(rank, it, 0, 4000, t, 3000));
                run.spans.push_back(comm(rank, it, 1, 4000, t + 1000, 3000));
                ObservedSpan alone = comm(rank, it, 1, 4000, t + 10'000, 2000);
                alone.segment = 1;
                run.spans.push_back(alone);
            }
        Result<CostModel> c = fitCostModel(run);
        QVERIFY2(c.ok(), c.status().message().c_str());
        QCOMPARE(c.value().at(4000), Nanos{2000});
        run.channels = 1;  // one channel: nothing overlaps by design, every collective counts
        c = fitCostModel(run);
        QVERIFY(c.ok());
        QCOMPARE(c.value().at(4000), Nanos{2667});
    }

    // Where only one size ever ran alone, the wire's line comes from the busy stretches: per iteration three
    // 256 KiB units queue on a wire of 8 ns/B (each 100 us of fixed cost, overlapping) with a 1 KiB unit behind
    // them, then one 256 KiB unit runs alone. A line through the lone 256 KiB mean and the queued 1 KiB one
    // would be flat (the 1 KiB unit waited 6 ms), pricing every byte at nothing.
    void channelsWithOneLoneSizeFitTheWireFromBusyStretches() {
        ObservedRun run = twoTensorRun();
        run.channels = 4;
        run.readiness_rides_on_units = false;
        const double alpha = 100'000, beta = 8.0;
        const auto wire = static_cast<Nanos>(beta * 262'144);
        for (int it = 1; it < 5; ++it)
            for (int rank = 0; rank < 2; ++rank) {
                const Nanos t = it * 100'000'000;
                for (int k = 0; k < 3; ++k) {
                    ObservedSpan c =
                        comm(rank, it, 0, 262'144, t + k * 1000, static_cast<Nanos>(alpha) + (k + 1) * wire - k * 1000);
                    c.segment = k;
                    run.spans.push_back(c);
                }
                run.spans.push_back(
                    comm(rank, it, 1, 1024, t + 3000, static_cast<Nanos>(alpha) + 3 * wire - 3000 + 8192));
                ObservedSpan alone = comm(rank, it, 0, 262'144, t + 50'000'000, static_cast<Nanos>(alpha) + wire);
                alone.segment = 3;
                run.spans.push_back(alone);
            }
        Result<CostModel> c = fitCostModel(run);
        QVERIFY2(c.ok(), c.status().message().c_str());
        qInfo("wire %.3f ns/B (truth %.1f), alpha %.0f ns", c.value().ns_per_byte, beta, c.value().alpha_ns);
        QVERIFY2(qAbs(c.value().ns_per_byte / beta - 1) < 0.1, qPrintable(QString::number(c.value().ns_per_byte)));
        QCOMPARE(c.value().at(262'144), static_cast<Nanos>(alpha) + wire);  // what the lone ones took
    }

    // Channels kept busy the whole backward pass merge into one stretch per iteration, all of about the same
    // bytes: the stretches give no slope (here a slightly negative one, from noise), and the small collectives that
    // ran alone, at two sizes, give a line of their own fixed cost. The wire comes from the stretches all the same,
    // through the origin: a 4-channel CNN run at 1 Gb/s fitted 15.6 ms a call and 0 ns/B and was replayed 28% too
    // fast, a transformer run with two lone sizes 0.53 Gb/s for 1 Gb/s and 46% too slow.
    void channelsBusyAllIterationStillFitTheWire() {
        ObservedRun run = twoTensorRun();
        run.channels = 4;
        run.readiness_rides_on_units = false;
        const double beta = 8.0;
        const auto wire = static_cast<Nanos>(beta * 262'144);
        for (int it = 1; it < 5; ++it)
            for (int rank = 0; rank < 2; ++rank) {
                const Nanos t = it * 100'000'000;
                const int extra = it % 2;  // every other iteration a small unit joins the stretch
                const Nanos noise = it % 2 == 1 ? -20'000 : 20'000;
                for (int k = 0; k < 4; ++k) {
                    ObservedSpan c =
                        comm(rank, it, 0, 262'144, t + k * 1000, (k + 1) * wire - k * 1000 + (k == 3 ? noise : 0));
                    c.segment = k;
                    run.spans.push_back(c);
                }
                if (extra) run.spans.push_back(comm(rank, it, 1, 1024, t + 4000, 4 * wire - 8000));
                for (int k = 0; k < 2; ++k) {  // small units alone, after the stretch: 150 us whatever their size
                    ObservedSpan alone = comm(rank, it, 1, 1024 * (k + 1), t + 50'000'000 + k * 1'000'000, 150'000);
                    alone.segment = 1 + k;
                    run.spans.push_back(alone);
                }
            }
        Result<CostModel> c = fitCostModel(run);
        QVERIFY2(c.ok(), c.status().message().c_str());
        qInfo("wire %.3f ns/B (truth %.1f), alpha %.0f ns", c.value().ns_per_byte, beta, c.value().alpha_ns);
        QVERIFY2(qAbs(c.value().ns_per_byte / beta - 1) < 0.1, qPrintable(QString::number(c.value().ns_per_byte)));
    }

    // A stored run keeps the fit in its metrics (ObservedRun::comm_cpu); spans that carry CPU times win over it.
    void storedCommCpuStandsInForSpans() {
        ObservedRun run = twoTensorRun();
        run.comm_cpu = {500, 0.5};
        run.spans.push_back(comm(0, 1, 0, 1000, 0, 2000));
        QCOMPARE(fitCommCpu(run).at(1000), 1000.0);
        run.spans.back().cpu = 700;
        QCOMPARE(fitCommCpu(run).at(1000), 700.0);
    }
};

QTEST_GUILESS_MAIN(TestReplayCosts)
#include "tst_replay_costs.moc"
