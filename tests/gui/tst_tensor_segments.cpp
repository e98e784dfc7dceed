// A tensor's own segment size, set in the schedule editor's tensor list: replay cuts that tensor (and only it) at
// its size, undo takes it back, a saved schedule and the experiment of "Run this schedule" carry it, and the engine
// refuses a list that does not fit the tensors. Input: the zoo's BERT-base (199 tensors).
#include "app/common/policy_json.h"
#include "app/gui/models/schedule_editor_model.h"
#include "app/gui/models/tensor_priority_model.h"
#include "pacer/config.h"

#include <QAbstractItemModelTester>
#include <QTest>
#include <QUndoStack>

#include <map>

using namespace pacer;
using namespace pacer::gui;

namespace {

// All-reduce units per tensor in one steady iteration of the replay of the editor's settings, unit by unit (the
// editor's own lanes draw a run of segments as one entry).
std::map<int, int> unitsPerTensor(const ScheduleEditorModel& editor) {
    const ReplayOutcome o = computeReplay(*editor.input(), editor.settings(), 0, ReplayDetail::EveryUnit);
    std::map<int, int> n;
    for (const auto& e : o.replay->events)
        if (e.kind == profiler::EventKind::AllReduce && e.iteration == 1) ++n[e.tensor];
    return n;
}

bool waitIdle(ScheduleEditorModel& editor) {
    return QTest::qWaitFor([&] {
        return !editor.worker()->isBusy() && editor.latest() && editor.latest()->generation == editor.worker()->generation();
    }, 20000);
}

}  // namespace

class TestTensorSegments : public QObject {
    Q_OBJECT
private slots:
    void tensorListSetsAnOwnSegmentSize() {
        auto in = app::loadModelInput("bert_base", 0, {PACER_SOURCE_DIR "/samples/zoo"});
        QVERIFY2(in.ok(), in.message().c_str());
        const auto input = std::make_shared<const app::ReplayInput>(std::move(in).value());
        ScheduleEditorModel editor;
        TensorPriorityModel model(&editor);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        editor.setInput(input);
        editor.setPolicy("manual");
        editor.setSegmentBytes(16 << 20);
        QVERIFY(waitIdle(editor));
        const auto before = unitsPerTensor(editor);

        // The largest tensor, cut at 1 MiB instead of 16 MiB.
        int row = 0;
        std::size_t largest = 0;
        for (int r = 0; r < model.rowCount(); ++r) {
            const int id = editor.priorityOrder()[std::size_t(r)];
            if (input->workload.tensors[std::size_t(id)].bytes() > largest) {
                largest = input->workload.tensors[std::size_t(id)].bytes();
                row = r;
            }
        }
        const int tensor = editor.priorityOrder()[std::size_t(row)];
        QVERIFY(largest > (2u << 20));
        const QModelIndex cell = model.index(row, TensorPriorityModel::Segment);
        QVERIFY(model.flags(cell) & Qt::ItemIsEditable);
        QVERIFY(cell.data(Qt::EditRole).toString().isEmpty());  // the policy's until set
        QVERIFY(!model.setData(cell, "huge"));                  // not a size: refused, nothing pushed
        const int undoBefore = editor.undoStack()->count();
        QVERIFY(model.setData(cell, "1MiB"));
        QCOMPARE(editor.undoStack()->count(), undoBefore + 1);
        QCOMPARE(cell.data(Qt::EditRole).toString(), QString("1 MiB"));
        QCOMPARE(engine::segmentBytesOf(editor.settings().config, tensor), std::size_t(1) << 20);
        QVERIFY(waitIdle(editor));
        const auto after = unitsPerTensor(editor);
        QCOMPARE(after.at(tensor), int((largest + (1u << 20) - 1) >> 20));
        for (const auto& [t, n] : before)
            if (t != tensor) QCOMPARE(after.at(t), n);  // every other tensor as it was

        // It travels with the schedule: saved settings and the experiment of a real run.
        const auto json = app::scheduleSettingsToJson(editor.settings().config, editor.settings().whatIf);
        engine::PolicyConfig back;
        engine::WhatIf whatIf;
        std::string error;
        QVERIFY2(app::scheduleSettingsFromJson(json, &back, &whatIf, &error), error.c_str());
        QCOMPARE(back.tensor_segment_bytes, editor.settings().config.tensor_segment_bytes);
        nlohmann::json experiment;
        QVERIFY2(app::experimentWithSchedule({{"model", {{"layers", {8}}}}}, editor.settings().config, {}, &experiment, &error),
                 error.c_str());
        QCOMPARE(experiment["policy"]["tensor_segment_bytes"].size(), input->workload.tensors.size());

        editor.undoStack()->undo();
        QVERIFY(editor.settings().config.tensor_segment_bytes.empty());
        QVERIFY(waitIdle(editor));
        QVERIFY(unitsPerTensor(editor) == before);

        // The engine refuses a list that does not fit.
        engine::PolicyConfig wrong = editor.settings().config;
        wrong.tensor_segment_bytes = {4096};
        const engine::Status st = engine::validate(wrong, input->workload.tensors);
        QVERIFY(!st.ok());
        QVERIFY2(st.message().find("give one per tensor") != std::string::npos, st.message().c_str());
    }
};

QTEST_GUILESS_MAIN(TestTensorSegments)
#include "tst_tensor_segments.moc"
