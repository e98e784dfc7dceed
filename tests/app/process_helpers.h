// Running the real programs from tests: pacer-cli and pacer-worker as child processes, with a bounded wait.
#pragma once

#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <fstream>

namespace pacer::testing {

struct ProcessResult {
    int exitCode = -1;
    bool finished = false;
    QByteArray out;
    QByteArray err;

    QJsonObject json() const { return QJsonDocument::fromJson(out).object(); }
    QStringList errLines() const { return QString::fromUtf8(err).split('\n', Qt::SkipEmptyParts); }
};

inline ProcessResult runProgram(const QString& program, const QStringList& args, int timeoutMs = 120000,
                                const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment()) {
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(program, args);
    ProcessResult r;
    if (!p.waitForStarted(10000)) return r;
    r.finished = p.waitForFinished(timeoutMs);
    if (!r.finished) {
        p.kill();
        p.waitForFinished(5000);
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

inline ProcessResult runCli(const QStringList& args, int timeoutMs = 180000) {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("PACER_WORKER", PACER_WORKER_PATH);
    return runProgram(PACER_CLI_PATH, args, timeoutMs, env);
}

inline QString samplePath(const QString& relative) { return QStringLiteral(PACER_SAMPLES_DIR "/") + relative; }

// Writes an experiment based on the sample MLP with `changes` merged on top; returns its path.
inline QString writeExperiment(const QTemporaryDir& dir, const QString& name, const nlohmann::json& changes) {
    std::ifstream in(samplePath("experiments/mlp-2rank.json").toStdString());
    nlohmann::json j = nlohmann::json::parse(in);
    j["model"] = nlohmann::json::parse(std::ifstream(samplePath("models/mlp.json").toStdString()));
    j.merge_patch(changes);
    const QString path = dir.filePath(name);
    std::ofstream(path.toStdString()) << j.dump(2);
    return path;
}

}  // namespace pacer::testing
