// Replay's prediction error over a grid of real captured runs: every sample experiment x emulated 1, 2.5 and
// 10 Gb/s x every policy, each at the experiment's own segment size. Each run is replayed under the policy it
// ran ("self"), and the fifo run of the same round predicts every other policy ("cross"). Beside the cross error
// stands that of a policy-blind predictor (the fifo run's own measured time): where two policies differ by 20% or
// more (their medians over the rounds), replay has to beat it clearly, or it knows nothing of the policies. Every
// prediction comes with a band from the spread of its source run's iterations; the measured time should fall inside.
//
// The grid runs in rounds: each round captures every policy of a cell once, one after another, so that a cross
// prediction compares two runs that saw the same machine (on a shared 2-core machine another job starting
// between two captures moves every time by 20% or more).
//
// Goals (judged at the end, in quick mode too; what falls short is printed): self and cross error median <= 3%,
// worst <= 8%; the measured time inside the band in >= 90% of the predictions; on the pairs that differ by >= 20%,
// replay's median error at most half the policy-blind one. Wall-clock goals on a shared machine are not asserted:
// the bench exits 0 whenever it could measure. With three rounds or more (the default) the cross goal is judged per
// cell, the median of its rounds' errors, the way the issue that set it reported its cases (medians of three): one
// policy's runs of one cell in two rounds lay up to 22% apart on this machine (2026-12-05, 45 pairs), so a worst
// over single runs judges the machine's speed between two captures more than replay, and a perfect predictor would
// miss it. The per-run errors are printed above it all the same; with one or two rounds they are what is judged.
//
// Beside them it prints how far two runs of the same policy and cell, in different rounds, lie apart: the noise of
// this machine that a prediction from one run cannot know of (a perfect predictor would be off by that much); with
// three rounds or more, the cross error per cell (the median of its rounds' errors, which the goal judges); and
// how far each self-tuned pace run's own warm-up prediction (what `runs` and the schedule editor show) lay from the
// run, and whether the band it came with held the run; and
// the self-tuned pace run of each round predicting the other policies (what replay of a default capture shows), and
// the ddp run likewise (a user's DDP job: on 2026-12-04 its predictions were 3-13% too fast at 10 Gb/s); and
// the cross error once more with each target run's compute speed given: on this machine one rank alone, nothing to
// reduce, ran the transformer sample at 13.3-21.2 ms in six captures back to back, and a prediction from another
// run cannot know which speed the next capture gets. That speed also holds whatever the target's own schedule cost
// its compute beyond the collectives' CPU (which replay leaves out; over three grids of the 18th session the
// forward passes of the other policies' runs were 1-3% slower than fifo's, geometric means), so the
// difference between the two errors is the machine's drift less at most that much. And once more at the machine's
// speed as the two runs' own figures found it (their forward passes alone, before and after the iterations), which
// read nothing of the target's schedule: on 2026-12-05, over 72 cross predictions, median 0.9% and worst 12.5%
// against 1.2% and 11.9% as measured (the worst is the transformer at 10 Gb/s, where fifo's schedule slows its own
// compute, not the machine); a run slow between its two figures it cannot see.
// A cell over the goal is printed round by round, with where each prediction and its target parted by the target's
// own replay: the machine's speed (the two runs' forward passes alone), the compute alone, the exposed communication;
// how often each run's compute thread was preempted per iteration; and the share of each run's shared-memory chunks
// written with streaming stores (the host's state: docs/shm-slot-stores.md).
//
// Quick mode (CTest): the small sample at 1 Gb/s, fifo and ddp, 20 iterations of which 15 are measured (the
// experiment's 5 warm-ups are not), one round: the case a new user found off by 9-31%; and the transformer sample at
// 2.5 Gb/s, fifo and pace, two policies far apart (25 against 18-20 ms on this machine), so that the cross-policy
// goal has a pair to judge. (The CNN's fifo and ddp stood there until 2026-12-03: 3-12% apart by then.)
// Options: --rounds N, --iterations K (default 120), --experiment NAME (repeatable; default every sample experiment),
// --keep DIR (the captures go to DIR and stay; a capture already there is used as it is, its measured time read from
// the project: run again with the same DIR and the same options to judge another replay on the same runs, where a new
// grid would bring the machine's noise of another hour).
#include "bench_cli.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

