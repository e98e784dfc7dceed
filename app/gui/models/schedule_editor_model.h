// The schedule editor's state without widgets: the settings being edited, their undo history, and the replay
// that follows every edit. The dock (schedule_editor_dock.cpp) only shows this and calls its setters; tests drive
// it directly.
//
// Every edit is a QUndoCommand on the stack; edits made while a slider is dragged merge into one command per
// drag, so one undo takes the whole drag back. Redo/undo set the settings and request a replay, so the figures
// and the replay lanes follow undo as they follow edits.
#pragma once

#include "app/gui/models/replay_worker.h"
#include "profiler/project.h"

#include <QObject>
#include <QUndoStack>

#include <memory>
#include <vector>

namespace pacer::gui {

class ScheduleEditorModel : public QObject {
    Q_OBJECT
public:
    static constexpr std::size_t kMinSegment = 4 << 10;    // the slider's range: 4 KiB ..
    static constexpr std::size_t kMaxSegment = 256 << 20;  // .. 256 MiB

    explicit ScheduleEditorModel(QObject* parent = nullptr);

    // A new input (a run read once, or a profile): the settings start as the run's own, the history is cleared.
    void setInput(std::shared_ptr<const app::ReplayInput> input);
    const app::ReplayInput* input() const { return m_worker.input(); }

    const ScheduleSettings& settings() const { return m_settings; }
    // Pushes an edit (undoable); a no-op edit pushes nothing. dragging: merge with the previous edit of this drag.
    void edit(const ScheduleSettings& next, const QString& what, bool dragging = false);
    void setPolicy(const QString& name);
    void setSegmentBytes(std::size_t bytes, bool dragging = false);
    void setWhatIf(const engine::WhatIf& whatIf);
    // Starts a new drag: later edits with dragging=true merge until the next beginDrag.
    void beginDrag() { ++m_dragSerial; }

    // Tensor ids, most urgent first (the manual policy's priorities, else the default: input side first).
    std::vector<int> priorityOrder() const;
    // Moves the tensor at position `from` of priorityOrder() to position `to`; switches to the manual policy.
    void moveTensor(int from, int to);
    // A tensor's own segment size (clamped to the slider's range); 0 = the policy's.
    void setTensorSegment(int tensor, std::size_t bytes);

    // Segment sweep 4 KiB..256 MiB for the policy's segment size, then (pace) the fusion search; applies the best
    // as one edit. Returns a line for the status bar, or an error.
    engine::Result<QString> optimize();

    // Saves the settings under a name (one INSERT, its own transaction), tied to the input's run.
    engine::Result<std::int64_t> save(const QString& project, const QString& name) const;
    // Loads a saved schedule into the editor (one undoable edit).
    engine::Status load(const profiler::SavedSchedule& saved);

    QUndoStack* undoStack() { return &m_undo; }
    ReplayWorker* worker() { return &m_worker; }
    const ReplayOutcome* latest() const { return m_latest.generation ? &m_latest : nullptr; }

    // Called by the undo commands.
    void applyNow(const ScheduleSettings& settings);
    int dragSerial() const { return m_dragSerial; }

signals:
    void settingsChanged();
    void replayed(const pacer::gui::ReplayOutcome& outcome);
    void replayFailed(const QString& message);

private:
    ReplayWorker m_worker;
    QUndoStack m_undo;
    ScheduleSettings m_settings;
    ReplayOutcome m_latest;
    int m_dragSerial = 0;
};

}  // namespace pacer::gui
