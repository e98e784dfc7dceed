// pacer-cli import / export / merge / runs: moving traces in and out of project files.
#include "app/cli/commands/commands.h"
#include "app/common/compute_alone.h"
#include "app/common/project_files.h"
#include "app/common/slot_stores_summary.h"
#include "app/common/tuned_settings.h"
#include "profiler/export_chrome.h"
#include "profiler/export_perfetto.h"
#include "profiler/project.h"

#include <cstdio>
#include <filesystem>

namespace pacer::cli {
namespace {

void requireFiles(const std::vector<std::string>& files) {
    if (files.empty()) throw usageError("name at least one input file");
    for (const std::string& f : files)
        if (!std::filesystem::is_regular_file(f)) throw usageError(f + ": no such file");
}

void requireProject(const std::string& project) {
    if (!std::filesystem::exists(project)) throw usageError(project + ": no such file");
    if (auto st = profiler::checkProject(project); !st.ok()) throw usageError(st.message());
}

int reportRun(const Args& args, const char* verb, std::int64_t runId, const std::string& project) {
    if (args.flag("json")) printJson({{"run_id", runId}, {"project", project}});
    else std::printf("%s as run %lld in %s\n", verb, static_cast<long long>(runId), project.c_str());
    return 0;
}

}  // namespace

int runImport(const Args& args) {
    const std::string format = args.required("format");
    const std::string out = args.required("out");
    auto run = app::importTraces(format, args.positionals(), out);
    if (!run.ok()) throw usageError(run.status().message());
    return reportRun(args, "imported", run.value(), out);
}

int runExport(const Args& args) {
    const std::string format = args.required("format");
    if (format != "chrome" && format != "perfetto")
        throw usageError("--format must be chrome or perfetto, got '" + format + "'");
    const std::string project = args.required("project");
    requireProject(project);
    const auto run = args.integer("run", 1, 1 << 30);
    if (!run) throw usageError("option '--run' is required");
    const std::string out = args.required("out");
    const auto st = format == "chrome" ? profiler::exportChromeTrace(project, *run, out)
                                       : profiler::exportPerfettoTrace(project, *run, out);
    if (!st.ok()) throw usageError(st.message());
    std::printf("exported run %d of %s to %s\n", *run, project.c_str(), out.c_str());
    return 0;
}

int runMerge(const Args& args) {
    const std::string out = args.required("out");
    requireFiles(args.positionals());
    if (std::filesystem::exists(out)) requireProject(out);
    auto run = profiler::mergeRankFiles(args.positionals(), out);
    if (!run.ok()) throw usageError(run.status().message());
    return reportRun(args, "merged", run.value(), out);
}

int runRuns(const Args& args) {
    const std::string project = args.required("project");
    requireProject(project);
    auto check = [](const profiler::Status& st) {
        if (!st.ok()) throw usageError(st.message());
    };
    if (auto id = args.integer("rename", 1, 1 << 30)) check(profiler::renameRun(project, *id, args.required("label")));
    if (auto id = args.integer("delete", 1, 1 << 30)) check(profiler::deleteRun(project, *id));
    if (auto id = args.integer("annotate", 1, 1 << 30)) check(profiler::annotateRun(project, *id, args.required("note")));
    auto runs = profiler::listRuns(project);
    if (!runs.ok()) throw usageError(runs.status().message());
    if (args.flag("json")) {
        nlohmann::json list = nlohmann::json::array();
        for (const profiler::RunSummary& r : runs.value()) {
            nlohmann::json row{{"run_id", r.run_id}, {"label", r.label}, {"policy", r.policy}, {"backend", r.backend},
                               {"ranks", r.ranks}, {"iterations", r.iterations}, {"segment_bytes", r.segment_bytes},
                               {"metrics", r.metrics}};
            if (auto tuned = app::tuningFromMetrics(r.metrics, {})) row["settings"] = app::describeSettings(*tuned);
            list.push_back(row);
        }
        printJson({{"project", project}, {"runs", list}});
        return 0;
    }
    // Beside each run's time, the machine's speed it found (the forward pass alone): two runs of one experiment whose
    // figures differ were captured on a faster or slower machine, not only under another schedule.
    std::printf("%6s  %-28s %-14s %-8s %5s %6s %10s %14s\n", "run", "label", "policy", "backend", "ranks", "iters",
                "iter ms", "fwd alone ms");
    for (const profiler::RunSummary& r : runs.value()) {
        auto it = r.metrics.find("iter_ms");
        const double forwardAlone = app::aloneFigureMs(r.metrics, "forward_alone");
        char iteration[32] = "-", forward[32] = "-";  // to the microsecond, as `compare` prints times
        if (it != r.metrics.end()) std::snprintf(iteration, sizeof iteration, "%.3f", it->second);
        if (forwardAlone > 0) std::snprintf(forward, sizeof forward, "%.3f", forwardAlone);
        std::printf("%6lld  %-28s %-14s %-8s %5d %6d %10s %14s\n", static_cast<long long>(r.run_id), r.label.c_str(),
                    r.policy.c_str(), r.backend.c_str(), r.ranks, r.iterations, iteration, forward);
        if (auto tuned = app::tuningFromMetrics(r.metrics, {}))
            std::printf("%6s  tuned itself: %s, %s\n", "", app::describeSettings(*tuned).c_str(),
                        app::describeWarmupPrediction(*tuned).c_str());
        if (const std::string stores = app::describeSlotStores(r.metrics); !stores.empty())
            std::printf("%6s  %s\n", "", stores.c_str());
    }
    return 0;
}

}  // namespace pacer::cli
