#include "app/gui/models/compare_session.h"

#include "app/gui/models/compare_model.h"

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
    m_offered.clear();
    m_inputs = std::make_shared<app::ProjectInputs>(path.toStdString());
    m_jobs.dropPending();
    recompute();
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
    recompute();
}

void CompareSession::pinSchedule(app::CompareItem item) {
    item.kind = app::CompareItem::Kind::Schedule;
    m_items.push_back(std::move(item));
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
    recompute();
}

void CompareSession::clear() {
    m_items.clear();
    recompute();
}

void CompareSession::recompute() {
    if (!m_inputs) m_inputs = std::make_shared<app::ProjectInputs>(m_project.toStdString());
    // Everything the job reads is its own copy or shared and immutable; the inputs cache is touched by jobs only.
    m_jobs.request([inputs = m_inputs, offered = m_offered, items = m_items]() {
        CompareOutcome out;
        if (items.empty()) return out;
        for (const auto& input : offered) inputs->add(input);
        auto c = app::compare(*inputs, items);
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
