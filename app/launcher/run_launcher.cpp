#include "app/launcher/run_launcher.h"

#include "app/common/experiment.h"
#include "app/common/launch_check.h"
#include "profiler/project.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QProcessEnvironment>
#include <QRandomGenerator>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <thread>

namespace pacer::app {
namespace {

// How long the other ranks may take to stop by themselves once one has failed, beyond the run's timeout.
constexpr int kGraceSeconds = 10;

std::optional<Experiment> resolveExperiment(const RunLauncher::Request& r, std::string* error) {
    auto experiment = loadExperiment(r.experimentPath.toStdString(), error);
    if (!experiment) return std::nullopt;
    ExperimentOverrides o;
    if (r.ranks > 0) o.ranks = r.ranks;
    if (!r.policy.isEmpty()) o.policy = r.policy.toStdString();
    if (r.segmentBytes > 0) o.segmentBytes = r.segmentBytes;
    if (r.iterations > 0) o.iterations = r.iterations;
    if (!r.backend.isEmpty()) o.backend = r.backend.toStdString();
    if (!r.order.isEmpty()) o.order = r.order.toStdString();
    if (r.channels > 0) o.channels = r.channels;
    if (!r.transport.isEmpty()) o.transport = r.transport.toStdString();
    if (!r.algorithm.isEmpty()) o.algorithm = r.algorithm.toStdString();
    if (!r.topology.isEmpty()) o.topology = r.topology.toStdString();
    if (r.linkGbps >= 0) o.linkGbps = r.linkGbps;
    if (r.linkLatencyUs >= 0) o.linkLatencyUs = r.linkLatencyUs;
    if (r.timeoutSeconds > 0) o.timeoutSeconds = r.timeoutSeconds;
    return resolveForLaunch(std::move(*experiment), o, error);
}

}  // namespace

RunLauncher::RunLauncher(QObject* parent) : QObject(parent) {
    graceTimer_.setSingleShot(true);
    connect(&graceTimer_, &QTimer::timeout, this, [this] { killAll(); });
    stallTimer_.setSingleShot(true);
    connect(&stallTimer_, &QTimer::timeout, this, [this] {
        if (firstFailure_.isEmpty()) {
            firstFailure_ = QStringLiteral("no worker made progress for %1 s; the run is stopped").arg(timeoutSeconds_ + kGraceSeconds);
            failureCode_ = 1;
        }
        killAll();
    });
}

RunLauncher::~RunLauncher() {
    if (merger_.joinable()) merger_.join();
    for (Worker& w : workers_) {
        if (w.process && w.process->state() != QProcess::NotRunning) {
            w.process->kill();
            w.process->waitForFinished(2000);
        }
    }
}

QString RunLauncher::workerPath() {
    const QString fromEnv = qEnvironmentVariable("PACER_WORKER");
    if (!fromEnv.isEmpty()) return fromEnv;
    const QDir here(QCoreApplication::applicationDirPath());
    for (const QString& candidate : {here.filePath("pacer-worker"), here.filePath("../worker/pacer-worker")}) {
        if (QFileInfo(candidate).isExecutable()) return QFileInfo(candidate).canonicalFilePath();
    }
    return QStringLiteral("pacer-worker");  // on PATH, as on a cluster node
}

void RunLauncher::fail(const QString& message, int exitCode) {
    running_ = false;
    // Queued, so that a caller who connects right after start() still hears it.
    QMetaObject::invokeMethod(this, [this, message, exitCode] { emit failed(message, exitCode); }, Qt::QueuedConnection);
}

void RunLauncher::start(const Request& request) {
    if (running_) {
        emit failed(QStringLiteral("a run is already in progress"), 2);
        return;
    }
    running_ = true;
    cancelled_ = false;
    firstFailure_.clear();
    failureCode_ = 0;
    workers_.clear();

    std::string error;
    auto experiment = resolveExperiment(request, &error);
    if (!experiment) return fail(QString::fromStdString(error), 2);
    if (request.projectPath.isEmpty()) return fail(QStringLiteral("no project file given"), 2);
    if (QFileInfo::exists(request.projectPath)) {
        auto st = profiler::checkProject(request.projectPath.toStdString());
        if (!st.ok()) return fail(QString::fromStdString(st.message()), 2);
    }

    projectPath_ = request.projectPath;
    ranks_ = experiment->ranks;
    iterations_ = experiment->iterations;
    timeoutSeconds_ = experiment->timeoutSeconds;
    runDir_ = request.runDir;
    removeRunDir_ = runDir_.isEmpty() && !request.keepRunDir;
    if (runDir_.isEmpty()) {
        runDir_ = request.projectPath + ".runs/" +
                  QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-hhmmss-zzz"));
    }
    if (!QDir().mkpath(runDir_ + "/rendezvous"))
        return fail(QStringLiteral("cannot create the run directory %1").arg(runDir_), 1);
    // The rendezvous store holds the ranks' listening addresses: nobody else may read or plant files there.
    QFile::setPermissions(runDir_ + "/rendezvous", QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    {
        std::ofstream out((runDir_ + "/experiment.json").toStdString());
        out << experiment->toJson().dump(2) << "\n";
        if (!out) return fail(QStringLiteral("cannot write %1/experiment.json").arg(runDir_), 1);
    }

    // Every rank file of this run carries this key; merge refuses rank files whose keys differ.
    const QString runKey = QFileInfo(runDir_).fileName() + "-" +
                           QString::number(QRandomGenerator::system()->generate64(), 16);
    const QString worker = workerPath();
    workers_.resize(static_cast<std::size_t>(ranks_));
    for (int r = 0; r < ranks_; ++r) {
        Worker& w = workers_[static_cast<std::size_t>(r)];
        w.rank = r;
        w.process = std::make_unique<QProcess>();
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("PACER_RANK", QString::number(r));
        env.insert("PACER_WORLD_SIZE", QString::number(ranks_));
        env.insert("PACER_LOCAL_RANK", QString::number(r));
        env.insert("PACER_LOCAL_WORLD_SIZE", QString::number(ranks_));  // every rank on this host
        env.insert("PACER_RENDEZVOUS", runDir_ + "/rendezvous");
        env.insert("PACER_RUN_KEY", runKey);
        // One BLAS thread per rank unless the experiment says otherwise: ranks must not fight over cores.
        env.insert("OPENBLAS_NUM_THREADS", QString::number(experiment->threadsPerRank));
        w.process->setProcessEnvironment(env);
        connect(w.process.get(), &QProcess::readyReadStandardOutput, this, [this, r] { readOutput(workers_[r]); });
        connect(w.process.get(), &QProcess::readyReadStandardError, this, [this, r] {
            Worker& wk = workers_[r];
            const QStringList lines = QString::fromUtf8(wk.process->readAllStandardError()).split('\n', Qt::SkipEmptyParts);
            if (!lines.isEmpty()) wk.lastError = lines.last().trimmed();
        });
        connect(w.process.get(), &QProcess::finished, this,
                [this, r](int code, QProcess::ExitStatus status) { onWorkerExit(workers_[r], code, status); });
        connect(w.process.get(), &QProcess::errorOccurred, this, [this, r, worker](QProcess::ProcessError e) {
            if (e != QProcess::FailedToStart) return;
            Worker& wk = workers_[r];
            wk.lastError = QStringLiteral("cannot start %1: %2").arg(worker, wk.process->errorString());
            onWorkerExit(wk, 127, QProcess::CrashExit);
        });
        w.process->start(worker, {"--run-dir", runDir_});
    }
    stallTimer_.start(static_cast<int>((timeoutSeconds_ + kGraceSeconds) * 1000));
}

void RunLauncher::readOutput(Worker& w) {
    w.pendingOut += w.process->readAllStandardOutput();
    stallTimer_.start(static_cast<int>((timeoutSeconds_ + kGraceSeconds) * 1000));
    qsizetype newline;
    while ((newline = w.pendingOut.indexOf('\n')) >= 0) {
        const QByteArray line = w.pendingOut.left(newline);
        w.pendingOut.remove(0, newline + 1);
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        const QString event = o.value("event").toString();
        if (event == "progress") {
            emit progress(w.rank, o.value("iteration").toInt(), o.value("total").toInt());
        } else if (event == "note") {
            emit message(QStringLiteral("rank %1: %2").arg(w.rank).arg(o.value("message").toString()));
        } else if (event == "done") {
            w.done = true;
            w.loss = o.value("loss").toDouble();
            w.paramHash = o.value("param_hash").toString();
        }
    }
}

void RunLauncher::onWorkerExit(Worker& w, int exitCode, QProcess::ExitStatus status) {
    if (w.exited) return;
    w.exited = true;
    w.exitCode = status == QProcess::CrashExit && exitCode == 0 ? 1 : exitCode;
    if (w.process->state() == QProcess::NotRunning) readOutput(w);
    if (w.exitCode != 0 && firstFailure_.isEmpty() && !cancelled_) {
        const QString why = status == QProcess::CrashExit ? QStringLiteral("was killed or crashed")
                                                          : QStringLiteral("exited with code %1").arg(exitCode);
        firstFailure_ = QStringLiteral("rank %1 %2").arg(w.rank).arg(why);
        if (!w.lastError.isEmpty()) firstFailure_ += ": " + w.lastError;
        failureCode_ = w.exitCode == 2 ? 2 : 1;
        graceTimer_.start(static_cast<int>((timeoutSeconds_ + kGraceSeconds) * 1000));
    }
    if (std::all_of(workers_.begin(), workers_.end(), [](const Worker& x) { return x.exited; })) allExited();
}

void RunLauncher::killAll() {
    for (Worker& w : workers_)
        if (w.process && w.process->state() != QProcess::NotRunning) w.process->kill();
}

void RunLauncher::cancel() {
    if (!running_) return;
    cancelled_ = true;
    if (firstFailure_.isEmpty()) {
        firstFailure_ = QStringLiteral("the run was cancelled");
        failureCode_ = 1;
    }
    killAll();
}

void RunLauncher::allExited() {
    graceTimer_.stop();
    stallTimer_.stop();
    mergeAndReport();
}

void RunLauncher::mergeAndReport() {
    std::vector<std::string> rankFiles;
    for (const Worker& w : workers_) {
        const QString path = QStringLiteral("%1/rank-%2.pacer").arg(runDir_).arg(w.rank);
        if (QFileInfo::exists(path)) rankFiles.push_back(path.toStdString());
    }
    // Merging a large run takes a while: off the caller's (the GUI's) thread; the result comes back queued.
    if (merger_.joinable()) merger_.join();
    merger_ = std::thread([this, rankFiles = std::move(rankFiles), project = projectPath_.toStdString()] {
        qint64 runId = 0;
        double iterMs = 0;
        QString mergeError;
        if (!rankFiles.empty()) {
            auto merged = profiler::mergeRankFiles(rankFiles, project);
            if (merged.ok()) runId = merged.value();
            else mergeError = QString::fromStdString(merged.status().message());
        }
        // The run's time as the project keeps it (the ranks' mean), so that `capture` and `runs` print one number.
        if (runId > 0) {
            auto summary = profiler::readRunSummary(project, runId);
            if (!summary.ok()) mergeError = QString::fromStdString(summary.status().message());
            else if (auto it = summary.value().metrics.find("iter_ms"); it != summary.value().metrics.end())
                iterMs = it->second;
            else mergeError = QStringLiteral("the merged run has no iter_ms");
        }
        QMetaObject::invokeMethod(this, [this, runId, iterMs, mergeError] { report(runId, iterMs, mergeError); },
                                  Qt::QueuedConnection);
    });
}

void RunLauncher::report(qint64 runId, double iterMs, const QString& mergeError) {
    if (merger_.joinable()) merger_.join();
    const bool ok = firstFailure_.isEmpty();
    running_ = false;
    if (!ok) {
        QString message = firstFailure_;
        for (const Worker& w : workers_)
            if (w.exitCode != 0 && !w.lastError.isEmpty() && !message.contains(w.lastError))
                message += QStringLiteral("; rank %1: %2").arg(w.rank).arg(w.lastError);
        if (runId > 0) message += QStringLiteral(" (the trace captured so far is kept as run %1)").arg(runId);
        emit failed(message, failureCode_);
        return;
    }
    if (runId == 0) {
        emit failed(QStringLiteral("the run finished but its trace could not be merged: %1").arg(mergeError), 1);
        return;
    }
    if (!mergeError.isEmpty()) {
        emit failed(
            QStringLiteral("run %1 was merged but its summary cannot be read: %2").arg(runId).arg(mergeError), 1);
        return;
    }
    bool paramsMatch = true;
    for (const Worker& w : workers_)
        paramsMatch = paramsMatch && w.done && w.paramHash == workers_.front().paramHash;
    // Everything worth keeping is in the project now; a failed run (above) keeps its directory for diagnosis.
    if (removeRunDir_) {
        QDir(runDir_).removeRecursively();
        QDir().rmdir(projectPath_ + ".runs");  // only when no other run directory is left in it
    }
    QJsonObject summary{{"run_id", runId},
                        {"project", projectPath_},
                        {"ranks", ranks_},
                        {"iterations", iterations_},
                        {"iter_ms", iterMs},
                        {"loss", workers_.front().loss},
                        {"param_hash", workers_.front().paramHash},
                        {"params_match", paramsMatch}};
    if (!removeRunDir_) summary["run_dir"] = runDir_;
    emit finished(runId, summary);
}

}  // namespace pacer::app
