// Iteration time of a wide MLP on 2 ranks under every policy, at emulated 1, 2.5, 10 and 25 Gb/s links, with the
// speed-up of pace over fifo, ddp and horovod measured in the same run. Real workers, real Gloo, real link caps.
// The wide MLP (samples/experiments/mlp-wide-2rank.json: 9 MiB of gradients, ~30 ms of compute per iteration)
// spans the regimes: communication-bound at 1 Gb/s, compute ~ communication at 2.5 Gb/s, compute-bound at 25.
// (The small sample MLP reduces 1 MiB and computes 0.6 ms: every policy there just measures per-call overhead.)
// Two engine settings, each for every policy: the default (dynamic order, one unit in flight) and plan order
// with 2 channels (two units in flight, so each collective's ~1 ms of wake-ups on this machine hides behind the
// other's bytes; policies that send many small units gain the most).
#include "bench_cli.h"

#include <QFile>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>
#include <map>

using namespace pacer::bench;

int main(int argc, char** argv) {
    const bool quick = quickMode(argc, argv);
    const QStringList policies = {"fifo", "ddp", "horovod", "bytescheduler", "pace"};
    const QList<double> links = quick ? QList<double>{10} : QList<double>{1, 2.5, 10, 25};
    const QString iterations = quick ? "6" : "30";
    const int repeats = quick ? 1 : 3;
    QTemporaryDir dir;
    struct Setting {
        QString order;
        int channels;
    };
    const QList<Setting> settings = {{"dynamic", 1}, {"plan", 2}};
    int failures = 0;
    for (const Setting& setting : settings) {
        std::printf("# wide MLP (samples/experiments/mlp-wide-2rank.json), 2 ranks, %s iterations, %s order, %d "
                    "channel(s), ms per iteration (median of %d runs)\n", qPrintable(iterations), qPrintable(setting.order),
                    setting.channels, repeats);
        std::printf("%10s", "link Gb/s");
        for (const QString& p : policies) std::printf(" %14s", qPrintable(p));
        std::printf(" %12s %12s %12s\n", "pace/fifo", "pace/ddp", "pace/horovod");
        for (double gbps : links) {
            // Each policy runs `repeats` times, the policies interleaved so that a drift of the machine touches all
            // alike; the median counts (a single 30-iteration run moves by up to 10% on a shared 2-core machine).
            std::map<QString, std::vector<double>> runs;
            for (int repeat = 0; repeat < repeats; ++repeat)
                for (const QString& policy : policies) {
                    const QString project = dir.filePath(QString("%1-%2-%3-%4-%5.pacer")
                                                             .arg(policy).arg(gbps).arg(setting.order)
                                                             .arg(setting.channels).arg(repeat));
                    const QJsonObject r = runCliJson({"capture", "--experiment", PACER_SAMPLES_DIR "/experiments/mlp-wide-2rank.json",
                                                      "--out", project, "--policy", policy, "--iterations", iterations,
                                                      "--link-gbps", QString::number(gbps), "--order", setting.order,
                                                      "--channels", QString::number(setting.channels), "--json"});
                    const double v = r["iter_ms"].toDouble();
                    if (v <= 0) ++failures;
                    runs[policy].push_back(v);
                    QFile::remove(project);
                }
            std::map<QString, double> ms;
            for (auto& [policy, values] : runs) {
                std::sort(values.begin(), values.end());
                ms[policy] = values[values.size() / 2];
            }
            std::printf("%10.1f", gbps);
            for (const QString& p : policies) std::printf(" %14.3f", ms[p]);
            // Speed-up: how many times faster pace is (> 1 means pace is faster).
            std::printf(" %12.3f %12.3f %12.3f\n", ms["fifo"] / ms["pace"], ms["ddp"] / ms["pace"], ms["horovod"] / ms["pace"]);
        }
    }
    return failures == 0 ? 0 : 1;
}
