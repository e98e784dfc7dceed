// Whole-model behaviour on the CPU: data-parallel equivalence (N ranks reach what one rank reaches on the
// combined batch) and learning (loss falls by half on the synthetic teacher-student set) for every family, and
// the hooks firing in the order the engine relies on.
#include "kernels/dataset.h"
#include "kernels/model.h"
#include "kernels/optimizer.h"

#include <QtTest/QtTest>

#include <cmath>
#include <set>

using namespace pacer::kernels;

namespace {

ModelSpec smallSpec(const QString& family) {
    ModelSpec s;
    s.family = family.toStdString();
    s.classes = 4;
    if (s.family == "mlp") {
        s.input = 16;
        s.width = 32;
        s.depth = 3;
    } else if (s.family == "cnn") {
        s.channels = 3;
        s.image = 8;
        s.width = 4;
        s.depth = 1;
        s.stages = 2;
    } else {
        s.vocab = 16;
        s.seqLen = 6;
        s.width = 16;
        s.heads = 2;
        s.depth = 1;
        s.ffnMult = 2;
    }
    s.validate();
    return s;
}

// Relative L2 distance between two parameter sets, over all parameters together. (Per tensor would be
// ill-posed: Adam turns the rounding noise of a mathematically zero gradient, such as the key bias of attention,
// into lr-sized steps on a tensor whose norm is itself only noise.)
double relativeDiff(const std::vector<std::vector<float>>& a, const std::vector<std::vector<float>>& b) {
    double d = 0, n = 0;
    for (std::size_t t = 0; t < a.size(); ++t)
        for (std::size_t i = 0; i < a[t].size(); ++i) {
            d += double(a[t][i] - b[t][i]) * (a[t][i] - b[t][i]);
            n += double(b[t][i]) * b[t][i];
        }
    return std::sqrt(d) / std::max(std::sqrt(n), 1e-12);
}

}  // namespace

class TestKernelsTraining : public QObject {
    Q_OBJECT
private slots:
    void dataParallelEquivalence_data() {
        QTest::addColumn<QString>("family");
        QTest::addColumn<int>("ranks");
        QTest::addColumn<QString>("optimizer");
        for (const char* f : {"mlp", "cnn", "transformer"}) {
            QTest::addRow("%s-2-sgd", f) << QString(f) << 2 << "sgd";
            QTest::addRow("%s-4-adam", f) << QString(f) << 4 << "adam";
        }
    }
    // Ranks as models in one process; the "all-reduce" is a plain sum here, then update(p, 1/N) as the engine does.
    void dataParallelEquivalence() {
        QFETCH(QString, family);
        QFETCH(int, ranks);
        QFETCH(QString, optimizer);
        const ModelSpec spec = smallSpec(family);
        const SyntheticDataset data(spec, 11);
        OptimizerConfig oc;
        oc.kind = optimizer.toStdString();
        oc.lr = oc.kind == "adam" ? 1e-3f : 0.05f;
        oc.momentum = 0.9f;
        // Adam divides by sqrt(v): with eps = 1e-8 it turns the ~1e-9 rounding noise of the attention key bias's
        // (mathematically zero) gradient into full lr-sized steps of random sign. eps = 1e-6 keeps such noise
        // below the update scale while leaving real gradients (>= 1e-4 here) unaffected.
        oc.eps = 1e-6f;
        const int perRank = 3, steps = 10;

        auto single = Model::create(spec, 5);
        auto singleOpt = Optimizer::create(oc, single->parameters(), Device::Cpu);
        std::vector<std::unique_ptr<Model>> models;
        std::vector<std::unique_ptr<Optimizer>> opts;
        for (int r = 0; r < ranks; ++r) {
            models.push_back(Model::create(spec, 5));
            opts.push_back(Optimizer::create(oc, models.back()->parameters(), Device::Cpu));
        }
        for (int step = 0; step < steps; ++step) {
            single->trainStep(data.batch(step, 0, 1, perRank * ranks), {});
            for (std::size_t p = 0; p < single->parameters().size(); ++p) singleOpt->update(int(p), 1.f);
            for (int r = 0; r < ranks; ++r) models[r]->trainStep(data.batch(step, r, ranks, perRank), {});
            const auto params0 = models[0]->parameters();
            for (std::size_t p = 0; p < params0.size(); ++p) {
                std::vector<float> sum(params0[p].count, 0.f);
                for (int r = 0; r < ranks; ++r) {
                    const ParamView v = models[r]->parameters()[p];
                    for (std::size_t i = 0; i < v.count; ++i) sum[i] += v.grad[i];
                }
                for (int r = 0; r < ranks; ++r) {
                    std::copy(sum.begin(), sum.end(), models[r]->parameters()[p].grad);
                    opts[r]->update(int(p), 1.f / float(ranks));
                }
            }
        }
        const auto ref = single->parameterValues();
        for (int r = 0; r < ranks; ++r) {
            const double diff = relativeDiff(models[r]->parameterValues(), ref);
            QVERIFY2(diff <= 1e-5, qPrintable(QString("rank %1 differs by %2 relative").arg(r).arg(diff)));
        }
        // And the run did move the parameters: equivalence of a model that never changed would prove nothing.
        auto untouched = Model::create(spec, 5);
        QVERIFY(relativeDiff(untouched->parameterValues(), ref) > 1e-3);
    }

