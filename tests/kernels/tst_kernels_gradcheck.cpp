// Finite-difference gradient checks for every layer type on the CPU backend: the analytic backward of
// L = sum(r * layer(x)) for a fixed random r must match central differences of L, for the input gradient and
// for every parameter, on a sample of coordinates.
#include "kernels/backend.h"
#include "kernels/layer.h"

#include <QtTest/QtTest>

#include <cmath>
#include <cstring>
#include <functional>

using namespace pacer::kernels;

namespace {

using LayerFactory = std::function<std::unique_ptr<Layer>(Backend&, Rng&)>;

enum class InputKind { Normal, AwayFromZero, Distinct, Tokens };

struct Case {
    LayerFactory make;
    InputKind input = InputKind::Normal;
    int vocab = 0;  // for Tokens
};

double objective(Layer& layer, const std::vector<float>& x, const std::vector<float>& r, int batch) {
    std::vector<float> y(layer.outSize() * batch);
    layer.forward(x.data(), y.data(), batch);
    double s = 0;
    for (std::size_t i = 0; i < y.size(); ++i) s += double(r[i]) * y[i];
    return s;
}

// Relative error of analytic vs numeric over sampled coordinates of `target` (which the objective reads).
double checkCoordinates(Layer& layer, std::vector<float>& x, const std::vector<float>& r, int batch, float* target,
                        std::size_t count, const std::vector<float>& analytic, Rng& rng) {
    // Small enough that a perturbation rarely crosses a ReLU/max kink inside composite blocks, large enough that
    // float32 rounding of L stays well below the tolerance.
    const float eps = 2e-3f;
    double diff = 0, norm = 0;
    const int samples = int(std::min<std::size_t>(count, 24));
    for (int s = 0; s < samples; ++s) {
        const std::size_t i = count <= 24 ? std::size_t(s) : std::size_t(rng.below(int(count)));
        const float saved = target[i];
        target[i] = saved + eps;
        const double up = objective(layer, x, r, batch);
        target[i] = saved - eps;
        const double down = objective(layer, x, r, batch);
        target[i] = saved;
        const double numeric = (up - down) / (2.0 * eps);
        diff += (numeric - analytic[i]) * (numeric - analytic[i]);
        norm += numeric * numeric + double(analytic[i]) * analytic[i];
    }
    return norm == 0 ? 0 : std::sqrt(diff / norm);
}

}  // namespace

Q_DECLARE_METATYPE(Case)

