// Experiment files as the launcher reads them: numbers are taken only when they mean exactly what they say,
// nesting is bounded, and settings that can only fail (plan order without warm-up, a timeout of nothing) are
// refused with one line before anything runs.
#include "app/common/experiment.h"

#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

using pacer::app::Experiment;
using pacer::app::ExperimentOverrides;

namespace {

// A valid experiment (inline MLP) as text, with `field` set to the raw JSON text `value`.
std::string experimentWith(const std::string& field, const std::string& value) {
    std::string text = R"({"name": "t", "model": {"family": "mlp", "width": 8, "depth": 2}, "iterations": 10,
                           "warmup_iterations": 3, "policy": "fifo")";
    if (!field.empty()) text += ", \"" + field + "\": " + value;
    return text + "}";
}

}  // namespace

class ExperimentTest : public QObject {
    Q_OBJECT
private slots:
    void refusesWhatItCannotTakeExactly_data() {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("mentions");  // empty: accepted
        QTest::newRow("ranks 2") << "ranks" << "2" << "";
        QTest::newRow("ranks 2.0 (a whole number written as a float)") << "ranks" << "2.0" << "";
        QTest::newRow("ranks 2^32 + 2 (would wrap to 2)") << "ranks" << "4294967298" << "'ranks' is out of range";
        QTest::newRow("ranks 1e15") << "ranks" << "1e15" << "'ranks' is out of range";
        QTest::newRow("ranks -2^63") << "ranks" << "-9223372036854775808" << "'ranks' is out of range";
        QTest::newRow("ranks 2^64 - 1") << "ranks" << "18446744073709551615" << "'ranks' is out of range";
        QTest::newRow("iterations 2.9 (would run 2)") << "iterations" << "2.9" << "'iterations' must be a whole number";
        QTest::newRow("seed -1") << "seed" << "-1" << "'seed' is out of range";
        QTest::newRow("seed 2^64 - 1") << "seed" << "18446744073709551615" << "";
        QTest::newRow("channels as text") << "channels" << "\"two\"" << "'channels' has the wrong type";
        QTest::newRow("timeout_s 0.0001 (would truncate to 0 ms)") << "timeout_s" << "0.0001" << "'timeout_s' must be between";
        QTest::newRow("timeout_s 0.1") << "timeout_s" << "0.1" << "";
        QTest::newRow("plan order without warm-up") << "order" << "\"plan\", \"warmup_iterations\": 0"
                                                    << "needs at least 2 warm-up iterations";
        QTest::newRow("plan order, one warm-up") << "order" << "\"plan\", \"warmup_iterations\": 1"
                                                 << "needs at least 2 warm-up iterations";
        QTest::newRow("plan order, two warm-ups") << "order" << "\"plan\", \"warmup_iterations\": 2" << "";
    }
    void refusesWhatItCannotTakeExactly() {
        QFETCH(QString, field);
        QFETCH(QString, value);
        QFETCH(QString, mentions);
        std::string text = experimentWith(field.toStdString(), value.toStdString());
        // The later key wins in nlohmann's parser; "warmup_iterations" given twice is how a row overrides it.
        std::string error;
        const auto e = pacer::app::parseExperiment(nlohmann::json::parse(text), ".", &error);
        if (mentions.isEmpty()) {
            QVERIFY2(e.has_value(), error.c_str());
            return;
        }
        QVERIFY2(!e, "accepted");
        QVERIFY2(QString::fromStdString(error).contains(mentions), error.c_str());
        QVERIFY(error.find('\n') == std::string::npos);
    }

    void deepNestingIsRefusedNotACrash() {
        // 200,000 levels: parsed fine by nlohmann, then copying or destroying it overflowed the stack (signal 11).
        QTemporaryDir dir;
        const std::string path = dir.filePath("deep.json").toStdString();
        std::ofstream(path) << R"({"model": )" << std::string(200000, '[') << std::string(200000, ']') << "}";
        std::string error;
        QVERIFY(!pacer::app::loadExperiment(path, &error));
        QVERIFY2(error.find("nested more than") != std::string::npos, error.c_str());
    }

    void fewerIterationsKeepThePlanWarmUp_data() {
        QTest::addColumn<int>("iterations");
        QTest::addColumn<int>("warmup");  // -1: refused
        QTest::newRow("3 iterations: 2 warm up, 1 on the plan") << 3 << 2;
        QTest::newRow("12 iterations: the file's 3 warm-ups stand") << 12 << 3;
        QTest::newRow("2 iterations leave none for the plan") << 2 << -1;
    }
    void fewerIterationsKeepThePlanWarmUp() {
        QFETCH(int, iterations);
        QFETCH(int, warmup);
        std::string error;
        auto e = pacer::app::parseExperiment(nlohmann::json::parse(experimentWith("", "")), ".", &error);
        QVERIFY2(e, error.c_str());
        ExperimentOverrides o;
        o.iterations = iterations;
        o.order = "plan";
        const auto resolved = pacer::app::applyOverrides(*e, o, &error);
        if (warmup < 0) {
            QVERIFY(!resolved);
            QVERIFY2(error.find("warm-up") != std::string::npos, error.c_str());
            return;
        }
        QVERIFY2(resolved, error.c_str());
        QCOMPARE(resolved->warmupIterations, warmup);
    }
};

QTEST_GUILESS_MAIN(ExperimentTest)
#include "tst_experiment.moc"
