// Model spec files: the samples load, knobs scale the size as documented, and bad specs fail with clear errors.
#include "kernels/model_spec.h"
#include "kernels/optimizer.h"

#include <nlohmann/json.hpp>

#include <QtTest/QtTest>

using namespace pacer::kernels;

class TestKernelsSpec : public QObject {
    Q_OBJECT
private slots:
    void samplesLoad_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("family");
        QTest::newRow("mlp") << "mlp.json" << "mlp";
        QTest::newRow("cnn") << "cnn.json" << "cnn";
        QTest::newRow("transformer") << "transformer.json" << "transformer";
    }
    void samplesLoad() {
        QFETCH(QString, file);
        QFETCH(QString, family);
        const ModelSpec s = loadModelSpec(std::string(PACER_SAMPLES_DIR) + "/models/" + file.toStdString());
        QCOMPARE(QString::fromStdString(s.family), family);
        QVERIFY(parameterCount(s) > 1000);
        QCOMPARE(parseModelSpec(toJson(s)).width, s.width);  // round trip
    }
    void knobsScaleFrom10MBTo500MB() {
        ModelSpec s = parseModelSpec(nlohmann::json{{"family", "mlp"}, {"width", 1024}, {"depth", 3}, {"input", 1024}});
        QVERIFY(parameterCount(s) * 4 > 8'000'000 && parameterCount(s) * 4 < 12'000'000);  // ~10 MB
        s.width = 4096;
        s.depth = 10;
        s.validate();
        QVERIFY(parameterCount(s) * 4 > 500'000'000);
        const ModelSpec t = parseModelSpec(nlohmann::json{{"family", "transformer"}, {"width", 1024}, {"depth", 10}});
        QVERIFY(parameterCount(t) * 4 > 450'000'000);
    }
    void badSpecs_data() {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("not object") << "[1]" << "object";
        QTest::newRow("no family") << R"({"width": 3})" << "family";
        QTest::newRow("bad family") << R"({"family": "rnn"})" << "family";
        QTest::newRow("unknown key") << R"({"family": "mlp", "widht": 3})" << "widht";
        QTest::newRow("zero width") << R"({"family": "mlp", "width": 0})" << "width";
        QTest::newRow("string depth") << R"({"family": "mlp", "depth": "4"})" << "depth";
        QTest::newRow("heads") << R"({"family": "transformer", "width": 30, "heads": 4})" << "heads";
        QTest::newRow("too many stages") << R"({"family": "cnn", "image": 8, "stages": 4})" << "stages";
        QTest::newRow("one class") << R"({"family": "mlp", "classes": 1})" << "classes";
        QTest::newRow("activation") << R"({"family": "mlp", "activation": "tanh"})" << "activation";
    }
    void badSpecs() {
        QFETCH(QString, json);
        QFETCH(QString, mentions);
        try {
            parseModelSpec(nlohmann::json::parse(json.toStdString()));
            QFAIL("accepted a bad spec");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString(e.what()).contains(mentions), e.what());
        }
    }
    void missingFileAndBadJson() {
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, loadModelSpec("/nonexistent/model.json"));
        QTemporaryFile f;
        QVERIFY(f.open());
        f.write("{ not json");
        f.flush();
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, loadModelSpec(f.fileName().toStdString()));
    }
    void optimizerConfig() {
        const OptimizerConfig c = parseOptimizerConfig(nlohmann::json{{"kind", "adam"}, {"lr", 0.001}});
        QCOMPARE(QString::fromStdString(c.kind), QString("adam"));
        QCOMPARE(c.lr, 0.001f);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, parseOptimizerConfig(nlohmann::json{{"kind", "lamb"}}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, parseOptimizerConfig(nlohmann::json{{"lr", -1}}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, parseOptimizerConfig(nlohmann::json{{"momentum", 1.5}}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, parseOptimizerConfig(nlohmann::json{{"lrr", 1}}));
    }
};

QTEST_GUILESS_MAIN(TestKernelsSpec)
#include "tst_kernels_spec.moc"
