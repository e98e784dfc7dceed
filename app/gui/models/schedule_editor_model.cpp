#include "app/gui/models/schedule_editor_model.h"

#include "app/common/units.h"
#include "app/common/policy_json.h"

#include <QUndoCommand>

#include <algorithm>
#include <numeric>

namespace pacer::gui {

namespace {

class SettingsCommand : public QUndoCommand {
public:
    SettingsCommand(ScheduleEditorModel* editor, ScheduleSettings before, ScheduleSettings after, const QString& what,
                    int dragSerial)
        : QUndoCommand(what), m_editor(editor), m_before(std::move(before)), m_after(std::move(after)),
          m_dragSerial(dragSerial) {}

    void redo() override { m_editor->applyNow(m_after); }
    void undo() override { m_editor->applyNow(m_before); }
    int id() const override { return m_dragSerial > 0 ? 1 : -1; }
    bool mergeWith(const QUndoCommand* other) override {
        const auto* next = static_cast<const SettingsCommand*>(other);
        if (next->m_dragSerial != m_dragSerial || next->text() != text()) return false;
        m_after = next->m_after;
        return true;
    }

private:
    ScheduleEditorModel* m_editor;
    ScheduleSettings m_before, m_after;
    int m_dragSerial;  // > 0: edits of one drag merge; 0: never
};

}  // namespace

ScheduleEditorModel::ScheduleEditorModel(QObject* parent) : QObject(parent) {
    connect(&m_worker, &ReplayWorker::replayed, this, [this](const ReplayOutcome& outcome) {
        if (!outcome.error.isEmpty()) {
            emit replayFailed(outcome.error);
            return;
        }
        m_latest = outcome;
        emit replayed(m_latest);
    });
}

void ScheduleEditorModel::setInput(std::shared_ptr<const app::ReplayInput> input) {
    m_undo.clear();
    m_latest = {};
    m_settings = {};
    if (input) m_settings.config = input->observedConfig;
    m_worker.setInput(std::move(input));
    applyNow(m_settings);
}

void ScheduleEditorModel::applyNow(const ScheduleSettings& settings) {
    m_settings = settings;
    emit settingsChanged();
    if (m_worker.input()) m_worker.request(m_settings);
}

void ScheduleEditorModel::edit(const ScheduleSettings& next, const QString& what, bool dragging) {
    if (sameSettings(next, m_settings)) return;
    m_undo.push(new SettingsCommand(this, m_settings, next, what, dragging ? m_dragSerial : 0));
}

void ScheduleEditorModel::setPolicy(const QString& name) {
    ScheduleSettings next = m_settings;
    next.config.name = name.toStdString();
    edit(next, tr("Policy %1").arg(name));
}

void ScheduleEditorModel::setSegmentBytes(std::size_t bytes, bool dragging) {
    ScheduleSettings next = m_settings;
    next.config.segment_bytes = std::clamp(bytes, kMinSegment, kMaxSegment);
    edit(next, tr("Segment size"), dragging);
}

void ScheduleEditorModel::setWhatIf(const engine::WhatIf& whatIf) {
    ScheduleSettings next = m_settings;
    next.whatIf = whatIf;
    edit(next, tr("What-if"));
}

std::vector<int> ScheduleEditorModel::priorityOrder() const {
    const std::size_t n = input() ? input()->workload.tensors.size() : 0;
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    const std::vector<int>& p = m_settings.config.priorities;
    if (p.size() == n)
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return p[static_cast<std::size_t>(a)] < p[static_cast<std::size_t>(b)]; });
    return order;
}

void ScheduleEditorModel::moveTensor(int from, int to) {
    std::vector<int> order = priorityOrder();
    const int n = static_cast<int>(order.size());
    if (from < 0 || from >= n || to < 0 || to >= n || from == to) return;
    const int tensor = order[static_cast<std::size_t>(from)];
    order.erase(order.begin() + from);
    order.insert(order.begin() + to, tensor);
    ScheduleSettings next = m_settings;
    next.config.name = "manual";
    next.config.priorities.assign(static_cast<std::size_t>(n), 0);
    for (int pos = 0; pos < n; ++pos) next.config.priorities[static_cast<std::size_t>(order[static_cast<std::size_t>(pos)])] = pos;
    const auto& tensors = input()->workload.tensors;
    edit(next, tr("Priority of %1").arg(QString::fromStdString(tensors[static_cast<std::size_t>(tensor)].name)));
}

