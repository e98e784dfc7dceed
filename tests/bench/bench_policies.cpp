// Iteration time of every policy at its defaults (no hand tuning: the experiment's policy is reduced to its name,
// order and channels left open, so `pace` tunes itself after warm-up) over the three model families at emulated
// 1, 2.5, 10 and 25 Gb/s, 2 ranks, real workers over Gloo. Per cell: each policy's median, the fastest, pace's
// time over the fastest and over ddp's, all measured in the same run, policies interleaved. Goals: pace the
// fastest or within 2% of it in every cell, and clearly ahead of ddp (>= 5%) where compute and communication are
// of the same size; each cell that falls short is printed and counted (the exit status is for failed runs only:
// a shortfall is a finding, and timing on a shared machine is not a test).
//
//   bench_policies [--quick] [--rounds N] [--links 1,2.5]
//     --quick: the wide MLP at 10 Gb/s, 10 iterations, one round; --links: a part of the grid
#include "bench_cli.h"

#include <QFile>
#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>

using namespace pacer::bench;

namespace {

struct Family {
    const char* name;
    const char* experiment;  // under samples/experiments
};

// The sample experiment with the policy at its defaults and order/channels unset; returns the copy's path.
QString defaultsCopy(const QTemporaryDir& dir, const Family& f) {
    std::ifstream in(std::string(PACER_SAMPLES_DIR "/experiments/") + f.experiment);
    nlohmann::json j = nlohmann::json::parse(in);
    if (j["model"].is_string())
        j["model"] = nlohmann::json::parse(std::ifstream(std::string(PACER_SAMPLES_DIR "/experiments/") +
                                                        j["model"].get<std::string>()));
    j["policy"] = {{"name", "fifo"}};
    j.erase("order");
    j.erase("channels");
    const QString path = dir.filePath(QString(f.name) + ".json");
    std::ofstream(path.toStdString()) << j.dump(2);
    return path;
}

}  // namespace

int main(int argc, char** argv) {
    const bool quick = quickMode(argc, argv);
    int rounds = quick ? 1 : 3;
    for (int i = 1; i + 1 < argc; ++i)
        if (QString(argv[i]) == "--rounds") rounds = std::max(1, QString(argv[i + 1]).toInt());
    const QStringList policies = {"fifo", "ddp", "horovod", "bytescheduler", "pace"};
    const std::vector<Family> families =
        quick ? std::vector<Family>{{"mlp", "mlp-wide-2rank.json"}}
              : std::vector<Family>{{"mlp", "mlp-wide-2rank.json"}, {"cnn", "cnn-2rank.json"},
                                    {"transformer", "transformer-2rank.json"}};
    QList<double> links = quick ? QList<double>{10} : QList<double>{1, 2.5, 10, 25};
    for (int i = 1; i + 1 < argc; ++i)
        if (QString(argv[i]) == "--links") {
            links.clear();
            for (const QString& g : QString(argv[i + 1]).split(',')) links.push_back(g.toDouble());
        }
    const QString iterations = quick ? "10" : "30";
    QTemporaryDir dir;
    int failures = 0, cells = 0, paceNearFastest = 0, balancedCells = 0, paceAheadOfDdp = 0;
    std::printf("# 2 ranks, %s iterations, every policy at its defaults, ms per iteration (median of %d rounds)\n",
                qPrintable(iterations), rounds);
    std::printf("%-12s %6s", "family", "Gb/s");
    for (const QString& p : policies) std::printf(" %13s", qPrintable(p));
    std::printf(" %10s %9s %9s  %s\n", "fastest", "pace/best", "pace/ddp", "note");
    for (const Family& family : families) {
        const QString experiment = defaultsCopy(dir, family);
        for (double gbps : links) {
            std::map<QString, std::vector<double>> runs;
            std::map<QString, double> commShare;  // fifo's run: exposed communication tells the regime
            for (int round = 0; round < rounds; ++round)
                for (const QString& policy : policies) {
                    const QString project = dir.filePath(QString("%1-%2-%3-%4.pacer").arg(family.name).arg(policy)
                                                             .arg(gbps).arg(round));
                    const QJsonObject r = runCliJson({"capture", "--experiment", experiment, "--out", project,
                                                      "--policy", policy, "--iterations", iterations, "--link-gbps",
                                                      QString::number(gbps), "--json"});
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
            if (std::any_of(policies.begin(), policies.end(), [&](const QString& p) { return ms[p] <= 0; })) {
                std::printf("%-12s %6.1f  a run failed: no comparison\n", family.name, gbps);  // named on stderr
                continue;
            }
            QString fastest = policies.front();
            for (const QString& p : policies)
                if (ms[p] < ms[fastest]) fastest = p;
            const double toBest = ms["pace"] / ms[fastest];
            const double toDdp = ms["pace"] / ms["ddp"];
            // Where the schedule matters: fifo (no priorities, no fusion) at least 15% behind the fastest. Where
            // compute hides all communication, or the link sets the pace whatever the order, every policy ties.
            const bool balanced = ms["fifo"] / ms[fastest] >= 1.15;
            ++cells;
            paceNearFastest += toBest <= 1.02 ? 1 : 0;
            balancedCells += balanced ? 1 : 0;
            paceAheadOfDdp += balanced && toDdp <= 0.95 ? 1 : 0;
            std::printf("%-12s %6.1f", family.name, gbps);
            for (const QString& p : policies) std::printf(" %13.3f", ms[p]);
            std::printf(" %10s %9.3f %9.3f  %s%s\n", qPrintable(fastest), toBest, toDdp,
                        toBest <= 1.02 ? "" : "[pace more than 2% behind the fastest] ",
                        balanced && toDdp > 0.95 ? "[schedules matter here, pace not 5% ahead of ddp]" : "");
        }
    }
    std::printf("# goals: pace fastest or within 2%% in %d of %d cells; where schedules matter (%d cells) pace >= 5%% "
                "ahead of ddp in %d\n", paceNearFastest, cells, balancedCells, paceAheadOfDdp);
    return failures == 0 ? 0 : 1;
}
