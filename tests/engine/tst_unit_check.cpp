// One check of a policy's units in both drivers: a unit naming a tensor whose gradient the policy was never told is
// ready, or one that reduces an element twice, is refused with the same message by the runtime (real clock, Gloo)
// and by the simulator (virtual clock); a well-behaved policy passes both.
#include "rank_group.h"
#include "rank_training.h"

#include "engine/policy_config.h"
#include "engine/runtime.h"
#include "engine/sim/simulator.h"
#include "engine/unit_ledger.h"

#include <QTest>

using namespace pacer::engine;
using namespace pacer::engine::testing;

namespace {

// A broken policy: as soon as it hears of any gradient it sends `sends` (whatever is ready), then reports done.
class RoguePolicy final : public Policy {
public:
    explicit RoguePolicy(CommUnit sends) : sends_(std::move(sends)) {}
    std::string_view name() const override { return "rogue"; }
    void beginIteration(Nanos) override { heard_ = sent_ = false; }
    void onGradientReady(int, Nanos) override { heard_ = true; }
    std::optional<CommUnit> next(Nanos) override {
        if (!heard_ || sent_) return std::nullopt;
        sent_ = true;
        return sends_;
    }
    void onUnitDone(const CommUnit&, Nanos) override {}
    bool finished() const override { return sent_; }

private:
    CommUnit sends_;
    bool heard_ = false, sent_ = false;
};

// Two layers, one tensor each: backward produces tensor 1 first, so tensor 0 is not ready when tensor 1 is.
const std::vector<std::size_t> kElements{64, 64};

Status runInRuntime(const CommUnit& unit, const QString& dir) {
    auto transports = connectRanks(1, dir);
    if (!transports.ok()) return transports.status();
    const auto tensors = makeTensors(kElements);
    std::vector<float> a(64, 1.0f), b(64, 1.0f);
    RuntimeOptions options;
    options.timeout = std::chrono::milliseconds(5000);
    Runtime runtime(*transports.value()[0], std::make_unique<RoguePolicy>(unit), tensors, {a.data(), b.data()},
                    options, nullptr);
    PACER_RETURN_IF_ERROR(runtime.beginIteration(0));
    runtime.gradientReady(1);  // tensor 0 never becomes ready in this test: only the policy's choice can fail it
    return runtime.waitReduced(1);
}

Status runInSimulator(const CommUnit& unit) {
    Workload w;
    w.ranks = 2;
    w.tensors = makeTensors(kElements);
    w.layers = {{"l0", 1000, 1000}, {"l1", 1000, 1000}};
    RoguePolicy policy(unit);
    auto sim = simulate(w, policy, CostModel{}, SimOptions{});
    return sim.ok() ? Status::success() : sim.status();
}

}  // namespace

class UnitCheckTest : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    int groups_ = 0;

private slots:
    void refusedAlike_data() {
        QTest::addColumn<QString>("driver");
        QTest::addColumn<int>("tensor");
        QTest::addColumn<int>("count");
        QTest::addColumn<QString>("refusal");  // empty: the unit is fine
        for (const char* driver : {"runtime", "simulator"}) {
            QTest::newRow(qPrintable(QString(driver) + ": tensor not ready")) << driver << 0 << 64 << "before its gradient was ready";
            QTest::newRow(qPrintable(QString(driver) + ": more than the tensor")) << driver << 1 << 65 << "invalid piece of tensor 1";
            QTest::newRow(qPrintable(QString(driver) + ": no such tensor")) << driver << 7 << 64 << "which does not exist";
        }
    }

    void refusedAlike() {
        QFETCH(QString, driver);
        QFETCH(int, tensor);
        QFETCH(int, count);
        QFETCH(QString, refusal);
        const CommUnit unit{{Piece{tensor, 0, 0, static_cast<std::size_t>(count)}}, 0};
        const Status st = driver == "runtime" ? runInRuntime(unit, dir_.path() + "/g" + QString::number(groups_++))
                                              : runInSimulator(unit);
        QVERIFY2(!st.ok(), "the unit was accepted");
        QVERIFY2(st.message().find(refusal.toStdString()) != std::string::npos, st.message().c_str());
        QVERIFY2(st.message().find("policy 'rogue'") != std::string::npos, st.message().c_str());
    }

    void ledgerAdmitsWhatWasHeardOnce() {
        const auto tensors = makeTensors(kElements);
        UnitLedger ledger(tensors);
        const CommUnit half{{Piece{1, 0, 0, 32}}, 0};
        QVERIFY(!ledger.admit("p", half).ok());  // not heard yet
        ledger.heard(1);
        QVERIFY(ledger.admit("p", half).ok());
        QVERIFY(ledger.admit("p", CommUnit{{Piece{1, 1, 32, 32}}, 0}).ok());
        QCOMPARE(ledger.remaining(1), std::size_t{0});
        QVERIFY(!ledger.admit("p", half).ok());  // reduced twice
        QCOMPARE(ledger.firstUnfinished(), 0);
        ledger.beginIteration();
        QVERIFY(!ledger.wasHeard(1));
        QCOMPARE(ledger.remaining(1), std::size_t{64});
    }
};

QTEST_GUILESS_MAIN(UnitCheckTest)
#include "tst_unit_check.moc"