    void lossFallsByHalf_data() {
        QTest::addColumn<QString>("family");
        QTest::addColumn<QString>("optimizer");
        QTest::addColumn<float>("lr");
        QTest::newRow("mlp-sgd") << "mlp" << "sgd" << 0.05f;
        QTest::newRow("cnn-sgd") << "cnn" << "sgd" << 0.05f;
        QTest::newRow("transformer-adam") << "transformer" << "adam" << 3e-3f;
    }
    void lossFallsByHalf() {
        QFETCH(QString, family);
        QFETCH(QString, optimizer);
        QFETCH(float, lr);
        const ModelSpec spec = smallSpec(family);
        const SyntheticDataset data(spec, 3);
        auto model = Model::create(spec, 9);
        OptimizerConfig oc;
        oc.kind = optimizer.toStdString();
        oc.lr = lr;
        oc.momentum = 0.9f;
        auto opt = Optimizer::create(oc, model->parameters(), Device::Cpu);
        const Batch held = data.batch(100000, 0, 1, 256);  // never trained on
        const float initial = model->evaluateLoss(held);
        float final = initial;
        int step = 0;
        for (; step < 200 && final > initial / 2; ++step) {
            model->trainStep(data.batch(step, 0, 1, 32), {});
            for (std::size_t p = 0; p < model->parameters().size(); ++p) opt->update(int(p), 1.f);
            if (step % 10 == 9) final = model->evaluateLoss(held);
        }
        qInfo("%s: held-out loss %.4f -> %.4f after %d steps", qPrintable(family), initial, final, step);
        QVERIFY2(final <= initial / 2, qPrintable(QString("loss %1 -> %2").arg(initial).arg(final)));
    }

    void hooksRunInEngineOrder() {
        const ModelSpec spec = smallSpec("mlp");
        auto model = Model::create(spec, 1);
        QStringList log;
        LayerHooks h;
        h.beforeForward = [&](int l) { log << QString("bf%1").arg(l); };
        h.afterForward = [&](int l) { log << QString("af%1").arg(l); };
        h.beforeBackward = [&](int l) { log << QString("bb%1").arg(l); };
        h.afterBackward = [&](int l) { log << QString("ab%1").arg(l); };
        const SyntheticDataset data(spec, 1);
        model->trainStep(data.batch(0, 0, 1, 4), h);
        QStringList expected;
        const int n = model->layerCount();
        for (int l = 0; l < n; ++l) expected << QString("bf%1").arg(l) << QString("af%1").arg(l);
        for (int l = n - 1; l >= 0; --l) expected << QString("bb%1").arg(l) << QString("ab%1").arg(l);
        QCOMPARE(log, expected);
        QVERIFY(model->gradientReadyEvent(0) == nullptr);  // CPU has no events
        QVERIFY(model->computeStream() == nullptr);
    }

    void gradientsAreOverwrittenNotAccumulated() {
        const ModelSpec spec = smallSpec("transformer");
        auto model = Model::create(spec, 1);
        const SyntheticDataset data(spec, 1);
        const Batch b = data.batch(0, 0, 1, 4);
        model->trainStep(b, {});
        const auto first = model->parameterGradients();
        model->trainStep(b, {});
        QCOMPARE(relativeDiff(model->parameterGradients(), first), 0.0);
    }

    void datasetSlicesMatchTheGlobalBatch() {
        for (const char* f : {"mlp", "cnn", "transformer"}) {
            const SyntheticDataset data(smallSpec(f), 42);
            const Batch whole = data.batch(7, 0, 1, 6);
            for (int r = 0; r < 3; ++r) {
                const Batch part = data.batch(7, r, 3, 2);
                QCOMPARE(std::vector<int>(part.labels), std::vector<int>(whole.labels.begin() + 2 * r, whole.labels.begin() + 2 * r + 2));
                if (!part.inputs.empty()) {
                    const std::size_t in = part.inputs.size() / 2;
                    QVERIFY(std::equal(part.inputs.begin(), part.inputs.end(), whole.inputs.begin() + 2 * r * in));
                } else {
                    const std::size_t in = part.tokens.size() / 2;
                    QVERIFY(std::equal(part.tokens.begin(), part.tokens.end(), whole.tokens.begin() + 2 * r * in));
                }
            }
            // Labels use more than one class (the teacher is not degenerate).
            const Batch big = data.batch(0, 0, 1, 200);
            QVERIFY(std::set<int>(big.labels.begin(), big.labels.end()).size() >= 3);
        }
    }

    void badBatchIsRejected() {
        const ModelSpec spec = smallSpec("mlp");
        auto model = Model::create(spec, 1);
        Batch b = SyntheticDataset(spec, 1).batch(0, 0, 1, 2);
        b.labels[0] = 99;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, model->trainStep(b, {}));
        b = SyntheticDataset(spec, 1).batch(0, 0, 1, 2);
        b.inputs.pop_back();
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, model->trainStep(b, {}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, SyntheticDataset(spec, 1).batch(0, 2, 2, 4));
        const ModelSpec ts = smallSpec("transformer");
        auto tm = Model::create(ts, 1);
        Batch tb = SyntheticDataset(ts, 1).batch(0, 0, 1, 2);
        tb.tokens[3] = ts.vocab;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, tm->trainStep(tb, {}));
    }
};

QTEST_GUILESS_MAIN(TestKernelsTraining)
#include "tst_kernels_training.moc"
