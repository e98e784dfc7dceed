// Pacer against PyTorch DDP on the same job: the MLP of samples/experiments/mlp-42m-2rank.json (1024-4096-4096-
// 4096-1024, 41,956,352 parameters, batch 64 per rank, 2 ranks of 1 thread, loopback, no link emulation) under
// PyTorch 1.13 DDP over Gloo, the same PyTorch loop without any all-reduce (no_sync: the compute-only floor of two
// ranks sharing the machine), and every Pacer policy on each CPU transport. All runs of a round are interleaved
// and the median of the rounds counts, so that a drift of the shared machine touches every column alike. Both sides'
// ranks compute on cores of their own (PACER_BIND=compute and none apply to both; kernels/cpu_binding.h).
// Prints absolute ms per iteration and the ratios against DDP and no_sync, then the goal (Pacer's best
// at most 1.15x no_sync and 0.75x DDP) and whether this run met it. Beside each shared-memory run's rounds, the share
// of its chunks written with streaming stores (high where the host had the ranks' cores apart, which slows the
// transfers between them: docs/shm-slot-stores.md), so that a slow round can be told from a slow schedule.
//
//   bench_vs_pytorch [--quick] [--rounds N] [--iterations K] [--policies a,b] [--transports shm,gloo]
//
// PyTorch is Debian's python3-torch, found by importing torch with $PACER_PYTHON, python3 or /usr/bin/python3;
// without it the PyTorch columns are skipped with the reason and Pacer's are still measured. --quick (CTest): a
// small MLP, 6 iterations, one round, pace on both transports and PyTorch DDP when present.
#include "bench_cli.h"

#include <sys/resource.h>

#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>

using namespace pacer::bench;

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

QString argValue(int argc, char** argv, const char* name, const QString& fallback) {
    for (int i = 1; i + 1 < argc; ++i)
        if (QString(argv[i]) == name) return argv[i + 1];
    return fallback;
}

QString loadAverage() {
    QFile f("/proc/loadavg");
    if (!f.open(QIODevice::ReadOnly)) return "?";
    return QString::fromUtf8(f.readAll()).section(' ', 0, 2);
}