using namespace pacer::bench;

namespace {

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const std::size_t mid = v.size() / 2;
    return v.size() % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

double worst(const std::vector<double>& v) { return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end()); }

QString loadAverage() {
    QFile f("/proc/loadavg");
    if (!f.open(QIODevice::ReadOnly)) return "unknown";
    return QString::fromUtf8(f.readAll()).section(' ', 0, 2);
}

// The goals of replay's errors, self and cross (#15): median and worst.
constexpr double kMedianGoal = 0.03, kWorstGoal = 0.08;

struct Prediction {
    double ms = 0, low = 0, high = 0;
    double computeAlone = 0;  // the source run's compute per iteration, nothing taken from it
    double forwardAlone = 0;  // the machine's speed as the source run found it (its forward pass alone)
    double exposed = 0;       // the communication compute waited for, per iteration
    bool ok() const { return ms > 0; }
    bool covers(double measured) const { return low <= measured && measured <= high; }
    double width() const { return ms > 0 ? (high - low) / ms : 0; }
};

Prediction predict(const QString& project, const QString& policy, const QStringList& extra = {}) {
    const QJsonObject r = runCliJson(QStringList{"replay", "--project", project, "--policy", policy, "--json"} + extra);
    return {r["predicted_iter_ms"].toDouble(), r["predicted_low_ms"].toDouble(), r["predicted_high_ms"].toDouble(),
            r["compute_alone_ms"].toDouble(), r["forward_alone_ms"].toDouble(), r["exposed_comm_ms"].toDouble()};
}

// Three of a run's own figures: what a self-tuned run's warm-up predicted for the settings it chose and its band
// (`runs` and the schedule editor show them; 0 when the run did not tune itself, a 0 band where it had none), how
// often per iteration the scheduler took the compute thread's core away (the worker's compute_thread_preemptions, the
// ranks' mean), and the share of its shared-memory chunks written with streaming stores (high where the host had the
// ranks' cores apart; -1 without shared memory).
struct RunFigures {
    double warmupPrediction = 0, warmupLow = 0, warmupHigh = 0, preemptions = 0, streamingShare = -1;
};
RunFigures runFigures(const QString& project) {
    const QJsonArray runs = runCliJson({"runs", "--project", project, "--json"})["runs"].toArray();
    if (runs.isEmpty()) return {};
    const QJsonObject metrics = runs[0].toObject()["metrics"].toObject();
    return {metrics["tuned_predicted_ms"].toDouble(), metrics["tuned_predicted_low_ms"].toDouble(),
            metrics["tuned_predicted_high_ms"].toDouble(), metrics["compute_thread_preemptions"].toDouble(),
            metrics["shm_streaming_share"].toDouble(-1)};
}

double capture(const QString& experiment, const QString& project, const QString& policy, double gbps,
               const QString& iterations, const QStringList& extra = {}) {
    if (QFileInfo::exists(project)) {  // kept from an earlier run of the bench (--keep)
        const QJsonArray runs = runCliJson({"runs", "--project", project, "--json"})["runs"].toArray();
        return runs.isEmpty() ? 0.0 : runs[0].toObject()["metrics"].toObject()["iter_ms"].toDouble();
    }
    const QJsonObject cap = runCliJson(QStringList{"capture", "--experiment", experiment, "--out", project, "--policy",
                                                   policy, "--iterations", iterations, "--link-gbps",
                                                   QString::number(gbps), "--json"} + extra);
    return cap["iter_ms"].toDouble();
}

