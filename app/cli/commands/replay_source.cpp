#include "app/cli/commands/replay_source.h"

#include "app/cli/commands/commands.h"
#include "app/common/priorities_file.h"
#include "engine/replay/zoo.h"
#include "pacer/config.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <iterator>

namespace pacer::cli {

app::ReplayInput loadRunSource(const std::string& project, std::int64_t runId) {
    auto input = app::loadRunInput(project, runId);
    if (!input.ok()) throw usageError(input.message());
    return std::move(input).value();
}

app::ReplayInput loadReplaySource(const Args& args) {
    const auto project = args.value("project");
    const auto model = args.value("model");
    if (project.has_value() == model.has_value()) throw usageError("give exactly one of --project or --model");
    if (project) {
        const std::int64_t run = args.integer("run", 1, 1 << 30).value_or(0);
        return loadRunSource(*project, run);
    }
    if (args.has("run")) throw usageError("--run goes with --project");
    const double tflops = args.number("device-tflops", 0.001, 1e6).value_or(0);
    auto input = app::loadModelInput(*model, tflops, zooDirs());
    if (!input.ok()) throw usageError(input.message());
    return std::move(input).value();
}

engine::WhatIf whatIfFrom(const Args& args) {
    engine::WhatIf w;
    // A range (sweep --ranks 8:4096) is the sweep's knob, not one what-if value.
    if (auto r = args.value("ranks"); !r || r->find(':') == std::string::npos) w.ranks = args.integer("ranks", 1, 4096).value_or(0);
    if (auto a = args.value("algorithm")) w.algorithm = *a;
    if (auto t = args.value("topology")) w.topology = *t;
    w.link_gbps = args.number("link-gbps", 0.001, 100000).value_or(0);
    w.link_latency_us = args.number("link-latency-us", 0, 1e6).value_or(-1);
    w.compute_speed = args.number("compute-speed", 0.001, 1000).value_or(1.0);
    w.channels = args.integer("channels", 1, 16).value_or(0);
    return w;
}

engine::PolicyConfig policyFrom(const Args& args, engine::PolicyConfig base) {
    if (auto p = args.value("policy")) base.name = *p;
    if (auto s = args.value("segment-bytes"); s && s->find(':') == std::string::npos)
        base.segment_bytes = static_cast<std::size_t>(*args.size("segment-bytes"));
    if (auto s = args.value("bucket-bytes"); s && s->find(':') == std::string::npos)
        base.bucket_bytes = static_cast<std::size_t>(*args.size("bucket-bytes"));
    if (auto c = args.value("credit"); c && c->find(':') == std::string::npos)
        base.credit = *args.integer("credit", -1000000, 1000000);
    if (auto file = args.value("priorities")) {
        std::ifstream in(*file, std::ios::binary);
        if (!in) throw usageError(*file + ": cannot be read");
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::string error;
        auto priorities = app::parsePriorities(text, &error);
        if (!priorities) throw usageError(*file + ": " + error);
        base.priorities = std::move(*priorities);
        if (!args.value("policy")) base.name = "manual";
    }
    return base;
}

engine::PolicyConfig startingSettings(const Args& args, const app::ReplayInput& source) {
    if (args.has("policy") || args.has("priorities")) return source.givenConfig;
    if (source.runId == 0)
        throw usageError("option '--policy' is required with --model (a run is replayed as it ran without one)");
    return source.observedConfig;
}

app::SelfTuned selfTunedPace(const app::ReplayInput& input, const engine::PolicyConfig& config,
                             const engine::WhatIf& whatIf, int iterations) {
    engine::SimOptions options;
    if (iterations > 0) options.iterations = iterations;
    auto tuned = app::selfTunedPace(input, config, whatIf, options);
    if (!tuned.ok()) throw usageError(tuned.message());
    return std::move(tuned).value();
}

std::vector<std::string> zooDirs() {
    std::vector<std::string> dirs = engine::defaultZooDirs();
    dirs.push_back(PACER_SOURCE_DIR "/samples/zoo");
    return dirs;
}

nlohmann::json figuresJson(const engine::SimFigures& f) {
    return {{"predicted_iter_ms", f.iter_ms}, {"lower_bound_ms", f.lower_bound_ms}, {"compute_ms", f.compute_ms},
            {"comm_ms", f.comm_ms},           {"exposed_comm_ms", f.exposed_comm_ms}, {"overlap", f.overlap},
            {"idle_ms", f.idle_ms},           {"stall_ms", f.stall_ms},
            {"compute_alone_ms", f.compute_alone_ms}};
}

}  // namespace pacer::cli