// A Python that imports torch, or empty with *why set.
QString findTorchPython(QString* why) {
    QStringList candidates = {"python3", "/usr/bin/python3"};
    if (qEnvironmentVariableIsSet("PACER_PYTHON")) candidates.prepend(qEnvironmentVariable("PACER_PYTHON"));
    for (const QString& python : candidates) {
        QProcess p;
        p.start(python, {"-c", "import torch; print(torch.__version__)"});
        if (p.waitForFinished(120000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0) return python;
    }
    *why = "no Python that imports torch (tried " + candidates.join(", ") + "; apt-get install python3-torch)";
    return {};
}

struct Job {
    QString experiment;  // resolved experiment file for pacer-cli
    QString layers;      // the same MLP for the PyTorch script, "1024,4096,...,1024"
    int batch = 0;
    QString label;
};

// The sample experiment (its MLP shrunk in quick mode), written where pacer-cli reads it.
Job makeJob(const QTemporaryDir& dir, bool quick) {
    std::ifstream in(PACER_SAMPLES_DIR "/experiments/mlp-42m-2rank.json");
    nlohmann::json e = nlohmann::json::parse(in);
    nlohmann::json& m = e["model"];
    if (quick) m.update({{"input", 256}, {"width", 512}, {"depth", 3}, {"classes", 64}});
    const int depth = m["depth"];
    QStringList layers = {QString::number(int(m["input"]))};
    for (int i = 0; i + 1 < depth; ++i) layers << QString::number(int(m["width"]));
    layers << QString::number(int(m["classes"]));
    Job job;
    job.layers = layers.join(',');
    job.batch = e["batch_per_rank"];
    job.experiment = dir.filePath("experiment.json");
    std::ofstream(job.experiment.toStdString()) << e.dump(2);
    job.label = QString("MLP %1, batch %2 per rank, %3 ranks, %4 thread(s) each, loopback")
                    .arg(layers.join('-')).arg(job.batch).arg(int(e["ranks"])).arg(int(e["threads_per_rank"]));
    return job;
}

double runPyTorch(const QString& python, const Job& job, const QString& mode, const QString& iterations,
                  const QString& warmup) {
    QProcess p;
    // PyTorch's ranks are placed on cores as Pacer's are (PACER_BIND, read by Pacer's workers), so that neither side
    // wins by placement.
    const QString setting = qEnvironmentVariable("PACER_BIND");
    const QString bind = setting == "none" || setting == "compute" ? setting : "cores";
    p.start(python, {PACER_SOURCE_DIR "/tests/bench/pytorch_ddp_mlp.py", "--mode", mode, "--layers", job.layers, "--batch",
                     QString::number(job.batch), "--iterations", iterations, "--warmup", warmup, "--threads", "1",
                     "--bind", bind});
    if (!p.waitForFinished(900000) || p.exitCode() != 0) {
        std::fprintf(stderr, "pytorch %s failed: %s\n", qPrintable(mode), p.readAllStandardError().constData());
        return 0;
    }
    return QJsonDocument::fromJson(p.readAllStandardOutput()).object()["iter_ms"].toDouble();
}

// CPU seconds (user + system) of the children reaped so far: the rank processes of every finished run count,
// since pacer-cli waits for its workers and the PyTorch script joins its ranks.
double childCpuSeconds() {
    rusage u{};
    getrusage(RUSAGE_CHILDREN, &u);
    return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

struct Column {
    QString name;  // "pytorch ddp", "pacer shm pace", ...
    QStringList args;
};

}  // namespace

int main(int argc, char** argv) {
    const bool quick = quickMode(argc, argv);
    const int rounds = argValue(argc, argv, "--rounds", quick ? "1" : "3").toInt();
    const QString iterations = argValue(argc, argv, "--iterations", quick ? "6" : "20");
    const QString warmup = QString::number(std::max(2, iterations.toInt() / 4));
    const QStringList policies =
        argValue(argc, argv, "--policies", quick ? "pace" : "fifo,ddp,horovod,bytescheduler,pace,manual").split(',');
    const QStringList transports = argValue(argc, argv, "--transports", "shm,gloo").split(',');
    QTemporaryDir dir;
    const Job job = makeJob(dir, quick);

    QString why;
    const QString python = findTorchPython(&why);
    std::vector<Column> columns;
    if (!python.isEmpty()) {
        columns.push_back({"pytorch ddp", {"ddp"}});
        if (!quick) columns.push_back({"pytorch no_sync", {"no_sync"}});
    }
    // Every policy at its defaults (the baselines in dynamic order, one unit in flight; pace choosing its segments,
    // fusion, order and channels after warm-up), and pace also in plan order with 2 channels, on each transport.
    for (const QString& transport : transports) {
        for (const QString& policy : policies)
            columns.push_back({QString("pacer %1 %2").arg(transport, policy), {"--policy", policy, "--transport", transport}});
        if (policies.contains("pace") && !quick)
            columns.push_back({QString("pacer %1 pace plan/2ch").arg(transport),
                               {"--policy", "pace", "--transport", transport, "--order", "plan", "--channels", "2"}});
    }

    std::printf("# %s; ms per iteration, median of %d interleaved round(s) of %s iterations (%s warm-up)\n",
                qPrintable(job.label), rounds, qPrintable(iterations), qPrintable(warmup));
    if (python.isEmpty()) std::printf("# PyTorch skipped: %s\n", qPrintable(why));
    std::printf("# load average before: %s\n", qPrintable(loadAverage()));
    std::map<QString, std::vector<double>> samples, cpu;
    std::map<QString, QStringList> streaming;  // per shared-memory column, each round's share (e.g. "2%")
    int failures = 0;
    for (int round = 0; round < rounds; ++round) {
        for (const Column& c : columns) {
            double ms = 0;
            const double cpuBefore = childCpuSeconds();
            QString project;  // Pacer's run, read once more below
            if (c.name.startsWith("pytorch")) {
                ms = runPyTorch(python, job, c.args[0], iterations, warmup);
            } else {
                project = dir.filePath(QString("run-%1.pacer").arg(round));
                QStringList args = {"capture", "--experiment", job.experiment, "--out", project, "--iterations", iterations,
                                    "--json"};
                ms = runCliJson(args + c.args)["iter_ms"].toDouble();
            }
            if (ms <= 0) ++failures;
            else samples[c.name].push_back(ms);
            cpu[c.name].push_back(childCpuSeconds() - cpuBefore);  // the capture's alone, not the read below
            if (project.isEmpty()) continue;
            const QJsonArray runs = runCliJson({"runs", "--project", project, "--json"})["runs"].toArray();
            const QJsonValue share =
                runs.isEmpty() ? QJsonValue() : runs[0].toObject()["metrics"].toObject()["shm_streaming_share"];
            if (share.isDouble()) streaming[c.name] << QString::number(100 * share.toDouble(), 'f', 0) + "%";
            QFile::remove(project);
        }
    }
    std::printf("# load average after: %s\n", qPrintable(loadAverage()));

    const double ddp = median(samples["pytorch ddp"]), noSync = median(samples["pytorch no_sync"]);
    // CPU seconds of a whole run (start-up included) stand beside the times: on a machine shared with other jobs
    // the wall clock follows the load, while the CPU a run consumes changes much less.
    std::printf("%-28s %10s %10s %10s %10s   %s\n", "", "ms", "/ddp", "/no_sync", "cpu s/run", "rounds (ms)");
    QString best;
    for (const Column& c : columns) {
        const double ms = median(samples[c.name]);
        QStringList all;
        for (double v : samples[c.name]) all << QString::number(v, 'f', 1);
        const QString shares = streaming.count(c.name) ? "   streaming " + streaming[c.name].join(' ') : QString();
        std::printf("%-28s %10.1f %10s %10s %10.1f   %s%s\n", qPrintable(c.name), ms,
                    ddp > 0 ? qPrintable(QString::number(ms / ddp, 'f', 3)) : "-",
                    noSync > 0 ? qPrintable(QString::number(ms / noSync, 'f', 3)) : "-", median(cpu[c.name]),
                    qPrintable(all.join(' ')), qPrintable(shares));
        if (c.name.startsWith("pacer") && ms > 0 && (best.isEmpty() || ms < median(samples[best]))) best = c.name;
    }
    if (!best.isEmpty() && ddp > 0 && noSync > 0) {
        const double ms = median(samples[best]);
        const bool met = ms <= 1.15 * noSync && ms <= 0.75 * ddp;
        std::printf("goal (best Pacer <= 1.15x no_sync and <= 0.75x DDP): %s %.1f ms = %.3fx no_sync, %.3fx DDP: %s\n",
                    qPrintable(best), ms, ms / noSync, ms / ddp, met ? "met" : "NOT met");
    }
    return failures == 0 ? 0 : 1;
}