// Where a cross prediction and its target part, by the target's own replay: the machine's speed (the target's
// forward pass alone over the fifo run's, less 1), its compute alone over the prediction's (less 1), and its exposed
// communication less the prediction's, in ms; both runs' preemptions of the compute thread per iteration, which
// the compute's own loss to the collectives follows and the prediction does not see (docs/interruption-cost.md); and
// both runs' share of shared-memory chunks written with streaming stores (the host's state, which no prediction
// knows either: docs/shm-slot-stores.md). What a cell over the goal is printed with.
struct Split {
    double machine = 0, compute = 0, exposedMs = 0;
    double preemptions = 0, fifoPreemptions = 0;
    double streaming = -1, fifoStreaming = -1;
};

// One policy in one cell (experiment and link), one entry per round: its measured time, what that round's fifo
// run predicted for it, and where the two parted.
struct PolicyRounds {
    std::vector<double> measured, fromFifo;
    std::vector<Split> split;
    // The round's cross error, signed: above 0, predicted too slow.
    double error(std::size_t round) const { return (fromFifo[round] - measured[round]) / measured[round]; }
};

// Errors and band checks, gathered over the grid.
struct Tally {
    std::vector<double> self, widths;
    // Cross predictions told the target run's compute speed (a diagnostic: they read the run they predict).
    std::vector<double> crossAtItsSpeed;
    // Cross predictions told the machine's speed as the two runs' forward passes alone found it: what is left once
    // the machine's drift between the captures is set aside, and nothing of the target's schedule is read.
    std::vector<double> crossAtMachineSpeed;
    std::vector<double> warmup;  // self-tuned runs: the warm-up's prediction against the run
    std::vector<double> warmupWidths;  // and its band's width over the prediction, where it had one
    int warmupInBand = 0;
    // From another run of the round to each other policy: signed errors and how many fell inside their band.
    // Reported beside the fifo-sourced goals, not judged. Sources: the self-tuned pace run (the default a new user
    // captures) and the ddp run (a user's DDP job, the first thing many capture).
    struct FromSource {
        std::vector<double> errors;
        int inBand = 0;
    };
    std::map<QString, FromSource> fromOther;
    int inBand = 0, predictions = 0;
    std::map<QString, std::map<QString, PolicyRounds>> cells;  // "experiment link" -> policy -> rounds

    // How far two runs of the same schedule lie apart on this machine: the noise any prediction from one run
    // inherits, printed beside the errors.
    std::vector<double> repeatGaps() const {
        std::vector<double> gaps;
        for (const auto& [cell, policies] : cells)
            for (const auto& [policy, r] : policies)
                for (std::size_t a = 0; a < r.measured.size(); ++a)
                    for (std::size_t b = a + 1; b < r.measured.size(); ++b) {
                        const double x = r.measured[a], y = r.measured[b];
                        gaps.push_back(std::abs(x - y) / std::min(x, y));
                    }
        return gaps;
    }

    // The cross predictions of the policies that lie 20% or more from fifo, with the policy-blind guess's errors
    // beside them. Which policies those are is read from the cell's medians over the rounds: a pair is far apart by
    // its schedules, not because one run of it met a slow stretch of the machine (on a noisy run, fifo captures
    // 25% slower than their own other rounds made "distinct" pairs of policies 10% apart, and the check then judged
    // replay on the noise: 19.5% against the blind guess's 26.2%). With one round, the runs themselves.
    std::pair<std::vector<double>, std::vector<double>> distinctErrors() const {
        std::vector<double> replayErr, blindErr;
        for (const auto& [cell, policies] : cells) {
            const auto fifo = policies.find("fifo");
            if (fifo == policies.end()) continue;
            const double fifoMs = median(fifo->second.measured);
            for (const auto& [policy, r] : policies) {
                const double ms = median(r.measured);
                if (policy == "fifo" || std::abs(fifoMs - ms) < 0.2 * ms) continue;
                for (std::size_t i = 0; i < r.measured.size(); ++i) {
                    replayErr.push_back(std::abs(r.error(i)));
                    blindErr.push_back(std::abs(fifo->second.measured[i] - r.measured[i]) / r.measured[i]);
                }
            }
        }
        return {replayErr, blindErr};
    }

