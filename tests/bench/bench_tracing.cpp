// What tracing costs the training it watches: the sample MLP on 2 ranks with the tracer on and off, runs
// interleaved (on, off, on, off, ...) so that drift on the machine hits both alike; medians compared.
// Goal: < 1% overhead.
#include "bench_cli.h"

#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <vector>

using namespace pacer::bench;

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

QString writeExperiment(const QTemporaryDir& dir, bool trace) {
    std::ifstream in(PACER_SAMPLES_DIR "/experiments/mlp-2rank.json");
    nlohmann::json j = nlohmann::json::parse(in);
    j["model"] = PACER_SAMPLES_DIR "/models/mlp.json";
    j["trace"] = trace;
    const QString path = dir.filePath(trace ? "traced.json" : "untraced.json");
    std::ofstream(path.toStdString()) << j.dump(2);
    return path;
}

}  // namespace

int main(int argc, char** argv) {
    const bool quick = quickMode(argc, argv);
    const int repeats = quick ? 1 : 5;
    const QString iterations = quick ? "6" : "60";
    QTemporaryDir dir;
    const QString traced = writeExperiment(dir, true), untraced = writeExperiment(dir, false);
    std::vector<double> on, off;
    for (int i = 0; i < repeats; ++i) {
        for (bool trace : {true, false}) {
            const QJsonObject r = runCliJson({"capture", "--experiment", trace ? traced : untraced, "--out",
                                              dir.filePath(QString("run-%1-%2.pacer").arg(i).arg(trace)), "--iterations",
                                              iterations, "--json"});
            const double ms = r["iter_ms"].toDouble();
            if (ms <= 0) return 1;
            (trace ? on : off).push_back(ms);
        }
    }
    const double a = median(on), b = median(off);
    std::printf("sample MLP, 2 ranks, %s iterations x %d runs each: traced %.3f ms/iter, untraced %.3f ms/iter, "
                "overhead %+.2f%%\n", qPrintable(iterations), repeats, a, b, 100 * (a - b) / b);
    return 0;
}
