// The File menu in a real (offscreen) window: New Project, Open Recent (bounded, newest first, missing files
// pruned), Import of Chrome/Kineto and Nsight Systems traces into the project (a new run in the tree), and
// Export: the timeline as PNG (loads, the timeline's size) and SVG (parses), the analysis and range tables as CSV
// with hand-checked rows; an export never replaces a project or a file that is not an earlier export.
#include "app/gui/file_actions.h"
#include "app/gui/main_window.h"
#include "app/gui/models/figures_csv.h"
#include "app/gui/models/large_run.h"
#include "app/gui/models/range_stats_model.h"
#include "app/gui/models/timeline_model.h"
#include "app/gui/range_stats_panel.h"
#include "app/gui/timeline_view.h"
#include "profiler/project.h"
#include "profiler/sqlite_db.h"
#include "tests/gui/trace_fixture.h"
#include "tests/profiler/analysis_fixture.h"

#include <QAction>
#include <QFile>
#include <QImage>
#include <QMenu>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

#include <fstream>
#include <sstream>

using namespace pacer::gui;

class TestFileActions : public QObject {
    Q_OBJECT
private:
    std::unique_ptr<MainWindow> m_window;
    QTemporaryDir m_dir;
    FileActions* actions() const { return m_window->findChild<FileActions*>(QStringLiteral("fileActions")); }
    QString path(const QString& name) const { return m_dir.filePath(name); }

