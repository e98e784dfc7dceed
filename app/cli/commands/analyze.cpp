// pacer-cli analyze: HTA-style figures of a stored run (captured, imported or replayed), computed by
// profiler/analysis from the store a rank at a time (analyzeStored), the path the GUI takes for a large run, so
// that a run of any size is analysed in bounded memory and the GUI's analysis shows the same numbers.
#include "app/cli/commands/commands.h"

#include "profiler/analysis/trace_analysis.h"
#include "profiler/project.h"
#include "profiler/run_reader.h"

#include <cstdio>

namespace pacer::cli {

namespace {

double ms(std::int64_t ns) { return static_cast<double>(ns) / 1e6; }

nlohmann::json toJson(const profiler::analysis::RunAnalysis& a, std::int64_t runId) {
    nlohmann::json ranks = nlohmann::json::array();
    for (const auto& r : a.ranks)
        ranks.push_back({{"rank", r.rank}, {"span_ns", r.span_ns}, {"compute_ns", r.compute_ns},
                         {"exposed_comm_ns", r.exposed_comm_ns}, {"idle_ns", r.idle_ns}, {"comm_ns", r.comm_ns},
                         {"overlap_ns", r.overlap_ns}, {"overlap_percent", r.overlapPercent()},
                         {"last_starts", r.last_starts}, {"mean_lateness_ns", r.mean_lateness_ns}});
    nlohmann::json names = nlohmann::json::array();
    for (const auto& s : a.names)
        names.push_back({{"name", s.name}, {"communication", s.communication}, {"count", s.count}, {"total_ns", s.total_ns},
                         {"mean_ns", s.meanNs()}, {"min_ns", s.min_ns}, {"max_ns", s.max_ns}});
    nlohmann::json steps = nlohmann::json::array();
    for (const auto& s : a.critical_path.steps)
        steps.push_back({{"kind", profiler::eventKindName(s.kind)}, {"name", s.name}, {"start_ns", s.start}, {"end_ns", s.end}});
    return {{"run_id", runId},
            {"ranks", ranks},
            {"names", names},
            {"matched_collectives", a.matched_collectives},
            {"straggler_rank", a.straggler_rank},
            {"critical_path",
             {{"iteration", a.critical_path.iteration}, {"rank", a.critical_path.rank},
              {"length_ns", a.critical_path.length_ns}, {"compute_ns", a.critical_path.compute_ns},
              {"comm_ns", a.critical_path.comm_ns}, {"steps", steps}}}};
}

}  // namespace

int runAnalyze(const Args& args) {
    const std::string project = args.required("project");
    const std::int64_t runId = args.integer("run", 1, 1 << 30).value_or(0);
    const int iteration = args.integer("iteration", 0, 1 << 30).value_or(-1);
    if (auto st = profiler::checkProject(project); !st.ok()) throw usageError(st.message());
    auto reader = profiler::RunReader::open(project, runId);
    if (!reader.ok()) throw usageError(reader.status().message());
    auto analysis = profiler::analysis::analyzeStored(*reader.value(), iteration);
    if (!analysis.ok()) throw usageError(analysis.status().message());  // an unreadable project is bad input
    const auto& a = analysis.value();
    const std::int64_t shownRun = reader.value()->runId();
    if (iteration >= 0 && a.critical_path.iteration != iteration)
        throw usageError("run " + std::to_string(shownRun) + " has no iteration " + std::to_string(iteration));
    if (args.flag("json")) {
        printJson(toJson(a, shownRun));
        return 0;
    }
    std::printf("run %lld: time per rank (HTA temporal breakdown)\n", static_cast<long long>(shownRun));
    std::printf("%5s %11s %11s %14s %11s %9s %11s %13s\n", "rank", "span ms", "compute ms", "exposed comm", "idle ms",
                "overlap", "last start", "late mean us");
    for (const auto& r : a.ranks)
        std::printf("%5d %11.3f %11.3f %14.3f %11.3f %8.1f%% %11d %13.3f\n", r.rank, ms(r.span_ns), ms(r.compute_ns),
                    ms(r.exposed_comm_ns), ms(r.idle_ns), r.overlapPercent(), r.last_starts, r.mean_lateness_ns / 1e3);
    if (a.straggler_rank >= 0)
        std::printf("straggler: rank %d (starts collectives latest, %d collectives matched across ranks)\n",
                    a.straggler_rank, a.matched_collectives);
    std::printf("\n%-44s %5s %8s %11s %11s\n", "kernel / collective", "kind", "count", "total ms", "mean ms");
    for (const auto& s : a.names)
        std::printf("%-44.44s %5s %8lld %11.3f %11.4f\n", s.name.c_str(), s.communication ? "comm" : "comp",
                    static_cast<long long>(s.count), ms(s.total_ns), s.meanNs() / 1e6);
    const auto& cp = a.critical_path;
    if (cp.iteration >= 0) {
        std::printf("\ncritical path of iteration %d (rank %d): %.3f ms, compute %.3f ms, communication %.3f ms, %zu steps\n",
                    cp.iteration, cp.rank, ms(cp.length_ns), ms(cp.compute_ns), ms(cp.comm_ns), cp.steps.size());
        for (const auto& s : cp.steps)
            std::printf("  %10.3f ms  %-10s %-40.40s %9.3f ms\n", ms(s.start - cp.steps.front().start),
                        profiler::eventKindName(s.kind), s.name.c_str(), ms(s.end - s.start));
    }
    return 0;
}

}  // namespace pacer::cli
