// The model zoo: the published tensor and parameter counts, FLOPs turned into time, user profiles and bad input.
#include <QtTest>

#include "engine/replay/zoo.h"

using namespace pacer::engine;

class TestZoo : public QObject {
    Q_OBJECT

    std::vector<std::string> dirs_{std::string(PACER_SAMPLES_DIR) + "/zoo"};

private slots:
    void counts_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("tensors");
        QTest::addColumn<qlonglong>("parameters");
        QTest::newRow("resnet50") << "resnet50" << 161 << 25'557'032LL;
        QTest::newRow("vgg16") << "vgg16" << 32 << 138'357'544LL;
        QTest::newRow("bert_base") << "bert_base" << 199 << 109'482'240LL;
        QTest::newRow("gpt2_small") << "gpt2_small" << 148 << 124'439'808LL;
    }
    void counts() {
        QFETCH(QString, name);
        QFETCH(int, tensors);
        QFETCH(qlonglong, parameters);
        Result<Workload> w = loadProfile(name.toStdString(), 0, dirs_);
        QVERIFY2(w.ok(), w.status().message().c_str());
        QCOMPARE(static_cast<int>(w.value().tensors.size()), tensors);
        QCOMPARE(static_cast<qlonglong>(parameterCount(w.value())), parameters);
        // Every layer costs time, and the tensors are in forward order with ids 0..n-1.
        for (const LayerTimes& l : w.value().layers) QVERIFY(l.forward > 0 && l.backward > 0);
        for (std::size_t i = 0; i < w.value().tensors.size(); ++i)
            QCOMPARE(w.value().tensors[i].id, static_cast<int>(i));
    }

    void listsTheZoo() {
        const std::vector<std::string> names = zooNames(dirs_);
        for (const char* expected : {"bert_base", "gpt2_small", "resnet50", "vgg16"})
            QVERIFY2(std::find(names.begin(), names.end(), expected) != names.end(), expected);
        QVERIFY(std::is_sorted(names.begin(), names.end()));
    }

    void listingDescribesEachProfile() {
        const std::vector<ZooEntry> entries = listZoo(dirs_);
        QVERIFY(entries.size() >= 4);
        for (const ZooEntry& e : entries) {
            QVERIFY2(e.error.empty(), e.error.c_str());
            QVERIFY(!e.description.empty());
            QVERIFY(e.tensors > 0 && e.parameters > 0);
            if (e.name == "vgg16") QCOMPARE(e.parameters, std::size_t{138'357'544});
        }
    }

    void deviceThroughputScalesCompute() {
        // Doubling the device's throughput halves the FLOP-driven part; the fixed per-layer overhead stays.
        Result<Workload> slow = loadProfile("resnet50", 10, dirs_);
        Result<Workload> fast = loadProfile("resnet50", 20, dirs_);
        QVERIFY(slow.ok() && fast.ok());
        const LayerTimes& s = slow.value().layers[0];  // conv1: 236 MFLOP per sample
        const LayerTimes& f = fast.value().layers[0];
        const double overhead = 10'000;  // layer_overhead_us = 10 in the file
        QVERIFY(qAbs((s.forward - overhead) / (f.forward - overhead) - 2.0) < 1e-3);
        QVERIFY(qAbs((s.backward - overhead) / (f.backward - overhead) - 2.0) < 1e-3);
        // conv1 at batch 64 and 10 TFLOP/s: 2 x 112^2 x 64 x 3 x 49 FLOP x 64 samples = 15.106 GFLOP -> 1.5106 ms.
        QVERIFY(qAbs(s.forward - overhead - 1'510'579.0) < 1'000);
    }

    void userProfileWithTimes() {
        const char* text = R"({"name": "mine", "ranks": 4, "update_ns_per_element": 0.5, "layers": [
            {"name": "a", "forward_us": 100, "backward_us": 250, "params": [{"name": "a.w", "shape": [10, 10]}]},
            {"name": "b", "forward_us": 50,
             "params": [{"name": "b.w", "shape": [7]}, {"name": "b.b", "shape": [1]}]}]})";
        Result<Workload> w = parseProfile(text);
        QVERIFY2(w.ok(), w.status().message().c_str());
        QCOMPARE(w.value().name, std::string("mine"));
        QCOMPARE(w.value().ranks, 4);
        QCOMPARE(w.value().layers[0].forward, Nanos{100'000});
        QCOMPARE(w.value().layers[0].backward, Nanos{250'000});
        QCOMPARE(w.value().layers[1].backward, Nanos{100'000});  // backward_factor 2 by default
        QCOMPARE(w.value().tensors.size(), std::size_t{3});
        QCOMPARE(w.value().tensors[2].layer, 1);
        QCOMPARE(w.value().update_ns_per_element, 0.5);
    }

    void badProfiles_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("error");
        QTest::newRow("not json") << "{layers"
                                  << "not valid JSON";
        QTest::newRow("array") << "[]"
                               << "JSON object";
        QTest::newRow("no layers") << R"({"name": "x"})"
                                   << "layers";
        QTest::newRow("no params") << R"({"layers": [{"forward_us": 1}]})"
                                   << "no layer has params";
        QTest::newRow("zero dim") << R"({"layers": [{"params": [{"shape": [3, 0]}]}]})"
                                  << "shape dimensions";
        QTest::newRow("string dim") << R"({"layers": [{"params": [{"shape": ["3"]}]}]})"
                                    << "shape dimensions";
        QTest::newRow("bad tflops") << R"({"device_tflops": 0, "layers": [{"params": [{"shape": [3]}]}]})"
                                    << "device_tflops";
        QTest::newRow("string batch") << R"({"batch_size": "8", "layers": [{"params": [{"shape": [3]}]}]})"
                                      << "batch_size";
        QTest::newRow("fractional ranks") << R"({"ranks": 1.5, "layers": [{"params": [{"shape": [3]}]}]})"
                                          << "ranks";
        QTest::newRow("negative time") << R"({"layers": [{"forward_us": -1, "params": [{"shape": [3]}]}]})"
                                       << "negative";
    }
    void badProfiles() {
        QFETCH(QString, text);
        QFETCH(QString, error);
        Result<Workload> w = parseProfile(text.toStdString(), 0, "test.json");
        QVERIFY(!w.ok());
        QVERIFY2(QString::fromStdString(w.status().message()).contains(error), w.status().message().c_str());
    }

    void unknownNameSaysWhatExists() {
        Result<Workload> w = loadProfile("alexnet", 0, dirs_);
        QVERIFY(!w.ok());
        QVERIFY2(w.status().message().find("resnet50") != std::string::npos, w.status().message().c_str());
    }
};

QTEST_GUILESS_MAIN(TestZoo)
#include "tst_zoo.moc"
