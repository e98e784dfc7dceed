// Replay's prediction error over a grid of real captured runs (policies x link speeds x segment sizes): each run
// is replayed under the policy it ran ("self"), and the fifo run of each link speed predicts every other policy
// ("cross"). Prints every point, then the median and worst absolute error (goal: median <= 3%, worst <= 8%).
// The wide MLP of samples/experiments/mlp-wide-2rank.json, where compute and communication both matter.
#include "bench_cli.h"

#include <QTemporaryDir>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

using namespace pacer::bench;

namespace {

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    const bool quick = quickMode(argc, argv);
    const QStringList policies = quick ? QStringList{"fifo", "pace"} : QStringList{"fifo", "ddp", "horovod", "bytescheduler", "pace"};
    const QList<double> links = quick ? QList<double>{10} : QList<double>{1, 2.5, 10};
    const QStringList segments = quick ? QStringList{"2MiB"} : QStringList{"1MiB", "2MiB"};
    // 60 iterations: the measured mean of one run moves by ~2% between runs at 30 (a period varies by ~10% on a
    // shared 2-core machine), and a cross-policy error compares two runs, so that noise would count twice.
    const QString iterations = quick ? "6" : "60";
    QTemporaryDir dir;
    std::vector<double> selfErrors, crossErrors;
    std::printf("%8s %10s %14s %12s %12s %9s %12s %9s\n", "link", "segment", "policy", "measured", "self", "error",
                "from fifo", "error");
    for (double gbps : links) {
        for (const QString& segment : segments) {
            QString fifoProject;
            for (const QString& policy : policies) {
                const QString project = dir.filePath(QString("%1-%2-%3.pacer").arg(policy).arg(gbps).arg(segment));
                const QJsonObject cap = runCliJson({"capture", "--experiment", PACER_SAMPLES_DIR "/experiments/mlp-wide-2rank.json",
                                                    "--out", project, "--policy", policy, "--segment-bytes", segment,
                                                    "--iterations", iterations, "--link-gbps", QString::number(gbps),
                                                    "--json"});
                const double measured = cap["iter_ms"].toDouble();
                if (measured <= 0) return 1;
                if (policy == "fifo") fifoProject = project;
                const double self = runCliJson({"replay", "--project", project, "--policy", policy, "--segment-bytes",
                                                segment, "--json"})["predicted_iter_ms"].toDouble();
                const double cross = runCliJson({"replay", "--project", fifoProject, "--policy", policy,
                                                 "--segment-bytes", segment, "--json"})["predicted_iter_ms"].toDouble();
                const double selfErr = (self - measured) / measured, crossErr = (cross - measured) / measured;
                selfErrors.push_back(std::abs(selfErr));
                if (policy != "fifo") crossErrors.push_back(std::abs(crossErr));
                std::printf("%8.1f %10s %14s %12.3f %12.3f %8.1f%% %12.3f %8.1f%%\n", gbps, qPrintable(segment),
                            qPrintable(policy), measured, self, 100 * selfErr, cross, 100 * crossErr);
            }
        }
    }
    // Plan order with 2 channels (two units in flight): each run replayed as itself, and predicted from the
    // one-channel fifo run of the same link and segment with --channels 2.
    std::vector<double> channelSelf, channelCross;
    const QList<double> channelLinks = quick ? QList<double>{10} : QList<double>{2.5, 10};
    const QStringList channelPolicies = quick ? QStringList{"pace"} : QStringList{"fifo", "ddp", "pace"};
    std::printf("%8s %10s %14s %12s %12s %9s %12s %9s   (plan order, 2 channels)\n", "link", "segment", "policy",
                "measured", "self", "error", "from fifo", "error");
    for (double gbps : channelLinks) {
        const QString segment = "2MiB";
        const QString fifoProject = dir.filePath(QString("fifo-%1-%2.pacer").arg(gbps).arg(segment));
        for (const QString& policy : channelPolicies) {
            const QString project = dir.filePath(QString("ch2-%1-%2-%3.pacer").arg(policy).arg(gbps).arg(segment));
            const QJsonObject cap = runCliJson({"capture", "--experiment", PACER_SAMPLES_DIR "/experiments/mlp-wide-2rank.json",
                                                "--out", project, "--policy", policy, "--segment-bytes", segment,
                                                "--iterations", iterations, "--link-gbps", QString::number(gbps),
                                                "--order", "plan", "--channels", "2", "--json"});
            const double measured = cap["iter_ms"].toDouble();
            if (measured <= 0) return 1;
            const double self = runCliJson({"replay", "--project", project, "--policy", policy, "--segment-bytes",
                                            segment, "--json"})["predicted_iter_ms"].toDouble();
            const double cross = runCliJson({"replay", "--project", fifoProject, "--policy", policy, "--segment-bytes",
                                             segment, "--channels", "2", "--json"})["predicted_iter_ms"].toDouble();
            const double selfErr = (self - measured) / measured, crossErr = (cross - measured) / measured;
            channelSelf.push_back(std::abs(selfErr));
            channelCross.push_back(std::abs(crossErr));
            std::printf("%8.1f %10s %14s %12.3f %12.3f %8.1f%% %12.3f %8.1f%%\n", gbps, qPrintable(segment),
                        qPrintable(policy), measured, self, 100 * selfErr, cross, 100 * crossErr);
        }
    }
    auto worst = [](const std::vector<double>& v) { return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end()); };
    std::printf("self-replay error: median %.1f%%, worst %.1f%% over %zu runs\n", 100 * median(selfErrors),
                100 * worst(selfErrors), selfErrors.size());
    std::printf("cross-policy error (from fifo): median %.1f%%, worst %.1f%% over %zu runs\n", 100 * median(crossErrors),
                100 * worst(crossErrors), crossErrors.size());
    std::printf("2 channels: self median %.1f%%, worst %.1f%%; from the 1-channel fifo run median %.1f%%, worst %.1f%% "
                "over %zu runs\n", 100 * median(channelSelf), 100 * worst(channelSelf), 100 * median(channelCross),
                100 * worst(channelCross), channelSelf.size());
    return 0;
}
