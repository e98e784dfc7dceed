// pacer-cli replay / sweep / compare: predict schedules from a trace or a zoo profile with the same policy
// objects the engine runs, on a virtual clock.
#include "app/cli/commands/commands.h"
#include "app/cli/commands/replay_source.h"
#include "app/common/comparison.h"
#include "app/common/policy_json.h"
#include "app/common/trace_conversion.h"
#include "app/common/tuned_settings.h"
#include "app/common/units.h"
#include "profiler/project.h"
#include "profiler/trace_diff.h"

#include <cstdio>
#include <filesystem>
#include <optional>
#include <limits>

namespace pacer::cli {
namespace {

engine::ReplayResult replayOrThrow(const app::ReplayInput& s, const engine::PolicyConfig& config,
                                   const engine::WhatIf& whatIf, int iterations) {
    engine::SimOptions options;
    if (iterations > 0) options.iterations = iterations;
    auto r = app::replayInput(s, config, whatIf, options);
    if (!r.ok()) throw usageError(r.status().message());
    return std::move(r).value();
}

void printFigures(const char* label, const engine::SimFigures& f) {
    std::printf("%-24s %9.3f ms/iter  (compute %.3f, comm %.3f, exposed comm %.3f, overlap %.0f%%, lower bound %.3f",
                label, f.iter_ms, f.compute_ms, f.comm_ms, f.exposed_comm_ms, f.overlap * 100, f.lower_bound_ms);
    if (f.stall_ms > 0) std::printf(", the run's stalls %.3f", f.stall_ms);
    std::printf(")\n");
}

// The prediction and its band (when the source was a run) as JSON fields.
nlohmann::json predictionJson(const engine::SimFigures& figures, const engine::PredictionBand& band) {
    nlohmann::json j = figuresJson(figures);
    if (!band.iteration_ms.empty()) {
        j["predicted_low_ms"] = band.low_ms;
        j["predicted_high_ms"] = band.high_ms;
    }
    return j;
}

}  // namespace

int runReplay(const Args& args) {
    const app::ReplayInput source = loadReplaySource(args);
    engine::PolicyConfig config = policyFrom(args, startingSettings(args, source));
    const engine::WhatIf whatIf = whatIfFrom(args);
    const int iterations = args.integer("iterations", 2, 1000).value_or(0);

    nlohmann::json out;
    // `pace` with no segment size and no search asked for: what the self-tuning pace would run.
    const bool selfTune = config.name == "pace" && !args.has("segment-bytes") && !args.flag("fusion-search");
    std::optional<app::SelfTuned> tuned;
    if (selfTune) tuned = selfTunedPace(source, config, whatIf, iterations);
    if (args.flag("fusion-search")) {
        auto fusion = engine::searchFusion(source.workload, source.cost, config, whatIf);
        if (!fusion.ok()) throw usageError(fusion.status().message());
        config.fusion_groups = fusion.value().groups;
        out["fusion"] = {{"groups", fusion.value().groups},
                         {"before_ms", fusion.value().before_ms},
                         {"after_ms", fusion.value().after_ms}};
    }
    if (tuned) config = tuned->settings.policy;
    const engine::ReplayResult result = tuned ? tuned->result : replayOrThrow(source, config, whatIf, iterations);
    const int channels = tuned ? tuned->settings.channels
                               : (whatIf.channels > 0 ? whatIf.channels : source.workload.channels);
    if (tuned && tuned->settings.tuned)
        out["tuned"] = {{"order", tuned->settings.plan_order ? "plan" : "dynamic"},
                        {"channels", tuned->settings.channels},
                        {"segment_bytes", config.segment_bytes},
                        {"fusion_groups", config.fusion_groups}};

    if (auto saveTo = args.value("save-to")) {
        profiler::RunInfo info;
        info.label = "replay " + config.name + " of " + source.description;
        info.policy = config.name;
        info.segment_bytes = static_cast<std::int64_t>(config.segment_bytes);
        info.ranks = 1;
        info.iterations = iterations > 0 ? iterations : engine::SimOptions{}.iterations;
        info.backend = "replay";
        info.experiment_json = app::policyConfigToJson(config).dump();
        engine::Workload drawn = source.workload;  // as simulated: its channels are the comm tracks
        drawn.channels = channels;
        auto runId = profiler::writeRun(*saveTo, app::traceFromSimulation(result.sim, drawn, info), info);
        if (!runId.ok()) throw usageError(runId.status().message());
        out["saved_run_id"] = runId.value();
    }

    out.update(predictionJson(result.sim.figures, result.band));
    if (!source.iterations.empty()) {
        out["band_iterations"] = result.band.iteration_ms.size();
        out["band_iteration_ms"] = result.band.iteration_ms;
        out["set_aside_iterations"] = source.setAside;
    }
    out["source"] = source.description;
    if (source.forwardAloneMs > 0) out["forward_alone_ms"] = source.forwardAloneMs;  // the machine's speed then
    if (source.stepAloneMs > 0) out["step_alone_ms"] = source.stepAloneMs;  // a training step, nothing to reduce
    out["policy"] = app::policyConfigToJson(config);
    out["alpha_us"] = result.cost.alpha_ns / 1e3;
    out["bandwidth_gbps"] = result.cost.ns_per_byte > 0 ? 8.0 / result.cost.ns_per_byte : 0.0;
    // What the fit measured per message size, what a stand-alone agreement round costs (dynamic CPU order), the
    // comm thread's gap between back-to-back units and what a collective takes from compute: the figures a wrong
    // prediction is traced back to.
    nlohmann::json table = nlohmann::json::array();
    for (const auto& [bytes, ns] : result.cost.measured) table.push_back({{"bytes", bytes}, {"us", ns / 1e3}});
    out["cost_table"] = std::move(table);
    out["round_us"] = result.cost.first_unit_extra_ns / 1e3;
    out["unit_gap_us"] = result.cost.unit_gap_ns / 1e3;
    // The threads' wake-ups replay charges: the comm thread's from a gradient's news (or a timed wake) to its unit,
    // the compute thread's after a reduction it waited for (engine::Workload).
    out["dispatch_us"] = static_cast<double>(source.workload.dispatch_ns) / 1e3;
    // The layers whose wake-ups the run showed apart from that one (by layer name): what runs after their backward.
    nlohmann::json byLayer = nlohmann::json::object();
    const engine::Workload& w = source.workload;
    for (std::size_t l = 0; l < w.dispatch_by_layer_ns.size() && l < w.layers.size(); ++l)
        if (w.dispatch_by_layer_ns[l] >= 0)
            byLayer[w.layers[l].name] = static_cast<double>(w.dispatch_by_layer_ns[l]) / 1e3;
    out["dispatch_by_layer_us"] = std::move(byLayer);
    out["resume_us"] = static_cast<double>(source.workload.resume_ns) / 1e3;
    // The comm thread's delay after a collective that woke the compute thread (it took the core): engine::Workload.
    out["release_gap_us"] = static_cast<double>(source.workload.release_gap_ns) / 1e3;
    // What each collective takes from compute on busy CPU ranks (0 where it takes nothing): engine::CommCpu.
    out["comm_cpu_us"] = source.workload.comm_cpu.alpha_ns / 1e3;
    out["comm_cpu_ns_per_byte"] = source.workload.comm_cpu.ns_per_byte;
    out["comm_cpu_round_us"] = source.workload.comm_cpu.round_ns / 1e3;  // per stand-alone agreement round
    out["tick_late_us"] = source.workload.timer_wake_ns / 1e3;          // Horovod's tick: its round's lateness
    out["tick_anchor_lead_us"] = source.workload.tick_anchor_lead_ns / 1e3;  // and rank 0's lead at the cycle's start
    out["units_per_iteration"] = result.sim.order.size();
    // The run's own schedule in plan order follows the plan the run was given, read from its trace (app::ReplayInput).
    out["follows_recorded_plan"] = !result.config.plan.empty();
    out["channels"] = channels;
    if (source.measuredIterMs > 0) out["measured_iter_ms"] = source.measuredIterMs;
    // The run's own schedule on the job as it ran: the one replay whose error against measured_iter_ms means
    // something (another schedule's is the difference between the two).
    const bool own = source.runId > 0 && app::isOwnSchedule(source, config, whatIf);
    out["own_schedule"] = own;
    if (args.flag("json")) {
        printJson(out);
        return 0;
    }
    std::printf("replay of %s\n", source.description.c_str());
    printFigures((config.name + " " + app::formatSize(static_cast<std::int64_t>(config.segment_bytes))).c_str(),
                 result.sim.figures);
    if (!result.band.iteration_ms.empty())
        std::printf("band                      %9.3f .. %.3f ms/iter  (from %zu iterations of the run, %zu set aside as "
                    "outliers)\n", result.band.low_ms, result.band.high_ms, result.band.iteration_ms.size(),
                    source.setAside.size());
    if (source.measuredIterMs > 0 && own)
        std::printf("measured (as captured)    %9.3f ms/iter  (the run's own schedule: replay off by %+.1f%%)\n",
                    source.measuredIterMs, (result.sim.figures.iter_ms / source.measuredIterMs - 1) * 100);
    else if (source.measuredIterMs > 0)
        std::printf("measured (as captured)    %9.3f ms/iter  (under %s)\n", source.measuredIterMs,
                    source.observedConfig.name.c_str());
    if (tuned)
        std::printf("%s: %s\n", tuned->settings.tuned ? "self-tuned pace" : "pace as the run's experiment sets it",
                    app::describeSettings(tuned->settings).c_str());
    if (!result.config.plan.empty())
        std::printf("order: the plan the run followed (%zu units an iteration, read from its trace)\n",
                    result.config.plan.size());
    if (out.contains("fusion"))
        std::printf("fusion search: %zu groups, %.3f -> %.3f ms/iter\n", config.fusion_groups.size(),
                    out["fusion"]["before_ms"].get<double>(), out["fusion"]["after_ms"].get<double>());
    if (out.contains("saved_run_id")) std::printf("saved as run %lld\n", out["saved_run_id"].get<long long>());
    return 0;
}

int runSweep(const Args& args) {
    const app::ReplayInput source = loadReplaySource(args);
    std::string knob;
    std::int64_t lo = 0, hi = 0;
    for (const char* k : {"segment-bytes", "bucket-bytes", "credit", "ranks"}) {
        auto v = args.value(k);
        if (!v || v->find(':') == std::string::npos) continue;
        if (!knob.empty()) throw usageError("sweep one knob at a time");
        knob = k;
        if (knob == "credit" || knob == "ranks") {
            // A rank count beyond 2^20 is no data-parallel job the model is meant for.
            std::tie(lo, hi) = *args.integerRange(k, 1, knob == "ranks" ? 1 << 20 : std::numeric_limits<int>::max());
        } else {
            std::tie(lo, hi) = *args.sizeRange(k);
        }
    }
    if (knob.empty())
        throw usageError("give a range to sweep: --segment-bytes MIN:MAX, --bucket-bytes MIN:MAX, --credit MIN:MAX or "
                         "--ranks MIN:MAX");
    const engine::PolicyConfig base = policyFrom(args, startingSettings(args, source));
    std::string engineKnob = knob;
    std::replace(engineKnob.begin(), engineKnob.end(), '-', '_');
    const engine::WhatIf whatIf = whatIfFrom(args);
    auto points = engine::sweep(source.workload, source.cost, base, engineKnob, lo, hi, whatIf);
    if (!points.ok()) throw usageError(points.status().message());
    if (points.value().empty()) throw usageError("the sweep range holds no setting");
    std::size_t best = 0;
    for (std::size_t i = 0; i < points.value().size(); ++i)
        if (points.value()[i].figures.iter_ms < points.value()[best].figures.iter_ms) best = i;

    auto settingOf = [&](const engine::SweepPoint& p) -> std::int64_t {
        if (knob == "segment-bytes") return static_cast<std::int64_t>(p.config.segment_bytes);
        if (knob == "bucket-bytes") return static_cast<std::int64_t>(p.config.bucket_bytes);
        if (knob == "ranks") return p.ranks;
        return p.config.credit;
    };
    if (args.flag("json")) {
        nlohmann::json rows = nlohmann::json::array();
        for (const engine::SweepPoint& p : points.value()) {
            nlohmann::json row = figuresJson(p.figures);
            row[engineKnob] = settingOf(p);
            rows.push_back(row);
        }
        printJson({{"source", source.description},
                   {"policy", base.name},
                   {"knob", engineKnob},
                   {"points", rows},
                   {"algorithm", !whatIf.algorithm.empty() ? whatIf.algorithm
                                 : whatIf.topology.empty() ? "native" : "auto"},  // as applyWhatIf reads them
                   {"topology", whatIf.topology.empty() ? "flat" : whatIf.topology},
                   {"best", {{engineKnob, settingOf(points.value()[best])},
                             {"predicted_iter_ms", points.value()[best].figures.iter_ms}}}});
        return 0;
    }
    std::printf("sweep of %s over %s, policy %s\n", source.description.c_str(), knob.c_str(), base.name.c_str());
    for (std::size_t i = 0; i < points.value().size(); ++i) {
        const engine::SweepPoint& p = points.value()[i];
        const std::string setting = knob == "credit" || knob == "ranks" ? std::to_string(settingOf(p))
                                                                         : app::formatSize(settingOf(p));
        std::printf("%s %-12s %9.3f ms/iter  exposed comm %.3f ms\n", i == best ? "*" : " ", setting.c_str(),
                    p.figures.iter_ms, p.figures.exposed_comm_ms);
    }
    return 0;
}

int runCompare(const Args& args) {
    const std::string project = args.required("project");
    if (args.positionals().empty())
        throw usageError("name at least one run id, POLICY[:SEGMENT_BYTES][@RUN] or saved schedule to compare");
    if (auto st = profiler::checkProject(project); !st.ok()) throw usageError(st.message());
    const std::int64_t defaultRun = args.integer("run", 1, 1 << 30).value_or(0);
    auto items = app::parseCompareItems(args.positionals(), project, defaultRun);
    if (!items.ok()) throw usageError(items.message());
    app::ProjectInputs inputs(project);
    auto comparison = app::compare(inputs, items.value());
    if (!comparison.ok()) throw usageError(comparison.message());
    const app::Comparison& c = comparison.value();
    // Differences are against one item (the first unless --baseline N names another), within its experiment only.
    const auto baselineArg = args.integer("baseline", 1, 1 << 30);
    const std::size_t baseline = baselineArg ? static_cast<std::size_t>(*baselineArg) - 1 : 0;
    if (baseline >= c.rows.size())
        throw usageError("--baseline " + std::to_string(baseline + 1) + ": there are only " +
                         std::to_string(c.rows.size()) + " items");

    auto rowJson = [&](std::size_t i) {
        const app::CompareRow& row = c.rows[i];
        nlohmann::json j = predictionJson(row.predicted.figures, row.band);
        const bool isRun = row.item.kind == app::CompareItem::Kind::Run;
        j["item"] = row.item.label;
        j["kind"] = isRun ? "run" : "replay";
        j["policy"] = row.config.name;
        j["segment_bytes"] = row.config.segment_bytes;
        j[isRun ? "run" : "of_run"] = row.runId;
        j["experiment"] = row.experimentName;
        j["group"] = row.group;
        if (row.measuredIterMs > 0) j["measured_iter_ms"] = row.measuredIterMs;
        if (!row.settings.empty()) j["settings"] = row.settings;
        if (auto change = app::changeAgainst(c, i, baseline)) j["change_vs_baseline"] = *change;
        if (row.input && row.input->forwardAloneMs > 0) j["forward_alone_ms"] = row.input->forwardAloneMs;
        if (auto slower = app::machineSlowerThanBaseline(c, i, baseline)) j["machine_slower_than_baseline"] = *slower;
        return j;
    };
    if (args.flag("json")) {
        nlohmann::json rows = nlohmann::json::array(), groups = nlohmann::json::array();
        for (std::size_t i = 0; i < c.rows.size(); ++i) rows.push_back(rowJson(i));
        for (const app::CompareGroup& g : c.groups) groups.push_back({{"experiment", g.experimentName}, {"runs", g.runs}});
        printJson({{"project", project}, {"items", rows}, {"experiments", groups},
                   {"mixed_experiments", c.mixedExperiments()}, {"baseline", baseline + 1}});
        return 0;
    }
    // One table per experiment: times of runs that trained different things are not set side by side.
    for (std::size_t g = 0; g < c.groups.size(); ++g) {
        std::string runs;
        for (std::int64_t r : c.groups[g].runs) runs += (runs.empty() ? "" : ", ") + std::to_string(r);
        const std::string name = c.groups[g].experimentName.empty() ? "(no experiment recorded)" : c.groups[g].experimentName;
        std::printf("%sexperiment %s, run%s %s\n", g ? "\n" : "", name.c_str(), c.groups[g].runs.size() > 1 ? "s" : "",
                    runs.c_str());
        std::printf("%-20s %-16s %-22s %12s %19s %12s %12s %9s %9s  %s\n", "item", "kind", "policy", "predicted ms",
                    "band ms", "measured ms", "exposed ms", "overlap", "vs base", "settings");
        for (std::size_t i = 0; i < c.rows.size(); ++i) {
            const app::CompareRow& row = c.rows[i];
            if (row.group != static_cast<int>(g)) continue;
            const bool isRun = row.item.kind == app::CompareItem::Kind::Run;
            const std::string kind = (isRun ? "run " : "replay of run ") + std::to_string(row.runId);
            const std::string policy = app::describeSchedule(row.config);
            char measured[32] = "-";
            if (row.measuredIterMs > 0) std::snprintf(measured, sizeof measured, "%.3f", row.measuredIterMs);
            char band[64] = "-";
            if (!row.band.iteration_ms.empty())
                std::snprintf(band, sizeof band, "%.3f..%.3f", row.band.low_ms, row.band.high_ms);
            char change[32] = "-";
            if (i == baseline) std::snprintf(change, sizeof change, "base");
            else if (auto x = app::changeAgainst(c, i, baseline)) std::snprintf(change, sizeof change, "%+.1f%%", *x * 100);
            std::printf("%-20s %-16s %-22s %12.3f %19s %12s %12.3f %8.0f%% %9s  %s\n", row.item.label.c_str(), kind.c_str(),
                        policy.c_str(), row.predicted.figures.iter_ms, band, measured,
                        row.predicted.figures.exposed_comm_ms, row.predicted.figures.overlap * 100, change,
                        row.settings.c_str());
        }
        // A difference between two captures is the schedules' and the machine's: say where the machine moved.
        for (std::size_t i = 0; i < c.rows.size(); ++i)
            if (c.rows[i].group == static_cast<int>(g))
                if (const auto note = app::machineSpeedNote(c, i, baseline))
                    std::printf("note: %s (item '%s')\n", note->c_str(), c.rows[i].item.label.c_str());
    }
    if (c.mixedExperiments())
        std::printf("\nnote: the items come from %zu experiments that train different things; compare within a table\n",
                    c.groups.size());
    return 0;
}

int runDiff(const Args& args) {
    const std::string project = args.required("project");
    if (args.positionals().size() != 2) throw usageError("name two runs or schedules to diff, e.g. 'diff --project P 1 pace:1MiB'");
    if (!std::filesystem::exists(project)) throw usageError(project + ": no such file");
    if (auto st = profiler::checkProject(project); !st.ok()) throw usageError(st.message());
    const std::int64_t defaultRun = args.integer("run", 1, 1 << 30).value_or(0);
    auto items = app::parseCompareItems(args.positionals(), project, defaultRun);
    if (!items.ok()) throw usageError(items.message());
    app::ProjectInputs inputs(project);
    // A run as stored (an import that cannot be replayed still diffs by kernel), or a schedule as replayed on its
    // run (drawn as a replay is: one rank).
    auto traceOf = [&](const app::CompareItem& item) {
        if (item.kind == app::CompareItem::Kind::Run) {
            auto t = profiler::readRun(project, item.runId);
            if (!t.ok()) throw usageError(t.status().message());
            return std::move(t).value();
        }
        auto c = app::compare(inputs, {item});
        if (!c.ok()) throw usageError(c.message());
        const app::CompareRow& row = c.value().rows.front();
        profiler::RunInfo info;
        info.label = item.label;
        info.policy = row.config.name;
        return app::traceFromSimulation(row.predicted, row.input->workload, info);
    };
    const std::string a = args.positionals()[0], b = args.positionals()[1];
    const auto rows = profiler::diffRuns(traceOf(items.value()[0]), traceOf(items.value()[1]));
    if (args.flag("json")) {
        nlohmann::json list = nlohmann::json::array();
        for (const profiler::DiffRow& r : rows)
            list.push_back({{"key", r.key}, {"kind", r.kind}, {"in_a", r.inA}, {"in_b", r.inB},
                            {"count_a", r.a.count}, {"count_b", r.b.count},
                            {"start_a_us", r.a.start_ns / 1e3}, {"start_b_us", r.b.start_ns / 1e3},
                            {"duration_a_us", r.a.dur_ns / 1e3}, {"duration_b_us", r.b.dur_ns / 1e3},
                            {"start_change_us", (r.b.start_ns - r.a.start_ns) / 1e3},
                            {"duration_change_us", (r.b.dur_ns - r.a.dur_ns) / 1e3},
                            {"drift_us", r.drift_ns() / 1e3}});
        printJson({{"project", project}, {"a", a}, {"b", b}, {"rows", list}});
        return 0;
    }
    std::printf("diff of %s: %s -> %s (per iteration; start from the iteration's first event; largest drifts first)\n",
                project.c_str(), a.c_str(), b.c_str());
    std::printf("%-40s %-9s %13s %21s %21s\n", "unit", "kind", "count", "start us", "duration us");
    for (const profiler::DiffRow& r : rows) {
        auto cell = [](bool in, double x) {
            char text[32] = "-";
            if (in) std::snprintf(text, sizeof text, "%.1f", x);
            return std::string(text);
        };
        std::printf("%-40s %-9s %6s>%-6s %10s>%-10s %10s>%-10s\n", r.key.substr(0, 40).c_str(), r.kind.c_str(),
                    cell(r.inA, r.a.count).c_str(), cell(r.inB, r.b.count).c_str(),
                    cell(r.inA, r.a.start_ns / 1e3).c_str(), cell(r.inB, r.b.start_ns / 1e3).c_str(),
                    cell(r.inA, r.a.dur_ns / 1e3).c_str(), cell(r.inB, r.b.dur_ns / 1e3).c_str());
    }
    return 0;
}

}  // namespace pacer::cli