    // Every cross prediction's error: each policy but fifo, each round.
    std::vector<double> crossErrors() const {
        std::vector<double> errors;
        for (const auto& [cell, policies] : cells)
            for (const auto& [policy, r] : policies)
                for (std::size_t i = 0; policy != "fifo" && i < r.measured.size(); ++i)
                    errors.push_back(std::abs(r.error(i)));
        return errors;
    }

    // Replay's error per cell, the median over the rounds of each round's cross error (its fifo run predicting
    // its run of the policy, two captures a few seconds apart): what the model gets wrong with the machine's
    // run-to-run noise averaged over. The cross goal is judged on it. Each side's median taken apart (the rounds'
    // predictions against the rounds' runs) mixes rounds: on a grid whose CNN fifo runs at 10 Gb/s moved by 20%
    // from one round to the next, a cell whose rounds were off by +2.4, +29.3 and -0.1% came out 26.3% off that
    // way, 2.4% this way. Empty with fewer than three rounds.
    std::vector<double> cellErrors() const {
        std::vector<double> errors;
        forEachJudgedCell([&](const QString&, const QString&, const PolicyRounds&, double e) { errors.push_back(e); });
        return errors;
    }
    // (cell, policy, its rounds, the judged error) for each cell with three rounds or more.
    template <typename Visit>
    void forEachJudgedCell(Visit visit) const {
        for (const auto& [cell, policies] : cells)
            for (const auto& [policy, r] : policies) {
                if (policy == "fifo" || r.measured.size() < 3) continue;
                std::vector<double> rounds;
                for (std::size_t i = 0; i < r.measured.size(); ++i) rounds.push_back(r.error(i));
                visit(cell, policy, r, std::abs(median(rounds)));
            }
    }
    void band(const Prediction& p, double measured) {
        ++predictions;
        inBand += p.covers(measured) ? 1 : 0;
        widths.push_back(p.width());
    }
};

