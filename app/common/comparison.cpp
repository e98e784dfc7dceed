#include "app/common/comparison.h"

#include "app/common/policy_json.h"
#include "app/common/tuned_settings.h"
#include "app/common/units.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace pacer::app {

engine::Result<std::shared_ptr<const ReplayInput>> ProjectInputs::input(std::int64_t runId) {
    if (runId == 0 && m_latest > 0) runId = m_latest;
    if (auto it = m_inputs.find(runId); it != m_inputs.end()) return it->second;
    auto loaded = loadRunInput(m_project, runId);
    if (!loaded.ok()) return loaded.status();
    auto shared = std::make_shared<const ReplayInput>(std::move(loaded).value());
    if (runId == 0) m_latest = shared->runId;
    m_inputs[shared->runId] = shared;
    return shared;
}

namespace {

bool isRunId(const std::string& word) {
    return !word.empty() && word.size() < 12 && word.find_first_not_of("0123456789") == std::string::npos;
}

// "POLICY[:SIZE][@RUN]"; nullopt-like false when POLICY is not a policy name (the word may be a saved schedule).
engine::Result<bool> parseSchedule(const std::string& word, CompareItem* item) {
    const auto at = word.find('@');
    const std::string spec = word.substr(0, at);
    const auto colon = spec.find(':');
    const std::string name = spec.substr(0, colon);
    const auto names = engine::policyNames();
    if (std::find(names.begin(), names.end(), name) == names.end()) return false;
    item->kind = CompareItem::Kind::Schedule;
    item->config.name = name;
    item->config.segment_bytes = 0;  // the run's given settings unless a size is given
    if (colon != std::string::npos) {
        auto bytes = parseSize(spec.substr(colon + 1));
        if (!bytes || *bytes <= 0) return engine::Status::error("'" + word + "': the segment size is not a size");
        item->config.segment_bytes = static_cast<std::size_t>(*bytes);
    }
    if (at != std::string::npos) {
        const std::string run = word.substr(at + 1);
        if (!isRunId(run) || std::stoll(run) < 1) return engine::Status::error("'" + word + "': '" + run + "' is not a run id");
        item->runId = std::stoll(run);
    }
    return true;
}

}  // namespace

engine::Result<std::vector<CompareItem>> parseCompareItems(const std::vector<std::string>& words,
                                                           const std::string& project, std::int64_t defaultRun) {
    std::vector<CompareItem> items;
    std::optional<std::vector<profiler::SavedSchedule>> saved;  // read only when a word needs it
    std::int64_t lastRun = defaultRun;
    for (const std::string& word : words) {
        CompareItem item;
        item.label = word;
        if (isRunId(word)) {
            item.kind = CompareItem::Kind::Run;
            item.runId = std::stoll(word);
            if (item.runId < 1) return engine::Status::error("'" + word + "' is not a run id");
            lastRun = item.runId;
            items.push_back(std::move(item));
            continue;
        }
        auto schedule = parseSchedule(word, &item);
        if (!schedule.ok()) return schedule.status();
        if (!schedule.value()) {
            if (!saved) {
                auto list = profiler::listSchedules(project);
                if (!list.ok()) return engine::Status::error(list.status().message());
                saved = std::move(list).value();
            }
            auto it = std::find_if(saved->begin(), saved->end(), [&](const auto& s) { return s.name == word; });
            if (it == saved->end())
                return engine::Status::error("'" + word + "' is neither a run id, a policy (" + [] {
                    std::string all;
                    for (const auto& n : engine::policyNames()) all += (all.empty() ? "" : ", ") + n;
                    return all;
                }() + ") nor a schedule saved in " + project);
            auto fromSaved = itemFromSavedSchedule(*it, project);
            if (!fromSaved.ok()) return fromSaved.status();
            item = std::move(fromSaved).value();
        }
        if (item.runId == 0) item.runId = lastRun;
        items.push_back(std::move(item));
    }
    return items;
}

namespace {

// A schedule item from settings the project keeps as JSON; `what` names where they came from in an error.
engine::Result<CompareItem> scheduleItem(const std::string& label, std::int64_t runId, const std::string& settingsJson,
                                         const std::string& what) {
    CompareItem item;
    item.kind = CompareItem::Kind::Schedule;
    item.label = label;
    item.runId = runId;
    std::string error;
    const auto settings = nlohmann::json::parse(settingsJson, nullptr, false);
    if (!scheduleSettingsFromJson(settings, &item.config, &item.whatIf, &error))
        return engine::Status::error(what + " '" + label + "': " + error);
    return item;
}

}  // namespace

engine::Result<CompareItem> itemFromSavedSchedule(const profiler::SavedSchedule& saved, const std::string& project) {
    return scheduleItem(saved.name, saved.run_id, saved.settings_json, project + ": saved schedule");
}

profiler::ComparePin pinFromItem(const CompareItem& item) {
    profiler::ComparePin pin;
    pin.kind = item.kind == CompareItem::Kind::Run ? profiler::ComparePin::Kind::Run : profiler::ComparePin::Kind::Schedule;
    pin.label = item.label;
    pin.run_id = item.runId;
    if (item.kind == CompareItem::Kind::Schedule) pin.settings_json = scheduleSettingsToJson(item.config, item.whatIf).dump();
    return pin;
}

engine::Result<CompareItem> itemFromPin(const profiler::ComparePin& pin, const std::string& project) {
    if (pin.kind == profiler::ComparePin::Kind::Schedule)
        return scheduleItem(pin.label, pin.run_id, pin.settings_json, project + ": compare pin");
    CompareItem item;
    item.label = pin.label;
    item.runId = pin.run_id;
    return item;
}

