// Benchmarks that measure whole runs drive the real programs: pacer-cli capture/replay as child processes.
#pragma once

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QStringList>

#include <cstdio>

namespace pacer::bench {

inline QJsonObject runCliJson(const QStringList& args) {
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("PACER_WORKER", PACER_WORKER_PATH);
    p.setProcessEnvironment(env);
    p.start(PACER_CLI_PATH, args);
    if (!p.waitForFinished(600000) || p.exitCode() != 0) {
        std::fprintf(stderr, "pacer-cli %s failed: %s\n", qPrintable(args.join(' ')), p.readAllStandardError().constData());
        return {};
    }
    return QJsonDocument::fromJson(p.readAllStandardOutput()).object();
}

inline bool quickMode(int argc, char** argv) {
    for (int i = 1; i < argc; ++i)
        if (QString(argv[i]) == "--quick") return true;
    return false;
}

}  // namespace pacer::bench