    static QByteArray readAll(const QString& file)
    {
        QFile f(file);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }
    static void writeText(const QString& file, const QByteArray& text)
    {
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text);
    }
    // A project on disk with the fixture run, opened in the window (so exports have a project to protect).
    void openFixtureProject(const QString& file)
    {
        pacer::profiler::RunInfo info;
        info.ranks = 2;
        QVERIFY(pacer::profiler::writeRun(file.toStdString(), *test::makeTwoRankTrace(), info).ok());
        QSignalSpy loaded(m_window.get(), &MainWindow::projectLoaded);
        m_window->openProject(file);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 10'000);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // Recent files go to a settings file of this test, never the user's.
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.filePath(QStringLiteral("settings")));
        QCoreApplication::setOrganizationName(QStringLiteral("pacer-test"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_file_actions"));
    }
    void init()
    {
        RecentFiles().clear();
        m_window = std::make_unique<MainWindow>();
        m_window->resize(1000, 500);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        QVERIFY(actions());
    }
    void cleanup() { m_window.reset(); }

    void recentListIsBoundedNewestFirstAndPruned()
    {
        RecentFiles recent(3);
        QStringList files;
        for (int i = 0; i < 5; ++i) {
            files << path(QStringLiteral("r%1.pacer").arg(i));
            writeText(files.back(), "x");
            recent.add(files.back());
        }
        QCOMPARE(recent.files(), (QStringList{files[4], files[3], files[2]}));
        recent.add(files[3]);  // again: moves to the top, listed once
        QCOMPARE(recent.files(), (QStringList{files[3], files[4], files[2]}));
        QVERIFY(QFile::remove(files[4]));
        QCOMPARE(recent.files(), (QStringList{files[3], files[2]}));
        QCOMPARE(QSettings().value(QStringLiteral("recentProjects")).toStringList(), (QStringList{files[3], files[2]}));
    }

    // Opening a project puts it in File > Open Recent; choosing it there opens it again.
    void openedProjectsAppearInRecentMenu()
    {
        const QString a = path(QStringLiteral("recent-a.pacer")), b = path(QStringLiteral("recent-b.pacer"));
        openFixtureProject(a);
        openFixtureProject(b);
        QMenu* menu = actions()->recentMenu();
        emit menu->aboutToShow();
        QStringList listed;
        for (QAction* action : menu->actions())
            if (action->data().isValid())
                listed << action->data().toString();
        QCOMPARE(listed, (QStringList{b, a}));
        QSignalSpy loaded(m_window.get(), &MainWindow::projectLoaded);
        menu->actions().at(1)->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 10'000);
        QCOMPARE(m_window->projectPath(), a);
    }

    void newProjectIsEmptyAndNeverReplacesAFile()
    {
        const QString file = path(QStringLiteral("new.pacer"));
        QSignalSpy loaded(m_window.get(), &MainWindow::projectLoaded);
        QCOMPARE(actions()->newProject(file), QString());
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 10'000);
        QCOMPARE(m_window->projectPath(), file);
        auto runs = pacer::profiler::listRuns(file.toStdString());
        QVERIFY(runs.ok());
        QCOMPARE(runs.value().size(), std::size_t{0});
        QSignalSpy failed(actions(), &FileActions::failed);
        QVERIFY(actions()->newProject(file).contains(QLatin1String("already exists")));
        QCOMPARE(failed.count(), 1);
    }

    void importsKinetoTracesAsARun()
    {
        const QString project = path(QStringLiteral("import.pacer"));
        QCOMPARE(actions()->newProject(project), QString());
        QTRY_COMPARE_WITH_TIMEOUT(m_window->projectPath(), project, 10'000);
        QSignalSpy imported(actions(), &FileActions::imported);
        QSignalSpy loaded(m_window.get(), &MainWindow::projectLoaded);
        actions()->importTraces(QStringLiteral("chrome"), {QStringLiteral(PACER_SAMPLES_DIR "/traces/kineto_rank0.json"),
                                                           QStringLiteral(PACER_SAMPLES_DIR "/traces/kineto_rank1.json")});
        QTRY_COMPARE_WITH_TIMEOUT(imported.count(), 1, 30'000);
        const qint64 run = imported.at(0).at(1).toLongLong();
        QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty() && loaded.last().at(1).toLongLong() == run, 30'000);
        QVERIFY(m_window->projectModel()->runIndex(run).isValid());
        QVERIFY(m_window->timeline()->model()->trace());
        QCOMPARE(m_window->timeline()->model()->trace()->ranks, 2);
    }

    // The Nsight Systems export of the samples, made into SQLite as nsys export would write it.
    void importsNsysExport()
    {
        const QString db = path(QStringLiteral("nsys.sqlite"));
        std::ifstream in(PACER_SAMPLES_DIR "/traces/nsys_export.sql");
        std::stringstream sql;
        sql << in.rdbuf();
        {
            auto file = pacer::profiler::sql::Db::open(db.toStdString(), pacer::profiler::sql::Db::Mode::Create);
            QVERIFY(file.ok());
            QVERIFY(file.value()->exec(sql.str()).ok());
        }
        const QString project = path(QStringLiteral("nsys.pacer"));
        QCOMPARE(actions()->newProject(project), QString());
        QTRY_COMPARE_WITH_TIMEOUT(m_window->projectPath(), project, 10'000);
        QSignalSpy imported(actions(), &FileActions::imported);
        actions()->importTraces(QStringLiteral("nsys"), {db});
        QTRY_COMPARE_WITH_TIMEOUT(imported.count(), 1, 30'000);
        QTRY_VERIFY_WITH_TIMEOUT(m_window->projectModel()->runIndex(imported.at(0).at(1).toLongLong()).isValid(), 30'000);
    }

    // A file that is not a trace: the importer's own message, and the project keeps what it had.
    void importRefusesWhatIsNotATrace()
    {
        const QString project = path(QStringLiteral("refuse.pacer"));
        openFixtureProject(project);
        const QString bad = path(QStringLiteral("notes.json"));
        writeText(bad, "this is not JSON");
        QSignalSpy failed(actions(), &FileActions::failed);
        actions()->importTraces(QStringLiteral("chrome"), {bad});
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 30'000);
        QVERIFY2(failed.at(0).at(0).toString().contains(QLatin1String("notes.json")), qPrintable(failed.at(0).at(0).toString()));
        QCOMPARE(pacer::profiler::listRuns(project.toStdString()).value().size(), std::size_t{1});
    }

    void exportsTimelineAsPng()
    {
        m_window->showRun(test::makeTwoRankTrace(), ProjectOverview{});
        const QString png = path(QStringLiteral("timeline.png"));
        QCOMPARE(actions()->exportTimeline(png), QString());
        QImage image;
        QVERIFY(image.load(png));
        const QSize expected = m_window->timeline()->size() * m_window->timeline()->devicePixelRatio();
        QCOMPARE(image.size(), expected);
        // Lanes are painted, not a blank grab: more than one colour.
        QSet<QRgb> colours;
        for (int y = 0; y < image.height(); y += 5)
            for (int x = 0; x < image.width(); x += 7)
                colours.insert(image.pixel(x, y));
        QVERIFY(colours.size() > 2);
        QCOMPARE(actions()->exportTimeline(png), QString());  // an earlier PNG export may be replaced
    }

    void exportsTimelineAsSvg()
    {
        if (!FileActions::canExportSvg())
            QSKIP("built without Qt SVG");
        m_window->showRun(test::makeTwoRankTrace(), ProjectOverview{});
        const QString svg = path(QStringLiteral("timeline.svg"));
        QCOMPARE(actions()->exportTimeline(svg), QString());
        QXmlStreamReader xml(readAll(svg));
        int rects = 0;
        QString root;
        while (!xml.atEnd()) {
            if (xml.readNext() == QXmlStreamReader::StartElement) {
                if (root.isEmpty())
                    root = xml.name().toString();
                rects += xml.name() == QLatin1String("rect") || xml.name() == QLatin1String("path") ? 1 : 0;
            }
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QCOMPARE(root, QStringLiteral("svg"));
        QVERIFY(rects > 16);  // the lanes' spans, drawn as shapes
    }

    // The hand-timed iteration of analysis_fixture.h: the figures tst_analysis and the analysis panel check.
    void exportsAnalysisCsv()
    {
        m_window->showRun(std::make_shared<const pacer::profiler::RunTrace>(pacer::profiler::testing::handTimedIteration()),
                          ProjectOverview{});
        const QString csv = path(QStringLiteral("analysis.csv"));
        QCOMPARE(actions()->exportAnalysisCsv(csv), QString());
        QCOMPARE(readAll(csv), QByteArray(kAnalysisCsvHeader) +
                                   "0,100000,70000,20000,10000,40000,50.00,0,0,no\n"
                                   "1,110000,80000,13000,17000,31000,58.06,2,5000,yes\n");
    }

    // The range of tst_main_window's hand count: [3.5 ms, 5.25 ms) of the fixture.
    void exportsRangeTableCsv()
    {
        m_window->showRun(test::makeTwoRankTrace(), ProjectOverview{});
        const QString csv = path(QStringLiteral("range.csv"));
        QSignalSpy failed(actions(), &FileActions::failed);
        QVERIFY(!actions()->exportRangeCsv(csv).isEmpty());  // no range yet
        QCOMPARE(failed.count(), 1);
        QVERIFY(!QFile::exists(csv));
        m_window->timeline()->selectRange(3'500'000, 5'250'000);
        QCOMPARE(actions()->exportRangeCsv(csv), QString());
        QCOMPARE(readAll(csv), QByteArray(kRangeCsvHeader) +
                                   "fc3 backward,2,2000000,1000000\n"
                                   "fc4,2,2000000,1000000\n"
                                   "fc4 backward,2,2000000,1000000\n"
                                   "allreduce fc4.weight[0],2,1000000,500000\n");
    }

    // A large run's range that the timeline does not hold is counted in the project file, off the GUI thread, and
    // the table (and so its CSV) is the one the run held whole gives.
    void largeRunRangeIsCountedInTheProject()
    {
        const QString project = path(QStringLiteral("large.pacer"));
        QVERIFY(pacer::profiler::writeRun(project.toStdString(), *test::makeTwoRankTrace(20), {}).ok());
        LargeRunLimits limits;
        limits.residentCells = 1;
        QString error;
        TimelineModel large, whole;
        large.setIndex(buildLargeRunIndex(openLargeRun(project, 0, &error, limits)));
        whole.setTrace(std::make_shared<const pacer::profiler::RunTrace>(pacer::profiler::readRun(project.toStdString(), 0).value()));
        const std::int64_t t0 = whole.startTime() + 3'500'000, t1 = whole.startTime() + 95'250'000;
        std::vector<RangeStat> expected;
        QVERIFY(aggregateRange(whole, t0, t1, &expected));
        RangeStatsPanel panel;
        panel.showRange(large, t0, t1);
        QVERIFY(panel.isCounting());
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isCounting(), 10'000);
        QVERIFY2(panel.summary().contains(QLatin1String("counted in the project file")), qPrintable(panel.summary()));
        QCOMPARE(rangeStatsCsv(panel.model()->stats()), rangeStatsCsv(expected));
        QVERIFY(expected.size() > 4);
    }

    // An export replaces neither the project, nor another project, nor a file it did not write.
    void exportNeverReplacesProjectsOrOtherFiles()
    {
        const QString project = path(QStringLiteral("keep.pacer"));
        openFixtureProject(project);
        const QByteArray projectBytes = readAll(project);
        const QString other = path(QStringLiteral("other.pacer"));
        QVERIFY(pacer::profiler::writeRun(other.toStdString(), *test::makeTwoRankTrace(), {}).ok());
        const QString notes = path(QStringLiteral("notes.csv"));
        writeText(notes, "my own numbers\n");
        QVERIFY(actions()->exportTimeline(project.chopped(6) + QStringLiteral(".png")).isEmpty());
        for (const QString& target : {project, other}) {
            QVERIFY(!actions()->exportAnalysisCsv(target).isEmpty());
            QVERIFY(pacer::profiler::checkProject(target.toStdString()).ok());
        }
        QCOMPARE(readAll(project), projectBytes);
        m_window->timeline()->selectRange(0, 10'000'000);
        QVERIFY(actions()->exportRangeCsv(notes).contains(QLatin1String("not a Pacer export")));
        QCOMPARE(readAll(notes), QByteArray("my own numbers\n"));
        QCOMPARE(QDir(m_dir.path()).entryList({QStringLiteral("*.XXXXXX"), QStringLiteral("*.csv.*")}), QStringList());
    }
};

QTEST_MAIN(TestFileActions)
#include "tst_file_actions.moc"