class TestKernelsGradcheck : public QObject {
    Q_OBJECT
private slots:
    void layerGradients_data() {
        QTest::addColumn<Case>("c");
        auto add = [](const char* name, LayerFactory f, InputKind k = InputKind::Normal, int vocab = 0) {
            QTest::newRow(name) << Case{std::move(f), k, vocab};
        };
        add("linear", [](Backend& b, Rng& r) { return makeLinear(b, r, 5, 4); });
        add("linear-rows", [](Backend& b, Rng& r) { return makeLinear(b, r, 4, 3, 3); });
        add("relu", [](Backend& b, Rng&) { return makeActivation(b, "relu", 7); }, InputKind::AwayFromZero);
        add("gelu", [](Backend& b, Rng&) { return makeActivation(b, "gelu", 7); });
        add("conv2d-pad", [](Backend& b, Rng& r) { return makeConv2d(b, r, 2, 5, 5, 3, 3, 1, 1); });
        add("conv2d-stride", [](Backend& b, Rng& r) { return makeConv2d(b, r, 2, 6, 6, 2, 3, 2, 0); });
        add("maxpool", [](Backend& b, Rng&) { return makeMaxPool2d(b, 2, 4, 4, 2, 2); }, InputKind::Distinct);
        add("avgpool", [](Backend& b, Rng&) { return makeGlobalAvgPool(b, 3, 3, 3); });
        add("layernorm", [](Backend& b, Rng&) { return makeLayerNorm(b, 3, 6); });
        add("attention", [](Backend& b, Rng& r) { return makeSelfAttention(b, r, 4, 6, 2); });
        add("embedding", [](Backend& b, Rng& r) { return makeEmbedding(b, r, 7, 5, 3); }, InputKind::Tokens, 7);
        add("seqmean", [](Backend& b, Rng&) { return makeSequenceMean(b, 4, 3); });
        add("resblock", [](Backend& b, Rng& r) { return makeResidualBlock(b, r, 2, 4, 4); });
        add("encoder", [](Backend& b, Rng& r) { return makeEncoderBlock(b, r, 3, 4, 2, 8); });
    }
    void layerGradients() {
        QFETCH(Case, c);
        auto backend = makeCpuBackend();
        Rng rng(17);
        auto layer = c.make(*backend, rng);
        const int batch = 2;
        std::vector<float> x(layer->inSize() * batch);
        for (std::size_t i = 0; i < x.size(); ++i) {
            switch (c.input) {
            case InputKind::Normal: x[i] = rng.normal(); break;
            case InputKind::AwayFromZero: x[i] = (rng.below(2) ? 1.f : -1.f) * (0.2f + float(rng.uniform())); break;
            case InputKind::Distinct: x[i] = 0.1f * float(i) * (i % 2 ? 1.f : -1.f); break;  // gaps >> 2 eps
            case InputKind::Tokens: {
                const std::int32_t t = rng.below(c.vocab);
                std::memcpy(&x[i], &t, sizeof t);
                break;
            }
            }
        }
        std::vector<float> r(layer->outSize() * batch);
        for (float& v : r) v = rng.normal();

        std::vector<float> y(r.size()), dx(x.size());
        layer->forward(x.data(), y.data(), batch);
        layer->backward(r.data(), c.input == InputKind::Tokens ? nullptr : dx.data(), batch);
        struct Grad { std::string name; float* value; std::size_t count; std::vector<float> analytic; };
        std::vector<Grad> grads;
        for (Param* p : layer->params())
            grads.push_back({p->name, p->value.data(), p->count, std::vector<float>(p->grad.data(), p->grad.data() + p->count)});

        const double tol = 2e-2;
        if (c.input != InputKind::Tokens) {
            const double e = checkCoordinates(*layer, x, r, batch, x.data(), x.size(), dx, rng);
            QVERIFY2(e < tol, qPrintable(QString("input gradient off by %1").arg(e)));
        }
        for (Grad& g : grads) {
            const double e = checkCoordinates(*layer, x, r, batch, g.value, g.count, g.analytic, rng);
            QVERIFY2(e < tol, qPrintable(QString("gradient of %1 off by %2").arg(g.name.c_str()).arg(e)));
        }
        // Backward a second time gives the same parameter gradients (written, not accumulated).
        layer->forward(x.data(), y.data(), batch);
        layer->backward(r.data(), c.input == InputKind::Tokens ? nullptr : dx.data(), batch);
        const auto ps = layer->params();
        for (std::size_t i = 0; i < ps.size(); ++i)
            QVERIFY(std::equal(grads[i].analytic.begin(), grads[i].analytic.end(), ps[i]->grad.data()));
    }

    void crossEntropyGradient_data() {
        QTest::addColumn<int>("classes");
        QTest::newRow("2") << 2;
        QTest::newRow("10") << 10;
    }
    void crossEntropyGradient() {
        QFETCH(int, classes);
        auto backend = makeCpuBackend();
        SoftmaxCrossEntropy loss(*backend, classes);
        Rng rng(3);
        const int batch = 3;
        std::vector<float> logits(batch * classes), dl(logits.size());
        for (float& v : logits) v = 2.f * rng.normal();
        std::vector<std::int32_t> labels(batch);
        for (auto& l : labels) l = rng.below(classes);
        const float value = loss.forwardBackward(logits.data(), labels.data(), dl.data(), batch);
        QVERIFY(value > 0.f);
        const float eps = 1e-2f;
        for (std::size_t i = 0; i < logits.size(); ++i) {
            const float saved = logits[i];
            logits[i] = saved + eps;
            const double up = loss.loss(logits.data(), labels.data(), batch);
            logits[i] = saved - eps;
            const double down = loss.loss(logits.data(), labels.data(), batch);
            logits[i] = saved;
            QVERIFY2(std::abs((up - down) / (2 * eps) - dl[i]) < 2e-3, qPrintable(QString("logit %1").arg(i)));
        }
    }

    void impossibleShapesThrow() {
        auto b = makeCpuBackend();
        Rng rng(1);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makeLinear(*b, rng, 0, 3));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makeActivation(*b, "tanh", 3));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makeConv2d(*b, rng, 1, 2, 2, 1, 5, 1, 0));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makeSelfAttention(*b, rng, 4, 6, 4));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makeMaxPool2d(*b, 1, 2, 2, 3, 1));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, SoftmaxCrossEntropy(*b, 1));
    }
};

QTEST_GUILESS_MAIN(TestKernelsGradcheck)
#include "tst_kernels_gradcheck.moc"
