// The compare view's models without widgets: the session computes the comparison `pacer-cli compare` computes
// (newest wins), the table shows its figures and the change against the chosen baseline, the stacked trace
// aligns every row at the start of its first steady iteration, and the segment sweep holds engine::sweep's
// figures. Every model passes QAbstractItemModelTester.
#include "app/gui/models/compare_model.h"
#include "app/gui/models/compare_session.h"
#include "app/gui/models/sweep_model.h"
#include "tests/app/compare_fixture.h"

#include "profiler/schema.h"
#include "profiler/sqlite_db.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <map>

using namespace pacer;
using namespace pacer::gui;

namespace {

bool waitDone(CompareSession& session) {
    return QTest::qWaitFor([&] { return !session.isBusy() && session.latest().generation == session.generation(); },
                           30000);
}

}  // namespace

class TestCompareModels : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_project = m_dir.filePath("compare.pacer");
        const std::string error = testing::writeCompareProject(
            m_project.toStdString(), {testing::compareExperiment("small", 8), testing::compareExperiment("small", 8)});
        QVERIFY2(error.empty(), error.c_str());
    }

    void sessionComputesTheCliComparison() {
        CompareSession session;
        session.setProject(m_project);
        session.pinRun(1);
        session.pinRun(2);
        auto saved = profiler::listSchedules(m_project.toStdString());
        QVERIFY(saved.ok() && saved.value().size() == 1);
        QVERIFY(session.pinSavedSchedule(saved.value()[0]).ok());
        QVERIFY(waitDone(session));
        QVERIFY2(session.latest().error.isEmpty(), qPrintable(session.latest().error));
        const app::Comparison& got = *session.latest().comparison;

        // The same words through the CLI's path.
        auto items = app::parseCompareItems({"1", "2", "fine"}, m_project.toStdString(), 0);
        QVERIFY(items.ok());
        app::ProjectInputs inputs(m_project.toStdString());
        auto want = app::compare(inputs, items.value());
        QVERIFY(want.ok());
        QCOMPARE(got.rows.size(), std::size_t(3));
        for (std::size_t i = 0; i < 3; ++i) {
            QCOMPARE(got.rows[i].runId, want.value().rows[i].runId);
            QCOMPARE(got.rows[i].predicted.figures.iter_ms, want.value().rows[i].predicted.figures.iter_ms);
        }
        QCOMPARE(got.rows[2].runId, std::int64_t(2));  // a saved schedule replays on its own run
        QCOMPARE(got.rows[2].config.segment_bytes, std::size_t(4096));

        CompareModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setComparison(session.latest().comparison);
        QCOMPARE(model.rowCount(), 3);
        for (int baseline = 0; baseline < 3; ++baseline) {
            model.setBaseline(baseline);
            for (int r = 0; r < 3; ++r) {
                const QVariant change = model.index(r, CompareModel::Change).data(CompareModel::ValueRole);
                const auto expected = app::changeAgainst(got, std::size_t(r), std::size_t(baseline));
                QVERIFY(expected.has_value());
                QCOMPARE(change.toDouble(), *expected);
                QCOMPARE(model.index(r, CompareModel::IterationMs).data(CompareModel::ValueRole).toDouble(),
                         app::iterationMs(got.rows[std::size_t(r)]));
            }
            QCOMPARE(model.index(baseline, CompareModel::Change).data().toString(), QString("baseline"));
        }
        // The split adds up to the iteration, as the bar chart stacks it.
        for (int r = 0; r < 3; ++r) {
            auto v = [&](int c) { return model.index(r, c).data(CompareModel::ValueRole).toDouble(); };
            QVERIFY(std::abs(v(CompareModel::ComputeMs) + v(CompareModel::ExposedMs) + v(CompareModel::IdleMs) -
                             v(CompareModel::PredictedMs)) < 1e-6 * v(CompareModel::PredictedMs) + 1e-9);
        }
        session.unpin(0);
        QVERIFY(waitDone(session));
        model.setComparison(session.latest().comparison);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.baseline(), 1);  // clamped to the rows there are
    }

    // Two runs of one experiment that found the machine at speeds 20% apart (their forward passes alone): the change
    // of one against the other is marked and its tooltip says how much is the machine's, whichever is the baseline;
    // a replay on the baseline's own run is not marked.
    void aChangeAcrossTheMachinesSpeedsIsMarked() {
        const QString project = m_dir.filePath("machine-speed.pacer");
        const std::string error = testing::writeTwoSpeedsProject(project.toStdString(), 2.0, 2.4);
        QVERIFY2(error.empty(), error.c_str());
        CompareSession session;
        session.setProject(project);
        session.pinRun(1);
        session.pinRun(2);
        auto replayOnRun1 = app::parseCompareItems({"ddp@1"}, project.toStdString(), 0);
        QVERIFY(replayOnRun1.ok());
        session.pinSchedule(replayOnRun1.value()[0]);
        QVERIFY(waitDone(session));
        QVERIFY2(session.latest().error.isEmpty(), qPrintable(session.latest().error));
        CompareModel model;
        model.setComparison(session.latest().comparison);
        QCOMPARE(model.rowCount(), 3);
        const auto change = [&](int r, int role) { return model.index(r, CompareModel::Change).data(role).toString(); };
        QVERIFY2(change(1, Qt::DisplayRole).endsWith(" *"), qPrintable(change(1, Qt::DisplayRole)));
        QVERIFY2(change(1, Qt::ToolTipRole).contains("20% slower during run 2 than during run 1"),
                 qPrintable(change(1, Qt::ToolTipRole)));
        QVERIFY2(!change(2, Qt::DisplayRole).endsWith(" *") && change(2, Qt::ToolTipRole).isEmpty(),
                 qPrintable(change(2, Qt::DisplayRole)));
        model.setBaseline(1);
        QVERIFY2(change(0, Qt::ToolTipRole).contains("17% faster during run 1 than during run 2"),
                 qPrintable(change(0, Qt::ToolTipRole)));
        QVERIFY(change(2, Qt::DisplayRole).endsWith(" *"));
    }

    void newestPinWins() {
        CompareSession session;
        session.setProject(m_project);
        session.clear();  // the pins the test above left in the project
        std::vector<quint64> delivered;
        connect(&session, &CompareSession::computed, this, [&](const CompareOutcome& o) { delivered.push_back(o.generation); });
        for (const char* policy : {"fifo", "ddp", "pace", "bytescheduler", "manual", "horovod"}) {
            app::CompareItem item;
            item.label = policy;
            item.runId = 1;
            item.config.name = policy;
            item.config.segment_bytes = 64 << 10;
            session.pinSchedule(item);
        }
        QVERIFY(waitDone(session));
        QVERIFY(!delivered.empty());
        QCOMPARE(delivered.back(), session.generation());
        QVERIFY(std::is_sorted(delivered.begin(), delivered.end()));
        QVERIFY2(delivered.size() < 7, "every superseded comparison was computed");
        QCOMPARE(session.latest().comparison->rows.size(), std::size_t(6));
        // Another project replaces the pins with its own (none: the file is not there).
        session.setProject(m_dir.filePath("other.pacer"));
        QVERIFY(session.items().empty());
    }

    // Pins and the baseline are kept in the project: a session that opens it again has them back, compares them,
    // and keeps following what the user does (an unpin before the baseline keeps the baseline on its item).
    void pinsAndBaselineComeBackWithTheProject() {
        const QString project = m_dir.filePath("pins.pacer");
        const std::string error = testing::writeCompareProject(
            project.toStdString(), {testing::compareExperiment("small", 8), testing::compareExperiment("small", 8)});
        QVERIFY2(error.empty(), error.c_str());
        app::CompareItem schedule;
        schedule.label = "pace:64KiB on 1 at 10 Gb/s";
        schedule.runId = 1;
        schedule.config.name = "pace";
        schedule.config.segment_bytes = 64 << 10;
        schedule.whatIf.link_gbps = 10;
        {
            CompareSession session;
            QSignalSpy problems(&session, &CompareSession::pinsProblem);
            session.setProject(project);
            QVERIFY(session.items().empty());
            session.pinRun(2);
            session.pinSchedule(schedule);
            auto saved = profiler::listSchedules(project.toStdString());
            QVERIFY(saved.ok() && saved.value().size() == 1);
            QVERIFY(session.pinSavedSchedule(saved.value()[0]).ok());
            session.setBaseline(2);
            QVERIFY(waitDone(session));
            QCOMPARE(problems.count(), 0);
        }
        CompareSession reopened;
        reopened.setProject(project);
        QCOMPARE(reopened.items().size(), std::size_t(3));
        QCOMPARE(reopened.baseline(), 2);
        const auto& items = reopened.items();
        QCOMPARE(items[0].kind, app::CompareItem::Kind::Run);
        QCOMPARE(items[0].runId, std::int64_t(2));
        QCOMPARE(items[1].kind, app::CompareItem::Kind::Schedule);
        QCOMPARE(items[1].label, schedule.label);
        QCOMPARE(items[1].runId, std::int64_t(1));
        QCOMPARE(items[1].config.segment_bytes, schedule.config.segment_bytes);
        QCOMPARE(items[1].whatIf.link_gbps, 10.0);
        QCOMPARE(items[2].label, std::string("fine"));
        QCOMPARE(items[2].config.segment_bytes, std::size_t(4096));
        QVERIFY(waitDone(reopened));
        QVERIFY2(reopened.latest().error.isEmpty(), qPrintable(reopened.latest().error));
        QCOMPARE(reopened.latest().comparison->rows.size(), std::size_t(3));

        reopened.unpin(0);
        QCOMPARE(reopened.baseline(), 1);
        CompareSession third;
        third.setProject(project);
        QCOMPARE(third.items().size(), std::size_t(2));
        QCOMPARE(third.baseline(), 1);
        QCOMPARE(third.items()[1].label, std::string("fine"));
    }

    // Pins this build cannot read (a newer file, a kind it does not know, settings it cannot parse): the session
    // says why, starts without them, and pinning afterwards does not overwrite what the file holds.
    void unreadablePinsAreReportedAndKept_data() {
        QTest::addColumn<QString>("sql");
        QTest::addColumn<QString>("expected");
        QTest::newRow("newer schema") << QString("PRAGMA user_version=%1").arg(profiler::kSchemaVersion + 1) << "newer Pacer";
        QTest::newRow("unknown kind") << "INSERT INTO compare_pins VALUES(0, 'heatmap', 'x', 1, '{}', 1)"
                                      << "unknown kind 'heatmap'";
        QTest::newRow("bad settings") << "INSERT INTO compare_pins VALUES(0, 'schedule', 'x', 1, '{\"policy\": 7}', 1)"
                                      << "compare pin 'x'";
    }
    void unreadablePinsAreReportedAndKept() {
        QFETCH(QString, sql);
        QFETCH(QString, expected);
        const QString project = m_dir.filePath(QString("unreadable-%1.pacer").arg(QTest::currentDataTag()).replace(' ', '-'));
        const std::string error = testing::writeCompareProject(
            project.toStdString(), {testing::compareExperiment("small", 8), testing::compareExperiment("small", 8)});
        QVERIFY2(error.empty(), error.c_str());
        {
            auto db = profiler::sql::Db::open(project.toStdString(), profiler::sql::Db::Mode::ReadWrite);
            QVERIFY(db.ok());
            QVERIFY((*db)->exec(sql.toStdString()).ok());
        }
        const auto read = [&] {
            auto db = profiler::sql::Db::open(project.toStdString(), profiler::sql::Db::Mode::ReadOnly);
            auto st = (*db)->prepare("SELECT COUNT(*) || ':' || IFNULL(group_concat(kind || label), '') FROM compare_pins");
            profiler::Status s;
            return st.ok() && st->step(&s) ? st->text(0) : std::string("unreadable");
        };
        const std::string before = read();
        CompareSession session;
        QSignalSpy problems(&session, &CompareSession::pinsProblem);
        session.setProject(project);
        QCOMPARE(problems.count(), 1);
        const QString why = problems.at(0).at(0).toString();
        QVERIFY2(why.contains(expected) && why.contains("left in the file"), qPrintable(why));
        QVERIFY(session.items().empty());
        session.pinRun(1);
        QCOMPARE(session.items().size(), std::size_t(1));
        QCOMPARE(read(), before);
    }

    void stackedRowsAlignAtAnIterationStart() {
        auto items = app::parseCompareItems({"1", "fine", "ddp:1MiB@1"}, m_project.toStdString(), 0);
        QVERIFY(items.ok());
        app::ProjectInputs inputs(m_project.toStdString());
        auto c = app::compare(inputs, items.value());
        QVERIFY(c.ok());
        std::int64_t alignedAt = -1;
        auto stack = stackedTrace(c.value(), &alignedAt);
        // Per row (by its lane prefix): its ranks and the start of its second iteration.
        std::map<std::string, int> minRank, maxRank;
        std::map<int, std::string> rowOfTrack;
        for (const profiler::Track& t : stack->tracks) {
            const std::string row = t.name.substr(0, t.name.find(": "));
            rowOfTrack[t.id] = row;
            minRank.try_emplace(row, t.rank);
            minRank[row] = std::min(minRank[row], t.rank);
            maxRank[row] = std::max(maxRank.count(row) ? maxRank[row] : t.rank, t.rank);
        }
        QCOMPARE(minRank.size(), std::size_t(3));
        QVERIFY(minRank.count("#1 run 1") && minRank.count("#2 fine") && minRank.count("#3 ddp:1MiB@1"));
        QVERIFY(minRank["#2 fine"] > maxRank["#1 run 1"]);  // each row under the one before
        QVERIFY(minRank["#3 ddp:1MiB@1"] > maxRank["#2 fine"]);
        std::map<std::string, std::map<int, std::int64_t>> starts;
        for (const profiler::TraceEvent& e : stack->events) {
            if (e.kind != profiler::EventKind::Forward) continue;
            auto& s = starts[rowOfTrack[e.track]];
            auto [it, inserted] = s.try_emplace(e.iteration, e.start);
            if (!inserted) it->second = std::min(it->second, e.start);
        }
        std::vector<std::int64_t> aligned;
        for (const auto& [row, s] : starts) {
            QVERIFY2(s.size() >= 2, row.c_str());
            aligned.push_back(std::next(s.begin())->second);
        }
        QCOMPARE(aligned.size(), std::size_t(3));
        QCOMPARE(aligned[1], aligned[0]);
        QCOMPARE(aligned[2], aligned[0]);
        QCOMPARE(alignedAt, aligned[0]);
        QVERIFY(!stack->tensors.empty());  // one experiment: tensor names kept
    }

    void sweepHoldsTheEnginesFigures() {
        auto input = app::loadRunInput(m_project.toStdString(), 1);
        QVERIFY(input.ok());
        auto shared = std::make_shared<const app::ReplayInput>(std::move(input).value());
        SweepModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        ScheduleSettings base;
        base.config = shared->observedConfig;
        base.whatIf.link_gbps = 1;  // a slow link, so the segment size matters
        model.request(shared, base);
        QTRY_VERIFY_WITH_TIMEOUT(!model.isBusy() && model.rowCount() > 0, 30000);
        QCOMPARE(model.rowCount(), 17);  // 4 KiB .. 256 MiB
        QCOMPARE(model.columnCount(), 1 + int(engine::policyNames().size()));
        for (int c = 1; c < model.columnCount(); ++c) {
            const std::string policy = model.policyOf(c);
            engine::PolicyConfig config = base.config;
            config.name = policy;
            auto points = engine::sweep(shared->workload, shared->cost, config, "segment_bytes", 4096, 256 << 20, base.whatIf);
            QVERIFY(points.ok());
            for (int r = 0; r < model.rowCount(); ++r) {
                const double ms = model.index(r, c).data(SweepModel::ValueRole).toDouble();
                QCOMPARE(ms, points.value()[std::size_t(r)].figures.iter_ms);
            }
            if (policyUsesSegments(policy))
                QCOMPARE(model.bestRow(c), int(engine::bestSweepPoint(points.value())));
            const ScheduleSettings at = model.settingsAt(3, c);
            QCOMPARE(at.config.name, policy);
            QCOMPARE(at.config.segment_bytes, std::size_t(32 << 10));
            QCOMPARE(at.whatIf.link_gbps, 1.0);
        }
        QCOMPARE(model.nearestRow(5000), 0);
        QCOMPARE(model.nearestRow(7000), 1);
        QCOMPARE(model.nearestRow(1e12), 16);
    }

private:
    QTemporaryDir m_dir;
    QString m_project;
};

QTEST_GUILESS_MAIN(TestCompareModels)
#include "tst_compare_models.moc"
