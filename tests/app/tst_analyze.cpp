// pacer-cli analyze end to end: on the hand-timed iteration its JSON carries the hand-computed figures (the
// library's, tests/profiler/tst_analysis.cpp); it works on an imported Kineto trace; bad input exits 2.
#include <QtTest>

#include <QTemporaryDir>

#include "process_helpers.h"
#include "profiler/analysis/trace_analysis.h"
#include "profiler/project.h"
#include "tests/profiler/analysis_fixture.h"

using namespace pacer;

class TestAnalyze : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString project_;

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        project_ = dir_.filePath("hand.pacer");
        auto id = profiler::writeRun(project_.toStdString(), profiler::testing::handTimedIteration(), profiler::RunInfo{});
        QVERIFY2(id.ok(), id.message().c_str());
    }

    void jsonHasTheHandComputedFigures() {
        const auto r = testing::runCli({"analyze", "--project", project_, "--json"});
        QCOMPARE(r.exitCode, 0);
        const auto j = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(j["ranks"].size(), std::size_t{2});
        QCOMPARE(j["ranks"][0]["compute_ns"].get<std::int64_t>(), 70'000);
        QCOMPARE(j["ranks"][0]["exposed_comm_ns"].get<std::int64_t>(), 20'000);
        QCOMPARE(j["ranks"][0]["idle_ns"].get<std::int64_t>(), 10'000);
        QCOMPARE(j["ranks"][0]["overlap_percent"].get<double>(), 50.0);
        QCOMPARE(j["ranks"][1]["compute_ns"].get<std::int64_t>(), 80'000);
        QCOMPARE(j["ranks"][1]["exposed_comm_ns"].get<std::int64_t>(), 13'000);
        QCOMPARE(j["ranks"][1]["idle_ns"].get<std::int64_t>(), 17'000);
        QCOMPARE(j["ranks"][1]["overlap_percent"].get<double>(), 100.0 * 18 / 31);
        QCOMPARE(j["straggler_rank"].get<int>(), 1);
        QCOMPARE(j["critical_path"]["rank"].get<int>(), 1);
        QCOMPARE(j["critical_path"]["length_ns"].get<std::int64_t>(), 100'000);
        QCOMPARE(j["critical_path"]["steps"].size(), std::size_t{6});
        QCOMPARE(j["names"].size(), std::size_t{7});
        // The human table says the same.
        const auto text = testing::runCli({"analyze", "--project", project_});
        QCOMPARE(text.exitCode, 0);
        QVERIFY(text.out.contains("straggler: rank 1"));
        QVERIFY(text.out.contains("critical path of iteration 0 (rank 1): 0.100 ms"));
    }

    void worksOnAnImport() {
        const QString imported = dir_.filePath("kineto.pacer");
        const auto import = testing::runCli({"import", "--format", "chrome", testing::samplePath("traces/kineto_rank0.json"),
                                          testing::samplePath("traces/kineto_rank1.json"), "--out", imported});
        QVERIFY2(import.exitCode == 0, import.err.constData());
        const auto r = testing::runCli({"analyze", "--project", imported, "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto j = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(j["ranks"].size(), std::size_t{2});
        for (const auto& rank : j["ranks"]) {
            QVERIFY(rank["span_ns"].get<std::int64_t>() > 0);
            QCOMPARE(rank["compute_ns"].get<std::int64_t>() + rank["exposed_comm_ns"].get<std::int64_t>() +
                         rank["idle_ns"].get<std::int64_t>(),
                     rank["span_ns"].get<std::int64_t>());
        }
        // The same figures as the library on the same stored run.
        auto trace = profiler::readRun(imported.toStdString(), 0);
        QVERIFY(trace.ok());
        const auto a = profiler::analysis::analyzeRun(trace.value());
        QCOMPARE(j["ranks"][0]["compute_ns"].get<std::int64_t>(), a.ranks[0].compute_ns);
        QCOMPARE(j["straggler_rank"].get<int>(), a.straggler_rank);
    }

    void badInputExits2_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("no project") << QStringList{"analyze"} << "--project";
        QTest::newRow("missing file") << QStringList{"analyze", "--project", "/nonexistent/x.pacer"} << "no such file";
        QTest::newRow("no such run") << QStringList{"analyze", "--project", "@", "--run", "9"} << "no run with id 9";
        QTest::newRow("no such iteration") << QStringList{"analyze", "--project", "@", "--iteration", "5"} << "no iteration 5";
    }
    void badInputExits2() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        args.replaceInStrings("@", project_);
        const auto r = testing::runCli(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.startsWith("pacer-cli: error: ") && r.err.contains(message.toUtf8()), r.err.constData());
        QCOMPARE(r.errLines().size(), 1);
    }
};

QTEST_GUILESS_MAIN(TestAnalyze)
#include "tst_analyze.moc"
