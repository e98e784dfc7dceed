#include "app/gui/models/compare_session.h"

#include "app/gui/models/compare_model.h"

#include <algorithm>

namespace pacer::gui {

CompareSession::CompareSession(QObject* parent)
    : QObject(parent), m_jobs(this, [this](quint64 generation, const CompareOutcome& outcome) {
          m_latest = outcome;
          m_latest.generation = generation;
          emit computed(m_latest);
      }) {}

void CompareSession::setProject(const QString& path) {
    if (path == m_project) return;
    m_project = path;
    m_items.clear();
    m_baseline = 0;
    m_offered.clear();
    m_inputs = std::make_shared<app::ProjectInputs>(path.toStdString());
    m_jobs.dropPending();
    restorePins();
    recompute();
}

void CompareSession::restorePins() {
    m_persist = false;
    m_problem.clear();
    if (m_project.isEmpty()) return;
    const std::string project = m_project.toStdString();
    auto stored = profiler::readComparePins(project);
    if (!stored.ok()) {
        reportProblem(tr("Compare pins not restored (left in the file): %1").arg(QString::fromStdString(stored.message())));
        return;
    }
    std::vector<app::CompareItem> items;
    for (const profiler::ComparePin& pin : stored.value().pins) {
        auto item = app::itemFromPin(pin, project);
        if (!item.ok()) {
            reportProblem(tr("Compare pins not restored (left in the file): %1").arg(QString::fromStdString(item.message())));
            return;
        }
        items.push_back(std::move(item).value());
    }
    m_items = std::move(items);
    m_baseline = std::clamp(stored.value().baseline, 0, std::max(0, static_cast<int>(m_items.size()) - 1));
    m_persist = true;
    m_problem.clear();
}

void CompareSession::persistPins() {
    if (!m_persist) return;
    profiler::ComparePins pins;
    for (const app::CompareItem& item : m_items) pins.pins.push_back(app::pinFromItem(item));
    pins.baseline = m_baseline;
    if (const profiler::Status st = profiler::saveComparePins(m_project.toStdString(), pins); !st.ok())
        reportProblem(tr("Compare pins not saved: %1").arg(QString::fromStdString(st.message())));
    else
        m_problem.clear();
}

void CompareSession::reportProblem(const QString& message) {
    m_problem = message;
    emit pinsProblem(message);
}

void CompareSession::setBaseline(int row) {
    row = std::clamp(row, 0, std::max(0, static_cast<int>(m_items.size()) - 1));
    if (row == m_baseline) return;
    m_baseline = row;
    persistPins();
}

void CompareSession::offerInput(std::shared_ptr<const app::ReplayInput> input) {
    if (!input || input->runId <= 0) return;
    std::erase_if(m_offered, [&](const auto& known) { return known->runId == input->runId; });
    m_offered.push_back(std::move(input));
}

void CompareSession::pinRun(qint64 runId) {
    app::CompareItem item;
    item.kind = app::CompareItem::Kind::Run;
    item.runId = runId;
    item.label = std::to_string(runId);
    m_items.push_back(std::move(item));
    persistPins();
    recompute();
}

void CompareSession::pinSchedule(app::CompareItem item) {
    item.kind = app::CompareItem::Kind::Schedule;
    m_items.push_back(std::move(item));
    persistPins();
    recompute();
}

engine::Status CompareSession::pinSavedSchedule(const profiler::SavedSchedule& saved) {
    auto item = app::itemFromSavedSchedule(saved, m_project.toStdString());
    if (!item.ok()) return item.status();
    pinSchedule(std::move(item).value());
    return {};
}

void CompareSession::unpin(int row) {
    if (row < 0 || row >= static_cast<int>(m_items.size())) return;
    m_items.erase(m_items.begin() + row);
    // The baseline stays on its item; when that one goes, the first row is the baseline.
    if (row < m_baseline) --m_baseline;
    else if (row == m_baseline) m_baseline = 0;
    persistPins();
    recompute();
}

void CompareSession::clear() {
    m_items.clear();
    m_baseline = 0;
    persistPins();
    recompute();
}

void CompareSession::recompute() {
    if (!m_inputs) m_inputs = std::make_shared<app::ProjectInputs>(m_project.toStdString());
    // Everything the job reads is its own copy or shared and immutable; the inputs cache is touched by jobs only.
    m_jobs.request([inputs = m_inputs, offered = m_offered, items = m_items]() {
        CompareOutcome out;
        if (items.empty()) return out;
        for (const auto& input : offered) inputs->add(input);
        // Drawn as lanes and figures: runs of segments as one entry each (engine::SimOptions::segment_runs).
        engine::SimOptions options;
        options.segment_runs = true;
        auto c = app::compare(*inputs, items, options);
        if (!c.ok()) {
            out.error = QString::fromStdString(c.message());
            return out;
        }
        auto comparison = std::make_shared<const app::Comparison>(std::move(c).value());
        out.stack = buildTimelineIndex(stackedTrace(*comparison, &out.alignedAt));
        out.comparison = std::move(comparison);
        return out;
    });
}

}  // namespace pacer::gui
