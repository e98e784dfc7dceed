// pacer-cli capture: runs an experiment on local worker processes and stores the run in a project.
#include "app/cli/commands/commands.h"
#include "app/launcher/run_launcher.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonDocument>

#include <cstdio>
#include <unistd.h>

namespace pacer::cli {

int runCapture(const Args& args) {
    app::RunLauncher::Request r;
    r.experimentPath = QString::fromStdString(args.required("experiment"));
    r.projectPath = QString::fromStdString(args.required("out"));
    if (!QFileInfo::exists(r.experimentPath)) throw usageError(args.required("experiment") + ": no such file");
    r.ranks = args.integer("ranks", 1, 64).value_or(0);
    r.policy = QString::fromStdString(args.value("policy").value_or(""));
    r.segmentBytes = args.size("segment-bytes").value_or(0);
    r.iterations = args.integer("iterations", 1, 1000000).value_or(0);
    if (auto b = args.value("backend")) {
        if (*b != "cpu" && *b != "gpu") throw usageError("--backend must be cpu or gpu, got '" + *b + "'");
        r.backend = QString::fromStdString(*b);
    }
    if (auto o = args.value("order")) {
        if (*o != "dynamic" && *o != "plan") throw usageError("--order must be dynamic or plan, got '" + *o + "'");
        r.order = QString::fromStdString(*o);
    }
    r.channels = args.integer("channels", 1, 16).value_or(0);
    if (auto t = args.value("transport")) {
        if (*t != "auto" && *t != "gloo" && *t != "shm")
            throw usageError("--transport must be auto, gloo or shm, got '" + *t + "'");
        r.transport = QString::fromStdString(*t);
    }
    if (auto a = args.value("algorithm")) r.algorithm = QString::fromStdString(*a);
    if (auto t = args.value("topology")) r.topology = QString::fromStdString(*t);
    r.linkGbps = args.number("link-gbps", 0, 10000).value_or(-1);
    r.linkLatencyUs = args.number("link-latency-us", 0, 1e6).value_or(-1);
    r.timeoutSeconds = args.number("timeout-s", 0.1, 86400).value_or(0);
    r.keepRunDir = args.flag("keep-run-dir");
    const bool json = args.flag("json");

    app::RunLauncher launcher;
    int exitCode = 0;
    // A live counter for a person at a terminal; logs and pipes get a line every few seconds instead.
    const bool live = !json && isatty(STDERR_FILENO);
    QElapsedTimer sinceLine;
    sinceLine.start();
    QObject::connect(&launcher, &app::RunLauncher::progress, [&, live](int rank, int iteration, int total) {
        if (rank != 0 || json) return;
        if (live) {
            std::fprintf(stderr, "\rrank 0: iteration %d/%d", iteration, total);
        } else if (sinceLine.elapsed() >= 2000) {
            std::fprintf(stderr, "rank 0: iteration %d/%d\n", iteration, total);
            sinceLine.restart();
        }
    });
    QObject::connect(&launcher, &app::RunLauncher::message, [](const QString& text) {
        std::fprintf(stderr, "%s\n", qPrintable(text));
    });
    QObject::connect(&launcher, &app::RunLauncher::finished, [&](qint64 runId, const QJsonObject& summary) {
        if (json) {
            std::printf("%s\n", QJsonDocument(summary).toJson(QJsonDocument::Indented).constData());
        } else {
            if (live) std::fprintf(stderr, "\n");
            std::printf("run %lld: %d ranks x %d iterations, %.3f ms/iteration, final loss %.4f, parameters %s\n",
                        static_cast<long long>(runId), summary["ranks"].toInt(), summary["iterations"].toInt(),
                        summary["iter_ms"].toDouble(), summary["loss"].toDouble(),
                        summary["params_match"].toBool() ? "identical on every rank" : "DIFFER between ranks");
        }
        exitCode = summary["params_match"].toBool() ? 0 : 1;
        QCoreApplication::exit(0);
    });
    QObject::connect(&launcher, &app::RunLauncher::failed, [&](const QString& message, int code) {
        if (live) std::fprintf(stderr, "\n");
        std::fprintf(stderr, "pacer-cli: error: %s\n", qPrintable(message));
        exitCode = code;
        QCoreApplication::exit(0);
    });
    launcher.start(r);
    QCoreApplication::exec();
    return exitCode;
}

}  // namespace pacer::cli
