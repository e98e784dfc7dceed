// pacer-cli turns bad usage and bad input into exit code 2 with exactly one clear line on stderr, and never
// touches the target project when it refuses.
#include "process_helpers.h"
#include "profiler/project.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <fstream>

using namespace pacer::testing;

class CliErrorsTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        // A project with one small run, for the export rows.
        pacer::profiler::RunTrace t;
        t.tracks.push_back({0, 0, pacer::profiler::TrackKind::Compute, "rank 0 compute"});
        t.events.push_back({});
        t.events.back().start = 100;
        t.events.back().end = 200;
        t.events.back().track = 0;
        QVERIFY(pacer::profiler::writeRun(dir_.filePath("has-a-run.pacer").toStdString(), t, {}).ok());
    }

    void refusesBadInput_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("mentions");  // the line must name what is wrong

        const QString missing = dir_.filePath("does-not-exist.pacer");
        const QString text = dir_.filePath("not-sqlite.pacer");
        QFile f(text);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("this is not an SQLite database, just text\n");
        f.close();
        const QString exp = samplePath("experiments/mlp-2rank.json");

        QTest::newRow("no command") << QStringList{} << "no command";
        QTest::newRow("unknown command") << QStringList{"frobnicate"} << "frobnicate";
        QTest::newRow("unknown flag") << QStringList{"capture", "--experiment", exp, "--out", dir_.filePath("x.pacer"),
                                                     "--bogus-flag"} << "--bogus-flag";
        QTest::newRow("replay missing project") << QStringList{"replay", "--project", missing, "--policy", "pace"}
                                                << "does-not-exist.pacer";
        QTest::newRow("replay non-SQLite project") << QStringList{"replay", "--project", text, "--policy", "pace"}
                                                   << "not-sqlite.pacer";
        QTest::newRow("runs non-SQLite project") << QStringList{"runs", "--project", text} << "not-sqlite.pacer";
        QTest::newRow("export missing project") << QStringList{"export", "--format", "chrome", "--project", missing,
                                                               "--run", "1", "--out", dir_.filePath("o.json")}
                                                << "does-not-exist.pacer";
        const QString withRun = dir_.filePath("has-a-run.pacer");
        QTest::newRow("export over the project it reads")
            << QStringList{"export", "--format", "chrome", "--project", withRun, "--run", "1", "--out", withRun}
            << "is the project being exported";
        QTest::newRow("export over a user's file")
            << QStringList{"export", "--format", "chrome", "--project", withRun, "--run", "1", "--out", text}
            << "not a Pacer export";
        QTest::newRow("capture missing experiment") << QStringList{"capture", "--experiment", dir_.filePath("none.json"),
                                                                   "--out", dir_.filePath("y.pacer")} << "none.json";
        QTest::newRow("capture into non-SQLite project") << QStringList{"capture", "--experiment", exp, "--out", text}
                                                         << "not-sqlite.pacer";
        QTest::newRow("segment of zero bytes") << QStringList{"capture", "--experiment", exp, "--out",
                                                              dir_.filePath("z.pacer"), "--segment-bytes", "0"}
                                               << "segment-bytes";
        QTest::newRow("malformed size") << QStringList{"capture", "--experiment", exp, "--out", dir_.filePath("z.pacer"),
                                                       "--segment-bytes", "12 parsecs"} << "segment-bytes";
        QTest::newRow("unknown policy") << QStringList{"capture", "--experiment", exp, "--out", dir_.filePath("z.pacer"),
                                                       "--policy", "telepathy"} << "telepathy";
        QTest::newRow("too many ranks") << QStringList{"capture", "--experiment", exp, "--out", dir_.filePath("z.pacer"),
                                                       "--ranks", "100000"} << "ranks";
        QTest::newRow("channels in dynamic order") << QStringList{"capture", "--experiment", exp, "--out",
                                                                  dir_.filePath("z.pacer"), "--channels", "2"}
                                                   << "channels";
        QTest::newRow("zero channels") << QStringList{"capture", "--experiment", exp, "--out", dir_.filePath("z.pacer"),
                                                      "--order", "plan", "--channels", "0"} << "channels";
        QTest::newRow("unknown transport") << QStringList{"capture", "--experiment", exp, "--out", dir_.filePath("z.pacer"),
                                                          "--transport", "pigeon"} << "pigeon";
        QTest::newRow("bench channels without plan") << QStringList{"bench", "allreduce", "--algorithm", "dynamic",
                                                                    "--channels", "2"} << "channel";
        QTest::newRow("unknown algorithm") << QStringList{"capture", "--experiment", exp, "--out", dir_.filePath("z.pacer"),
                                                          "--algorithm", "butterfly"} << "butterfly";
        QTest::newRow("torus algorithm on a ring") << QStringList{"capture", "--experiment", exp, "--out",
                                                                  dir_.filePath("z.pacer"), "--algorithm", "torus",
                                                                  "--topology", "ring"} << "torus";
        QTest::newRow("torus of the wrong size") << QStringList{"capture", "--experiment", exp, "--out",
                                                                dir_.filePath("z.pacer"), "--topology", "torus:2x2"}
                                                 << "holds 4 ranks";
        QTest::newRow("algorithm on gpu") << QStringList{"capture", "--experiment", exp, "--out", dir_.filePath("z.pacer"),
                                                         "--backend", "gpu", "--algorithm", "ring"} << "cpu backend";
        QTest::newRow("bench torus on a ring") << QStringList{"bench", "allreduce", "--algorithm", "torus", "--topology",
                                                              "ring"} << "torus topology";
        QTest::newRow("sweep unknown topology") << QStringList{"sweep", "--model", "resnet50", "--policy", "pace",
                                                               "--ranks", "8:64", "--topology", "mesh"} << "mesh";
        QTest::newRow("sweep torus shape off the ranks") << QStringList{"sweep", "--model", "resnet50", "--policy", "pace",
                                                                        "--ranks", "8:64", "--topology", "torus:2x2x2"}
                                                         << "holds 8 ranks";
        QTest::newRow("import missing file") << QStringList{"import", "--format", "chrome", missing, "--out",
                                                            dir_.filePath("i.pacer")} << "does-not-exist.pacer";
        QTest::newRow("import unknown format") << QStringList{"import", "--format", "pcap", text, "--out",
                                                              dir_.filePath("i.pacer")} << "pcap";
        // A number's bounds as a user writes them ("from 0.001 to 1000", not "0.001000 to 1000.000000").
        QTest::newRow("compute speed 0") << QStringList{"replay", "--model", "resnet50", "--policy", "pace",
                                                        "--compute-speed", "0"} << "from 0.001 to 1000, got '0'";
        QTest::newRow("sweep without a range") << QStringList{"sweep", "--model", "resnet50", "--policy", "pace"}
                                               << "range";
        // Experiments that could only run wrongly or fail: refused before any worker starts (no run directory).
        auto exp2 = [&](const char* name, const nlohmann::json& changes) {
            return QStringList{"capture", "--experiment", writeExperiment(dir_, name, changes), "--out",
                               dir_.filePath("bad-input.pacer")};
        };
        QTest::newRow("ranks 2^32 + 2") << exp2("wrap.json", {{"ranks", 4294967298LL}}) << "'ranks' is out of range";
        QTest::newRow("iterations 2.9") << exp2("frac.json", {{"iterations", 2.9}}) << "'iterations' must be a whole number";
        QTest::newRow("ranks 1e15") << exp2("huge.json", {{"ranks", 1e15}}) << "'ranks' is out of range";
        // The topology's torus dimensions follow the same whole-number rule; a shape whose product overflows an int
        // must not wrap onto the rank count.
        QTest::newRow("torus dimension 1.5")
            << exp2("torus-frac.json", {{"ranks", 3}, {"topology", {{"torus", {1.5, 2}}}}}) << "whole numbers";
        QTest::newRow("torus dimensions overflowing")
            << exp2("torus-wrap.json", {{"ranks", 2}, {"topology", {{"torus", {65536, 65536, 2}}}}}) << "holds more than";
        QTest::newRow("torus:2x (empty dimension)")
            << QStringList{"capture", "--experiment", exp, "--out", dir_.filePath("bad-input.pacer"), "--topology",
                           "torus:2x"} << "bad torus dimension";
        QTest::newRow("torus:+2 (sign)")
            << QStringList{"capture", "--experiment", exp, "--out", dir_.filePath("bad-input.pacer"), "--topology",
                           "torus:+2"} << "bad torus dimension";
        QTest::newRow("sweep --ranks 8.5:64")
            << QStringList{"sweep", "--model", "resnet50", "--policy", "pace", "--ranks", "8.5:64"} << "whole numbers";
        QTest::newRow("sweep --ranks 8:64x")
            << QStringList{"sweep", "--model", "resnet50", "--policy", "pace", "--ranks", "8:64x"} << "whole numbers";
        QTest::newRow("sweep --credit 1:2e3")
            << QStringList{"sweep", "--model", "resnet50", "--policy", "pace", "--credit", "1:2e3"} << "whole numbers";
        QTest::newRow("timeout_s 0.0001") << exp2("timeout.json", {{"timeout_s", 0.0001}}) << "timeout_s";
        QTest::newRow("plan order without warm-up")
            << exp2("nowarm.json", {{"order", "plan"}, {"warmup_iterations", 0}}) << "warm-up";
        QTest::newRow("--iterations 2 --order plan")
            << QStringList{"capture", "--experiment", exp, "--out", dir_.filePath("bad-input.pacer"), "--iterations",
                           "2", "--order", "plan"} << "warm-up";
        // 64 ranks of 2.1e9 parameters: over a TiB for parameters and gradients alone.
        QTest::newRow("model larger than memory")
            << exp2("big.json", {{"ranks", 64}, {"model", {{"family", "mlp"}, {"width", 46000}, {"depth", 3}}}})
            << "GiB available";
        // A key with an escaped line break is quoted escaped, and the error stays one line (found by fuzzing).
        QTest::newRow("model key with a line break")
            << exp2("newline-key.json", {{"model", {{"family", "mlp"}, {"activatio\nn", "relu"}}}})
            << "unknown key \"activatio\\nn\"";
        QTest::newRow("invalid model") << exp2("badmodel.json", {{"model", {{"family", "mlp"}, {"width", -1}}}})
                                       << "model:";
        {
            const QString deep = dir_.filePath("deep.json");
            std::ofstream(deep.toStdString()) << R"({"model": )" << std::string(200000, '[')
                                              << std::string(200000, ']') << "}";
            QTest::newRow("nested 200,000 levels") << QStringList{"capture", "--experiment", deep, "--out",
                                                                  dir_.filePath("bad-input.pacer")}
                                                   << "nested more than";
        }
        QTest::newRow("bench sizes beyond memory") << QStringList{"bench", "allreduce", "--sizes", "1024GiB:1024GiB"}
                                                   << "GiB available";
        // Priorities files go through the bounded parser and take only whole numbers that fit an int.
        auto priorities = [&](const char* name, const std::string& text) {
            const QString file = dir_.filePath(name);
            std::ofstream(file.toStdString()) << text;
            return QStringList{"replay", "--model", "resnet50", "--priorities", file};
        };
        QTest::newRow("priorities nested 200,000 levels")
            << priorities("deep-priorities.json", std::string(200000, '[') + std::string(200000, ']'))
            << "nested more than";
        QTest::newRow("priorities not JSON") << priorities("junk-priorities.json", "[1, 2,") << "junk-priorities.json";
        QTest::newRow("priority 2.9") << priorities("frac-priorities.json", "[1, 2.9]") << "entry 1 is 2.9";
        QTest::newRow("priority 2^32 + 1") << priorities("wrap-priorities.json", "{\"priorities\": [4294967297]}")
                                           << "entry 0 is 4294967297";
        QTest::newRow("priorities missing file") << QStringList{"replay", "--model", "resnet50", "--priorities", missing}
                                                 << "does-not-exist.pacer";
        QTest::newRow("replay unknown model") << QStringList{"replay", "--model", "no-such-model", "--policy", "pace"}
                                              << "no-such-model";
        // A run without --policy is replayed as it ran; a profile has no schedule of its own.
        QTest::newRow("replay a profile without a policy")
            << QStringList{"replay", "--model", "resnet50"} << "--policy";
        QTest::newRow("sweep a profile without a policy")
            << QStringList{"sweep", "--model", "resnet50", "--segment-bytes", "1MiB:4MiB"} << "--policy";
    }

    void refusesBadInput() {
        QFETCH(QStringList, args);
        QFETCH(QString, mentions);
        const ProcessResult r = runCli(args, 60000);
        QVERIFY2(r.finished, "pacer-cli did not finish");
        QCOMPARE(r.exitCode, 2);
        const QStringList lines = r.errLines();
        QVERIFY2(!lines.isEmpty(), "nothing on stderr");
        const QString last = lines.last();
        QVERIFY2(last.startsWith("pacer-cli: error: "), qPrintable(last));
        QVERIFY2(last.contains(mentions), qPrintable(last));
        QVERIFY2(r.out.isEmpty(), r.out.constData());
        // Refused before any worker started: no run directory, no project.
        QCOMPARE(QDir(dir_.path()).entryList({"*.runs"}, QDir::Dirs), QStringList{});
        QVERIFY(!QFile::exists(dir_.filePath("bad-input.pacer")));
    }

    // The workers' settings from the environment are checked as the experiment is, before any worker starts.
    void refusesABadWorkerSettingBeforeAnyWorker_data() {
        QTest::addColumn<QString>("variable");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("message");
        QTest::newRow("PACER_BIND") << "PACER_BIND" << "sockets"
                                    << "PACER_BIND must be 'cores', 'compute' or 'none', got 'sockets'";
        QTest::newRow("PACER_SHM_STORES") << "PACER_SHM_STORES" << "uncached"
                                          << "PACER_SHM_STORES must be 'auto', 'cached' or 'streaming', got 'uncached'";
    }
    void refusesABadWorkerSettingBeforeAnyWorker() {
        QFETCH(QString, variable);
        QFETCH(QString, value);
        QFETCH(QString, message);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("PACER_WORKER", PACER_WORKER_PATH);
        env.insert(variable, value);
        const QString project = dir_.filePath("bad-setting.pacer");
        const ProcessResult r = runProgram(PACER_CLI_PATH,
                                           {"capture", "--experiment", samplePath("experiments/mlp-2rank.json"),
                                            "--out", project, "--iterations", "2"},
                                           60000, env);
        QVERIFY2(r.finished, "pacer-cli did not finish");
        QCOMPARE(r.exitCode, 2);
        const QStringList lines = r.errLines();
        QVERIFY2(!lines.isEmpty(), "nothing on stderr");
        QVERIFY2(lines.last() == "pacer-cli: error: " + message, qPrintable(lines.last()));
        QCOMPARE(QDir(dir_.path()).entryList({"*.runs"}, QDir::Dirs), QStringList{});
        QVERIFY(!QFile::exists(project));
    }

    // A cluster launch's placement settings that cannot be right stop the worker at once (exit 2, one line first).
    void workerRefusesImpossiblePlacement_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("bind");  // PACER_BIND; empty: unset
        QTest::addColumn<QString>("mentions");
        QTest::newRow("no ranks on the node") << QStringList{"--local-world-size", "0"} << ""
                                              << "PACER_LOCAL_WORLD_SIZE/--local-world-size must be a number";
        QTest::newRow("local rank beyond the node's ranks")
            << QStringList{"--local-rank", "2", "--local-world-size", "2"} << ""
            << "local rank 2 is not within the node's 2 ranks";
        QTest::newRow("not a number") << QStringList{"--local-world-size", "two"} << ""
                                      << "PACER_LOCAL_WORLD_SIZE/--local-world-size must be a number";
        QTest::newRow("unknown binding") << QStringList{} << "sockets"
                                         << "PACER_BIND must be 'cores', 'compute' or 'none'";
    }
    void workerRefusesImpossiblePlacement() {
        QFETCH(QStringList, args);
        QFETCH(QString, bind);
        QFETCH(QString, mentions);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove("PACER_BIND");
        if (!bind.isEmpty()) env.insert("PACER_BIND", bind);
        const QStringList common{"--run-dir", dir_.filePath("placement"), "--rank", "0", "--world-size", "2"};
        const ProcessResult r = runProgram(PACER_WORKER_PATH, common + args, 30000, env);
        QVERIFY2(r.finished, "pacer-worker did not finish");
        QCOMPARE(r.exitCode, 2);
        const QStringList lines = r.errLines();
        QVERIFY2(!lines.isEmpty() && lines.first().contains(mentions), r.err.constData());
        QVERIFY(!QFileInfo::exists(dir_.filePath("placement")));
    }

    void refusalLeavesProjectUntouched() {
        // A non-SQLite "project" given as --out is refused, and its bytes are exactly as they were.
        const QString path = dir_.filePath("precious.pacer");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        const QByteArray content = "user data that must survive\n";
        f.write(content);
        f.close();
        const ProcessResult r = runCli({"capture", "--experiment", samplePath("experiments/mlp-2rank.json"), "--out", path});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), content);
    }

private:
    QTemporaryDir dir_;
};

QTEST_GUILESS_MAIN(CliErrorsTest)
#include "tst_cli_errors.moc"