namespace {

engine::PolicyConfig withName(engine::PolicyConfig config, const std::string& name) {
    config.name = name;
    return config;
}

}  // namespace

engine::Result<Comparison> compare(ProjectInputs& inputs, const std::vector<CompareItem>& items,
                                   const engine::SimOptions& options) {
    Comparison out;
    for (const CompareItem& item : items) {
        auto input = inputs.input(item.runId);
        if (!input.ok()) return input.status();
        CompareRow row;
        row.item = item;
        row.input = input.value();
        row.runId = row.input->runId;
        row.experimentName = row.input->experimentName;
        engine::PolicyConfig config = item.config;
        const bool selfTune = item.kind == CompareItem::Kind::Schedule && config.name == "pace" && config.segment_bytes == 0;
        if (item.kind == CompareItem::Kind::Run) {
            config = row.input->observedConfig;
            row.measuredIterMs = row.input->measuredIterMs;
            if (row.input->tuned) row.settings = describeSettings(*row.input->tuned);
        } else {
            // A policy named alone runs as a capture of it from the run's experiment would (givenConfig).
            if (config.segment_bytes == 0) config = withName(row.input->givenConfig, config.name);
            // "ddp" on an imported DDP run: with the buckets its trace showed (PolicyConfig::buckets).
            if (config.name == "ddp" && config.buckets.empty()) config.buckets = row.input->givenConfig.buckets;
        }
        const auto failed = [&](const std::string& why) {
            return engine::Status::error("'" + item.label + "' on run " + std::to_string(row.runId) + ": " + why);
        };
        if (selfTune) {  // plain `pace`: what the self-tuning pace would run on this run's measurements
            auto tuned = selfTunedPace(*row.input, config, item.whatIf, options);
            if (!tuned.ok()) return failed(tuned.message());
            row.config = tuned.value().settings.policy;
            row.settings = describeSettings(tuned.value().settings);
            row.predicted = std::move(tuned.value().result.sim);
            row.band = std::move(tuned.value().result.band);
        } else {
            auto result = replayInput(*row.input, config, item.whatIf, options);
            if (!result.ok()) return failed(result.message());
            row.config = config;
            row.predicted = std::move(result.value().sim);
            row.band = std::move(result.value().band);
        }

        auto group = std::find_if(out.groups.begin(), out.groups.end(),
                                  [&](const CompareGroup& g) { return g.key == row.input->experimentKey; });
        if (group == out.groups.end()) {
            out.groups.push_back({row.experimentName, row.input->experimentKey, {}});
            group = out.groups.end() - 1;
        }
        if (std::find(group->runs.begin(), group->runs.end(), row.runId) == group->runs.end())
            group->runs.push_back(row.runId);
        row.group = static_cast<int>(group - out.groups.begin());
        out.rows.push_back(std::move(row));
    }
    return out;
}

std::string describeSchedule(const engine::PolicyConfig& c) {
    const auto size = [](std::size_t b) { return formatSize(static_cast<std::int64_t>(b)); };
    if (c.name == "pace" || c.name == "manual") return c.name + " " + size(c.segment_bytes);
    if (c.name == "bytescheduler") return c.name + " " + size(c.segment_bytes) + " x" + std::to_string(c.credit);
    if (c.name == "ddp") return c.name + " " + size(c.bucket_bytes) + " buckets";
    if (c.name == "horovod") return c.name + " " + size(c.fusion_bytes) + " fusion";
    return c.name;
}

double iterationMs(const CompareRow& row) {
    return row.measuredIterMs > 0 ? row.measuredIterMs : row.predicted.figures.iter_ms;
}

std::optional<double> changeAgainst(const Comparison& c, std::size_t row, std::size_t baseline) {
    const CompareRow& a = c.rows.at(row);
    const CompareRow& b = c.rows.at(baseline);
    if (a.group != b.group) return std::nullopt;
    // Like with like: two measurements, else two predictions (a prediction against a measurement would fold
    // the replay's own error into the difference).
    const bool bothMeasured = a.measuredIterMs > 0 && b.measuredIterMs > 0;
    const double x = bothMeasured ? a.measuredIterMs : a.predicted.figures.iter_ms;
    const double y = bothMeasured ? b.measuredIterMs : b.predicted.figures.iter_ms;
    if (y <= 0) return std::nullopt;
    return x / y - 1.0;
}

std::optional<double> machineSlowerThanBaseline(const Comparison& c, std::size_t row, std::size_t baseline) {
    const CompareRow& a = c.rows.at(row);
    const CompareRow& b = c.rows.at(baseline);
    if (a.group != b.group || a.runId == b.runId || !a.input || !b.input) return std::nullopt;
    if (a.input->forwardAloneMs <= 0 || b.input->forwardAloneMs <= 0) return std::nullopt;
    return a.input->forwardAloneMs / b.input->forwardAloneMs - 1.0;
}

std::optional<std::string> machineSpeedNote(const Comparison& c, std::size_t row, std::size_t baseline) {
    const auto slower = machineSlowerThanBaseline(c, row, baseline);
    if (!slower || std::abs(*slower) <= kMachineSpeedNote) return std::nullopt;
    char text[256];
    std::snprintf(text, sizeof text,
                  "the machine computed %.0f%% %s during run %lld than during run %lld (the forward pass alone: %.3f "
                  "against %.3f ms): part of this difference is the machine's, not the schedules'",
                  std::abs(*slower) * 100, *slower > 0 ? "slower" : "faster", static_cast<long long>(c.rows[row].runId),
                  static_cast<long long>(c.rows[baseline].runId), c.rows[row].input->forwardAloneMs,
                  c.rows[baseline].input->forwardAloneMs);
    return std::string(text);
}

}  // namespace pacer::app