std::vector<std::string> judge(const Tally& t) {
    std::vector<std::string> missed;
    auto check = [&](const char* what, const std::vector<double>& v) {
        if (v.empty()) return;
        const auto percent = [](double x) {
            char text[32];
            std::snprintf(text, sizeof text, "%g%%", 100 * x);
            return std::string(text);
        };
        if (median(v) > kMedianGoal)
            missed.push_back(std::string(what) + " median error " + percent(median(v)) + " > " + percent(kMedianGoal));
        if (worst(v) > kWorstGoal)
            missed.push_back(std::string(what) + " worst error " + percent(worst(v)) + " > " + percent(kWorstGoal));
    };
    check("self-replay", t.self);
    const std::vector<double> cells = t.cellErrors();
    if (cells.empty()) check("cross-policy", t.crossErrors());
    else check("cross-policy (per cell, the median of its rounds)", cells);
    if (t.predictions > 0 && t.inBand < 0.9 * t.predictions)
        missed.push_back("band holds the measured time in " + std::to_string(t.inBand) + " of " +
                         std::to_string(t.predictions) + " predictions (< 90%)");
    const auto [distinctCross, distinctBlind] = t.distinctErrors();
    if (distinctCross.empty())
        missed.push_back("no pair of policies differed by 20% or more: the cross-policy check compared nothing");
    else if (median(distinctCross) > 0.5 * median(distinctBlind))
        missed.push_back("on policies that differ by >= 20%, replay's median error " +
                         std::to_string(100 * median(distinctCross)) + "% is not under half the policy-blind " +
                         std::to_string(100 * median(distinctBlind)) + "%");
    return missed;
}

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each point as it is measured: a full run takes minutes
    const bool quick = quickMode(argc, argv);
    // Three rounds by default, the fewest whose median the cross goal is judged on (see the top).
    int rounds = quick ? 1 : 3;
    // 120 iterations (40 until 2026-12-03): interleaved A/B on the CNN and transformer samples, 3 rounds, twice,
    // the cross-policy median went 3.7/3.2% -> 2.4/2.0% and two runs of one cell 4.4/4.6% -> 2.9/3.4% apart.
    QString iterations = quick ? "20" : "120";
    QStringList only;  // --experiment NAME (repeatable): those sample experiments alone, e.g. to leave out the slow ones
    QString keep;
    for (int i = 1; i + 1 < argc; ++i) {
        if (QString(argv[i]) == "--rounds") rounds = std::max(1, QString(argv[i + 1]).toInt());
        if (QString(argv[i]) == "--iterations") iterations = argv[i + 1];
        if (QString(argv[i]) == "--experiment") only << argv[i + 1];
        if (QString(argv[i]) == "--keep") keep = argv[i + 1];
    }
    if (!keep.isEmpty() && !QDir().mkpath(keep)) {
        std::fprintf(stderr, "bench_prediction: cannot create --keep directory '%s'\n", qPrintable(keep));
        return 2;
    }
    QStringList experiments;
    if (quick) {
        experiments = {PACER_SAMPLES_DIR "/experiments/mlp-2rank.json"};
    } else {
        const QDir dir(PACER_SAMPLES_DIR "/experiments");
        const QStringList names = dir.entryList({"*.json"}, QDir::Files, QDir::Name);
        for (const QString& name : only)
            if (!names.contains(name + ".json")) {  // a typo or a path would otherwise measure nothing and say little
                std::fprintf(stderr, "bench_prediction: no sample experiment named '%s' (the names in %s, without "
                                     ".json)\n", qPrintable(name), PACER_SAMPLES_DIR "/experiments");
                return 2;
            }
        for (const QString& name : names)
            if (only.isEmpty() || only.contains(QFileInfo(name).baseName())) experiments << dir.filePath(name);
    }
    // Quick mode adds the transformer at 2.5 Gb/s with pace, far from fifo (its 54 collectives against a few fused
    // units), so that the cross-policy goal judges a pair in quick mode too.
    if (quick) experiments << PACER_SAMPLES_DIR "/experiments/transformer-2rank.json";
    const auto inQuickPair = [](const QString& experiment) { return experiment.endsWith("transformer-2rank.json"); };
    auto linksOf = [&](const QString& experiment) {
        if (!quick) return QList<double>{1, 2.5, 10};
        return inQuickPair(experiment) ? QList<double>{2.5} : QList<double>{1};
    };
    auto policiesOf = [&](const QString& experiment) {
        if (!quick) return QStringList{"fifo", "ddp", "horovod", "bytescheduler", "pace"};
        return inQuickPair(experiment) ? QStringList{"fifo", "pace"} : QStringList{"fifo", "ddp"};
    };
    std::printf("load average before: %s\n", qPrintable(loadAverage()));

    QTemporaryDir temporary;
    const QDir dir(keep.isEmpty() ? temporary.path() : keep);
    if (!keep.isEmpty()) std::printf("captures kept in %s (those already there are reused)\n", qPrintable(dir.path()));
    Tally tally;
    std::printf("%-16s %5s %5s %14s %9s %9s %7s %19s %9s %7s %19s %7s\n", "experiment", "link", "round", "policy",
                "measured", "self", "error", "self band", "from fifo", "error", "cross band", "blind");
    for (const QString& experiment : experiments) {
        const QString name = QFileInfo(experiment).baseName();
        const QStringList policies = policiesOf(experiment);
        for (double gbps : linksOf(experiment)) {
            for (int round = 1; round <= rounds; ++round) {
                // Capture every policy of the round first, then predict: the fifo run must exist for the others.
                std::map<QString, std::pair<QString, double>> runs;  // policy -> (project, measured ms)
                for (const QString& policy : policies) {
                    const QString project = dir.filePath(QString("%1-%2-%3-%4.pacer").arg(name).arg(gbps).arg(round).arg(policy));
                    const double measured = capture(experiment, project, policy, gbps, iterations);
                    if (measured <= 0) return 1;
                    runs[policy] = {project, measured};
                }
                const auto& [fifoProject, fifoMs] = runs["fifo"];
                const Prediction fifoSelf = predict(fifoProject, "fifo");
                std::map<QString, RunFigures> figures;  // each run's own, read once
                for (const auto& [policy, run] : runs) figures[policy] = runFigures(run.first);
                const double fifoPreemptions = figures["fifo"].preemptions;
                for (const QString source : {"pace", "ddp"}) {
                    const auto from = runs.find(source);
                    if (from == runs.end()) continue;
                    for (const QString& policy : policies) {
                        if (policy == source) continue;
                        const Prediction predicted = predict(from->second.first, policy);
                        if (!predicted.ok()) return 1;
                        const double measured = runs[policy].second;
                        Tally::FromSource& tallied = tally.fromOther[source];
                        tallied.errors.push_back((predicted.ms - measured) / measured);
                        tallied.inBand += predicted.covers(measured) ? 1 : 0;
                    }
                }
                for (const QString& policy : policies) {
                    const auto& [project, measured] = runs[policy];
                    const bool isFifo = policy == "fifo";  // its self and cross predictions are fifoSelf
                    const Prediction self = isFifo ? fifoSelf : predict(project, policy);
                    const Prediction cross = isFifo ? fifoSelf : predict(fifoProject, policy);
                    if (!self.ok() || !cross.ok()) return 1;
                    const double selfErr = (self.ms - measured) / measured, crossErr = (cross.ms - measured) / measured;
                    const double blindErr = (fifoMs - measured) / measured;
                    PolicyRounds& outcome = tally.cells[QString("%1 %2").arg(name).arg(gbps)][policy];
                    outcome.measured.push_back(measured);
                    outcome.fromFifo.push_back(cross.ms);
                    const RunFigures& own = figures[policy];
                    outcome.split.push_back(
                        {fifoSelf.forwardAlone > 0 ? self.forwardAlone / fifoSelf.forwardAlone - 1 : 0,
                         cross.computeAlone > 0 ? self.computeAlone / cross.computeAlone - 1 : 0,
                         self.exposed - cross.exposed, own.preemptions, fifoPreemptions, own.streamingShare,
                         figures["fifo"].streamingShare});
                    if (own.warmupPrediction > 0)
                        tally.warmup.push_back(std::abs(own.warmupPrediction - measured) / measured);
                    if (own.warmupPrediction > 0 && own.warmupHigh > 0) {
                        tally.warmupWidths.push_back((own.warmupHigh - own.warmupLow) / own.warmupPrediction);
                        tally.warmupInBand += own.warmupLow <= measured && measured <= own.warmupHigh ? 1 : 0;
                    }
                    tally.self.push_back(std::abs(selfErr));
                    tally.band(self, measured);
                    if (policy != "fifo") {
                        // The same prediction told how much faster the target's capture computed than the fifo run's,
                        // by one figure of each run: the error left once that speed is set aside.
                        const auto atSpeed = [&](double fifoFigure, double targetFigure, std::vector<double>& into) {
                            if (fifoFigure <= 0 || targetFigure <= 0) return;
                            const QString speed = QString::number(fifoFigure / targetFigure, 'g', 9);
                            const Prediction told = predict(fifoProject, policy, {"--compute-speed", speed});
                            if (told.ok()) into.push_back(std::abs(told.ms - measured) / measured);
                        };
                        atSpeed(fifoSelf.computeAlone, self.computeAlone, tally.crossAtItsSpeed);
                        atSpeed(fifoSelf.forwardAlone, self.forwardAlone, tally.crossAtMachineSpeed);
                        tally.band(cross, measured);
                    }
                    std::printf("%-16s %5.1f %5d %14s %9.3f %9.3f %6.1f%% %8.3f..%-8.3f %9.3f %6.1f%% %8.3f..%-8.3f %6.1f%%\n",
                                qPrintable(name), gbps, round, qPrintable(policy), measured, self.ms, 100 * selfErr,
                                self.low, self.high, cross.ms, 100 * crossErr, cross.low, cross.high, 100 * blindErr);
                }
            }
        }
    }

    // Plan order with 2 channels (two units in flight), full mode only: each run replayed as itself, and predicted
    // from a one-channel fifo run of the same link with --channels 2. Reported, not part of the goals above.
    const QString wide = PACER_SAMPLES_DIR "/experiments/mlp-wide-2rank.json";
    if (!quick && experiments.contains(wide)) {  // its fifo runs of the grid are the sources
        std::vector<double> channelSelf, channelCross;
        std::printf("%8s %14s %12s %12s %9s %12s %9s   (plan order, 2 channels, mlp-wide-2rank)\n", "link", "policy",
                    "measured", "self", "error", "from fifo", "error");
        for (double gbps : {2.5, 10.0}) {
            const QString fifoProject = dir.filePath(QString("mlp-wide-2rank-%1-1-fifo.pacer").arg(gbps));
            for (const QString& policy : {QString("fifo"), QString("ddp"), QString("pace")}) {
                const QString project = dir.filePath(QString("ch2-%1-%2.pacer").arg(policy).arg(gbps));
                const double measured =
                    capture(wide, project, policy, gbps, iterations, {"--order", "plan", "--channels", "2"});
                if (measured <= 0) return 1;
                const Prediction self = predict(project, policy);
                const Prediction cross = predict(fifoProject, policy, {"--channels", "2"});
                const double selfErr = (self.ms - measured) / measured, crossErr = (cross.ms - measured) / measured;
                channelSelf.push_back(std::abs(selfErr));
                channelCross.push_back(std::abs(crossErr));
                std::printf("%8.1f %14s %12.3f %12.3f %8.1f%% %12.3f %8.1f%%\n", gbps, qPrintable(policy), measured,
                            self.ms, 100 * selfErr, cross.ms, 100 * crossErr);
            }
        }
        std::printf("2 channels: self median %.1f%%, worst %.1f%%; from the 1-channel fifo run median %.1f%%, worst "
                    "%.1f%% over %zu runs\n", 100 * median(channelSelf), 100 * worst(channelSelf),
                    100 * median(channelCross), 100 * worst(channelCross), channelSelf.size());
    }

    std::printf("self-replay error: median %.1f%%, worst %.1f%% over %zu runs\n", 100 * median(tally.self),
                100 * worst(tally.self), tally.self.size());
    const std::vector<double> cross = tally.crossErrors();
    const std::vector<double> cell = tally.cellErrors();
    std::printf("cross-policy error (from fifo): median %.1f%%, worst %.1f%% over %zu runs%s\n", 100 * median(cross),
                100 * worst(cross), cross.size(), cell.empty() ? "" : " (reported; the goal is judged per cell below)");
    if (!tally.crossAtItsSpeed.empty())
        std::printf("  the same, told each target run's compute speed (its compute alone over the fifo run's, as "
                    "--compute-speed): median %.1f%%, worst %.1f%%; the difference is mostly the machine's speed "
                    "between two captures (a diagnostic, not a goal: it reads the run it predicts)\n",
                    100 * median(tally.crossAtItsSpeed), 100 * worst(tally.crossAtItsSpeed));
    if (!tally.crossAtMachineSpeed.empty())
        std::printf("  the same at the machine's speed as the two runs found it (their forward passes alone, "
                    "before and after the iterations): median %.1f%%, worst %.1f%% (a diagnostic: what is left once "
                    "the machine's drift between the captures is set aside; it reads nothing of the target's "
                    "schedule)\n",
                    100 * median(tally.crossAtMachineSpeed), 100 * worst(tally.crossAtMachineSpeed));
    if (!cell.empty())
        std::printf("  the same per cell, the median of its %d rounds' errors: median %.1f%%, worst %.1f%% over %zu "
                    "cells (the judged cross error: the model's, with the run-to-run noise averaged over)\n",
                    rounds, 100 * median(cell), 100 * worst(cell), cell.size());
    // The cells over the goal, round by round, with where each prediction and its target parted: the machine's
    // speed between the two captures (which no prediction knows), the compute, the exposed communication, and how
    // often each run's compute thread was preempted.
    tally.forEachJudgedCell([](const QString& cellName, const QString& policy, const PolicyRounds& r, double error) {
        if (error <= kWorstGoal) return;
        std::printf("  over %g%%: %s %s, %.1f%%; by round: error, the target's forward alone against fifo's, its "
                    "compute alone against the prediction's, its exposed communication less the prediction's, its "
                    "compute thread's preemptions per iteration against fifo's, its shared-memory chunks written "
                    "with streaming stores against fifo's\n",
                    100 * kWorstGoal, qPrintable(cellName), qPrintable(policy), 100 * error);
        for (std::size_t i = 0; i < r.measured.size(); ++i) {
            const Split& s = r.split[i];
            const auto share = [](double v) { return v < 0 ? QString("-") : QString::number(100 * v, 'f', 0) + "%"; };
            std::printf("    %+6.1f%%  machine %+5.1f%%  compute %+5.1f%%  exposed %+.3f ms  preempted %.1f/%.1f"
                        "  streaming %s/%s\n",
                        100 * r.error(i), 100 * s.machine, 100 * s.compute, s.exposedMs, s.preemptions,
                        s.fifoPreemptions, qPrintable(share(s.streaming)), qPrintable(share(s.fifoStreaming)));
        }
    });
    for (const auto& [source, from] : tally.fromOther) {
        std::vector<double> magnitudes;
        for (double e : from.errors) magnitudes.push_back(std::abs(e));
        const auto tooFast = std::count_if(from.errors.begin(), from.errors.end(), [](double e) { return e < 0; });
        std::printf("from the %s run to the other policies: median %.1f%%, worst %.1f%%, too fast in %td of %zu, "
                    "inside the band in %d (reported, not a goal)\n",
                    source == "pace" ? "self-tuned pace" : qPrintable(source), 100 * median(magnitudes),
                    100 * worst(magnitudes), tooFast, magnitudes.size(), from.inBand);
    }
    const auto [distinctCross, distinctBlind] = tally.distinctErrors();
    std::printf("policies >= 20%% apart (by the cell's medians): replay median %.1f%%, worst %.1f%%; policy-blind "
                "(fifo's own time) median %.1f%%, worst %.1f%% over %zu runs\n", 100 * median(distinctCross),
                100 * worst(distinctCross), 100 * median(distinctBlind), 100 * worst(distinctBlind),
                distinctCross.size());
    std::printf("band: measured inside in %d of %d predictions (%.0f%%), median width %.1f%% of the prediction\n",
                tally.inBand, tally.predictions, tally.predictions ? 100.0 * tally.inBand / tally.predictions : 0.0,
                100 * median(tally.widths));
    if (const std::vector<double> gaps = tally.repeatGaps(); !gaps.empty())
        std::printf("repeats: one policy's runs of a cell in different rounds differ by median %.1f%%, worst %.1f%% "
                    "over %zu pairs (a prediction from one run inherits that noise)\n",
                    100 * median(gaps), 100 * worst(gaps), gaps.size());
    if (!tally.warmup.empty())
        std::printf("self-tuned pace: the warm-up's prediction (shown by runs and the schedule editor) against the "
                    "run: median %.1f%%, worst %.1f%% over %zu runs; inside its band in %d of %zu (median width "
                    "%.1f%%) (reported, not a goal)\n", 100 * median(tally.warmup), 100 * worst(tally.warmup),
                    tally.warmup.size(), tally.warmupInBand, tally.warmupWidths.size(),
                    100 * median(tally.warmupWidths));
    std::printf("load average after: %s\n", qPrintable(loadAverage()));
    const std::vector<std::string> missed = judge(tally);
    for (const std::string& m : missed) std::printf("goal missed: %s\n", m.c_str());
    if (missed.empty()) std::printf("all goals met\n");
    return 0;
}