void ScheduleEditorModel::setTensorSegment(int tensor, std::size_t bytes) {
    const std::size_t n = input() ? input()->workload.tensors.size() : 0;
    if (tensor < 0 || static_cast<std::size_t>(tensor) >= n) return;
    ScheduleSettings next = m_settings;
    std::vector<std::size_t>& sizes = next.config.tensor_segment_bytes;
    sizes.resize(n, 0);
    sizes[static_cast<std::size_t>(tensor)] = bytes > 0 ? std::clamp(bytes, kMinSegment, kMaxSegment) : 0;
    if (std::all_of(sizes.begin(), sizes.end(), [](std::size_t b) { return b == 0; })) sizes.clear();
    const auto& tensors = input()->workload.tensors;
    edit(next, tr("Segment of %1").arg(QString::fromStdString(tensors[static_cast<std::size_t>(tensor)].name)));
}

engine::Result<QString> ScheduleEditorModel::optimize() {
    if (!input()) return engine::Status::error("nothing to optimize: open a run or a profile first");
    const app::ReplayInput& in = *input();
    ScheduleSettings next = m_settings;
    const std::string& policy = next.config.name;
    QString line;
    if (policy == "pace" || policy == "manual" || policy == "bytescheduler") {
        auto points = engine::sweep(in.workload, in.cost, next.config, "segment_bytes", kMinSegment, kMaxSegment,
                                    next.whatIf);
        if (!points.ok()) return points.status();
        const engine::SweepPoint& best = points.value()[engine::bestSweepPoint(points.value())];
        next.config.segment_bytes = best.config.segment_bytes;
        line = tr("best segment %1 (%2 ms)")
                   .arg(QString::fromStdString(app::formatSize(static_cast<std::int64_t>(best.config.segment_bytes))))
                   .arg(best.figures.iter_ms, 0, 'f', 3);
    }
    if (policy == "pace") {
        auto fusion = engine::searchFusion(in.workload, in.cost, next.config, next.whatIf);
        if (!fusion.ok()) return fusion.status();
        next.config.fusion_groups = fusion.value().groups;
        line += tr(", fusion: %1 groups, %2 -> %3 ms")
                    .arg(fusion.value().groups.size())
                    .arg(fusion.value().before_ms, 0, 'f', 3)
                    .arg(fusion.value().after_ms, 0, 'f', 3);
    }
    if (line.isEmpty()) return engine::Status::error("policy " + policy + " has no segment size to optimize");
    edit(next, tr("Optimize"));
    return line;
}

engine::Result<std::int64_t> ScheduleEditorModel::save(const QString& project, const QString& name) const {
    profiler::SavedSchedule s;
    s.run_id = input() ? input()->runId : 0;
    s.name = name.trimmed().toStdString();
    s.policy = m_settings.config.name;
    s.segment_bytes = static_cast<std::int64_t>(m_settings.config.segment_bytes);
    s.settings_json = app::scheduleSettingsToJson(m_settings.config, m_settings.whatIf).dump();
    auto id = profiler::saveSchedule(project.toStdString(), s);
    if (!id.ok()) return engine::Status::error(id.status().message());
    return id.value();
}

engine::Status ScheduleEditorModel::load(const profiler::SavedSchedule& saved) {
    ScheduleSettings next;
    std::string error;
    const auto j = nlohmann::json::parse(saved.settings_json, nullptr, false);
    if (!app::scheduleSettingsFromJson(j, &next.config, &next.whatIf, &error))
        return engine::Status::error("schedule '" + saved.name + "': " + error);
    edit(next, tr("Load %1").arg(QString::fromStdString(saved.name)));
    return {};
}

}  // namespace pacer::gui
