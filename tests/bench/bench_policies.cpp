// Iteration time of every policy at its defaults (no hand tuning: the experiment's policy is reduced to its name,
// order and channels left open, so `pace` tunes itself after warm-up) over the three model families at emulated
// 1, 2.5, 10 and 25 Gb/s, 2 ranks, real workers (over shared memory: the samples' transport is "auto", and both
// ranks share this host). Per cell: each policy's median, the fastest, pace's time over the fastest and over
// ddp's, all measured in the same run, policies interleaved. Goals: pace the fastest or within 2% of it in every
// cell, and clearly ahead of ddp (>= 5%) where compute and communication are of the same size (ddp's collectives
// within a third and three times its compute, by replay of its run); each cell that falls short is printed and
// counted (the exit status is for failed runs only: a shortfall is a finding, and timing on a shared machine is
// not a test).
// A round runs every policy once, in the opposite order to the round before (the first capture of a round ran
// faster on this machine). Where the host's speed wanders (on the 2-core machine this was written on, one
// single-threaded loop ran 27-42 ms per second-long stretch with nothing else running, and one policy's
// captures of one cell 31-52 ms), a 2% goal is finer than a median of three can resolve; so a cell that falls
// short also says in how many rounds pace was within 2% of the fastest policy's run of the same round (paired: the
// two ran a few seconds apart), and how far one policy's rounds spread there: behind in every round is a
// shortfall, behind in some is this machine's noise as much as pace. (Not "within 2% of each round's fastest": with
// five policies tied the least of five noisy runs is usually well ahead of any one of them.)
//
//   bench_policies [--quick] [--rounds N] [--links 1,2.5] [--iterations K]
//     --quick: the wide MLP at 10 Gb/s, 10 iterations, one round; --links: a part of the grid; K: 120 by default
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
    // 120 iterations (30 until 2026-12-03): two runs of one policy and cell lay 1.4% apart (median) at 120 in
    // bench_prediction's grid that day, against 4.0-4.6% at 40; the 2% goal needs the longer runs to be judged.
    QString iterations = quick ? "10" : "120";
    for (int i = 1; i + 1 < argc; ++i) {
        if (QString(argv[i]) == "--links") {
            links.clear();
            for (const QString& g : QString(argv[i + 1]).split(',')) links.push_back(g.toDouble());
        }
        if (QString(argv[i]) == "--iterations") iterations = argv[i + 1];
    }
    QTemporaryDir dir;
    int failures = 0, cells = 0, paceNearFastest = 0, behindEveryRound = 0, sameSizeCells = 0, paceAheadOfDdp = 0;
    int fifoBehindCells = 0, paceAheadWhereFifoBehind = 0;
    std::printf("# 2 ranks, %s iterations, every policy at its defaults, ms per iteration (median of %d rounds)\n",
                qPrintable(iterations), rounds);
    std::printf("%-12s %6s", "family", "Gb/s");
    for (const QString& p : policies) std::printf(" %13s", qPrintable(p));
    std::printf(" %10s %9s %9s %9s %8s  %s\n", "fastest", "pace/best", "pace/ddp", "comm/comp", "spread", "note");
    for (const Family& family : families) {
        const QString experiment = defaultsCopy(dir, family);
        for (double gbps : links) {
            std::map<QString, std::vector<double>> runs;  // per policy, in round order
            std::vector<double> commOverCompute;            // per round: ddp's collectives over its compute alone
            for (int round = 0; round < rounds; ++round)
                for (int k = 0; k < policies.size(); ++k) {
                    const QString& policy = policies[round % 2 == 0 ? k : policies.size() - 1 - k];
                    const QString project = dir.filePath(QString("%1-%2-%3-%4.pacer").arg(family.name).arg(policy)
                                                             .arg(gbps).arg(round));
                    const QJsonObject r = runCliJson({"capture", "--experiment", experiment, "--out", project,
                                                      "--policy", policy, "--iterations", iterations, "--link-gbps",
                                                      QString::number(gbps), "--json"});
                    const double v = r["iter_ms"].toDouble();
                    if (v <= 0) ++failures;
                    runs[policy].push_back(v);
                    if (policy == "ddp" && v > 0) {  // how compute and communication compare in this cell
                        const QJsonObject f = runCliJson({"replay", "--project", project, "--policy", "ddp", "--json"});
                        const double compute = f["compute_alone_ms"].toDouble(), comm = f["comm_ms"].toDouble();
                        if (compute > 0 && comm > 0) commOverCompute.push_back(comm / compute);
                    }
                    QFile::remove(project);
                }
            std::map<QString, double> ms;
            std::vector<double> spreads;  // per policy: (slowest round - fastest round) / median
            for (const auto& [policy, values] : runs) {
                std::vector<double> sorted = values;
                std::sort(sorted.begin(), sorted.end());
                ms[policy] = sorted[sorted.size() / 2];
                if (ms[policy] > 0) spreads.push_back((sorted.back() - sorted.front()) / ms[policy]);
            }
            std::sort(spreads.begin(), spreads.end());
            const double spread = spreads.empty() ? 0 : spreads[spreads.size() / 2];
            if (std::any_of(policies.begin(), policies.end(), [&](const QString& p) { return ms[p] <= 0; })) {
                std::printf("%-12s %6.1f  a run failed: no comparison\n", family.name, gbps);  // named on stderr
                continue;
            }
            QString fastest = policies.front();
            for (const QString& p : policies)
                if (ms[p] < ms[fastest]) fastest = p;
            int roundsNearFastest = 0, roundsWhole = 0;  // rounds pace was within 2% of the fastest's run; of
            for (int round = 0; round < rounds; ++round) {
                const double pace = runs["pace"][round], best = runs[fastest][round];
                if (pace <= 0 || best <= 0) continue;  // a run of this round failed
                ++roundsWhole;
                roundsNearFastest += pace <= 1.02 * best ? 1 : 0;
            }
            const double toBest = ms["pace"] / ms[fastest];
            const double toDdp = ms["pace"] / ms["ddp"];
            // The cells for the ddp goal: compute and communication of the same size, the link's time per
            // iteration (ddp's collectives, as its run's replay fits them) within a factor of three of the compute
            // alone. Until 2026-12-04 the cells were those where fifo (no priorities, no fusion) ran at least 15%
            // behind the fastest; at 25 Gb/s that counted the CNN, whose collectives took a tenth of its compute
            // (fifo was behind on the CPU its many collectives take, which ddp's two buckets save as well as pace's
            // do). Both are printed: `comm/comp` per cell, and the old cells' count under the goals.
            std::sort(commOverCompute.begin(), commOverCompute.end());
            const double ratio = commOverCompute.empty() ? 0 : commOverCompute[commOverCompute.size() / 2];
            const bool sameSize = ratio >= 1.0 / 3 && ratio <= 3.0;
            const bool fifoBehind = ms["fifo"] / ms[fastest] >= 1.15;
            ++cells;
            paceNearFastest += toBest <= 1.02 ? 1 : 0;
            behindEveryRound += toBest > 1.02 && roundsNearFastest == 0 ? 1 : 0;
            sameSizeCells += sameSize ? 1 : 0;
            paceAheadOfDdp += sameSize && toDdp <= 0.95 ? 1 : 0;
            fifoBehindCells += fifoBehind ? 1 : 0;
            paceAheadWhereFifoBehind += fifoBehind && toDdp <= 0.95 ? 1 : 0;
            std::printf("%-12s %6.1f", family.name, gbps);
            for (const QString& p : policies) std::printf(" %13.3f", ms[p]);
            std::printf(" %10s %9.3f %9.3f %9.2f %7.0f%%  ", qPrintable(fastest), toBest, toDdp, ratio, 100 * spread);
            if (toBest > 1.02)
                std::printf("[pace more than 2%% behind the fastest; within 2%% of its run in %d of %d rounds] ",
                            roundsNearFastest, roundsWhole);
            std::printf("%s\n", sameSize && toDdp > 0.95 ? "[compute and communication alike, pace not 5% ahead of ddp]"
                                                          : "");
        }
    }
    std::printf("# goals: pace fastest or within 2%% in %d of %d cells (of the %d short, behind in every round: %d); "
                "where compute and communication are of the same size (%d cells) pace >= 5%% ahead of ddp in %d\n",
                paceNearFastest, cells, cells - paceNearFastest, behindEveryRound, sameSizeCells, paceAheadOfDdp);
    std::printf("# the old cells, fifo >= 15%% behind the fastest (%d cells): pace >= 5%% ahead of ddp in %d\n",
                fifoBehindCells, paceAheadWhereFifoBehind);
    std::printf("# comm/comp: ddp's collectives per iteration over its compute alone (replay of its run), the median "
                "over rounds; the same size is 1/3 to 3\n");
    std::printf("# spread: one policy's slowest round over its fastest, less 1, the median over policies: what a "
                "cell's rounds differ by on this machine\n");
    return failures == 0 ? 0 : 1;
}
