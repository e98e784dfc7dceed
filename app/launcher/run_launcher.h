// Starts a local run: N pacer-worker processes on this machine, their progress, their failures, and the merge
// of their rank files into the project. Used by pacer-cli capture and by the GUI's Run action (QtCore only).
//
// Failure handling: when a worker exits non-zero, the others get the run's timeout plus a grace period to stop on
// their own (the engine notices the dead peer and names it); whoever is still running then is killed. The trace
// captured so far is merged all the same, and failed() says what happened and which run kept the partial trace.
#pragma once

#include <QJsonObject>
#include <QObject>
#include <QProcess>
#include <QString>
#include <QTimer>

#include <memory>
#include <thread>
#include <vector>

namespace pacer::app {

class RunLauncher : public QObject {
    Q_OBJECT
public:
    struct Request {
        QString experimentPath;
        QString projectPath;
        int ranks = 0;               // 0: the experiment's
        QString policy;              // empty: the experiment's
        qint64 segmentBytes = 0;     // 0: the experiment's
        int iterations = 0;          // 0: the experiment's
        QString backend;             // empty: the experiment's
        QString order;               // empty: the experiment's
        int channels = 0;            // 0: the experiment's
        QString transport;           // empty: the experiment's (auto | gloo | shm)
        QString algorithm;           // empty: the experiment's (native, ring, ..., auto)
        QString topology;            // empty: the experiment's (flat, ring, torus, torus:XxYxZ)
        double linkGbps = -1;        // < 0: the experiment's
        double linkLatencyUs = -1;   // < 0: the experiment's
        double timeoutSeconds = 0;   // 0: the experiment's
        QString runDir;              // empty: <project>.runs/<timestamp>
        // The run directory (rank files, rendezvous) holds about twice the run's size again: one the launcher
        // made itself is removed once the run is merged, unless this is set. A given runDir is never removed.
        bool keepRunDir = false;
    };

    explicit RunLauncher(QObject* parent = nullptr);
    ~RunLauncher() override;

    void start(const Request& request);
    void cancel();
    bool isRunning() const { return running_; }

    // Where pacer-worker is: $PACER_WORKER, else next to this program, else ../worker/ (the build tree).
    static QString workerPath();

signals:
    void progress(int rank, int iteration, int total);
    void message(QString text);                        // worker notes, for a log view
    void finished(qint64 runId, QJsonObject summary);  // run_id, ranks, iterations, iter_ms, params_match, ...
    void failed(QString message, int exitCode);        // exitCode 2: bad input or settings; 1: the run failed

private:
    struct Worker {
        int rank = 0;
        std::unique_ptr<QProcess> process;
        QByteArray pendingOut;
        QString lastError;
        bool exited = false;
        int exitCode = -1;
        bool done = false;
        double loss = 0;
        QString paramHash;
    };

    void fail(const QString& message, int exitCode);
    void readOutput(Worker& w);
    void onWorkerExit(Worker& w, int exitCode, QProcess::ExitStatus status);
    void killAll();
    void allExited();
    void mergeAndReport();                                  // starts the merge thread
    // Back on the launcher's thread; iterMs: the merged run's time as the project keeps it.
    void report(qint64 runId, double iterMs, const QString& mergeError);

    bool running_ = false;
    bool cancelled_ = false;
    QString runDir_;
    bool removeRunDir_ = false;  // made by start() and not asked to be kept
    QString projectPath_;
    int ranks_ = 0;
    int iterations_ = 0;
    double timeoutSeconds_ = 60;
    std::vector<Worker> workers_;
    QTimer graceTimer_;   // after a failure: how long the others may take to stop by themselves
    QTimer stallTimer_;   // no output at all for this long: the run is hung
    std::thread merger_;  // merges the rank files off the caller's thread
    QString firstFailure_;
    int failureCode_ = 0;
};

}  // namespace pacer::app
