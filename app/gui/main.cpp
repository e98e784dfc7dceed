// pacer: the GUI. `pacer [PROJECT.pacer] [--experiment FILE]`; with no project it opens the sample
// experiment's project in the user's data directory and offers Run.
#include "app/gui/analysis_panel.h"
#include "app/gui/compare_dock.h"
#include "app/gui/experiment_editor_dialog.h"
#include "app/gui/main_window.h"
#include "app/gui/schedule_editor_dock.h"
#include "app/gui/models/zoom_state.h"
#include "app/gui/timeline_view.h"
#include "pacer/config.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTimer>

#include <cstdio>

namespace {

// The sample experiment: next to an installed binary, else in the source tree this build came from.
QString findSampleExperiment()
{
    const QString name = QStringLiteral("experiments/mlp-2rank.json");
    const QString installed = QCoreApplication::applicationDirPath() + QStringLiteral("/../share/pacer/samples/") + name;
    if (QFileInfo::exists(installed))
        return QFileInfo(installed).canonicalFilePath();
    return QStringLiteral(PACER_SOURCE_DIR "/samples/") + name;
}

// The compare view with something in it: the pins the project keeps, or (none kept) the shown run and the one before it
// pinned, then the project's saved schedules, or (none saved) the run replayed under pace (self-tuned), ddp and fifo.
void showCompareView(pacer::gui::MainWindow& window)
{
    window.resize(1600, 1000);
    QObject::connect(
        &window, &pacer::gui::MainWindow::projectLoaded, &window,
        [&window] {
            pacer::gui::CompareDock* compare = window.compareDock();
            compare->show();
            window.resizeDocks({compare}, {640}, Qt::Vertical);
            if (!compare->session()->items().empty())
                return;  // what the user pinned, restored with the project
            compare->pinShownRun();
            // The run before it too (Pacer lists runs newest first): a capture and its follow-up side by side.
            const auto& runs = window.projectModel()->overview().runs;
            if (runs.size() >= 2)
                compare->session()->pinRun(runs[1].id);
            const pacer::app::ReplayInput* input = window.scheduleDock()->editor()->input();
            if (!input)
                return;
            auto saved = pacer::profiler::listSchedules(window.projectPath().toStdString());
            int pinned = 0;
            for (const auto& s : saved.ok() ? saved.value() : std::vector<pacer::profiler::SavedSchedule>{})
                if (pinned < 4 && compare->session()->pinSavedSchedule(s).ok())
                    ++pinned;
            for (const char* policy : {"pace", "ddp", "fifo"}) {
                if (pinned > 0)
                    break;  // the saved schedules say what the user wants compared
                pacer::app::CompareItem item;
                item.runId = input->runId;
                item.label = policy;
                item.config.name = policy;
                item.config.segment_bytes = 0;  // the run's own size; a plain pace tunes itself
                compare->session()->pinSchedule(item);
            }
        },
        Qt::SingleShotConnection);
}

}  // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    // Fusion looks the same on every desktop and offscreen, so screenshots show what users see.
    QApplication::setStyle(QStringLiteral("Fusion"));
    QApplication::setApplicationName(QStringLiteral("pacer"));
    QApplication::setOrganizationName(QStringLiteral("pacer"));
    QApplication::setApplicationVersion(QStringLiteral(PACER_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("pacer"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Pacer: timeline and schedules of data-parallel training."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("project"), QStringLiteral("The .pacer project to open."));
    const QCommandLineOption experiment(QStringLiteral("experiment"), QStringLiteral("Experiment the Run action launches."),
                                        QStringLiteral("file"));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                        QStringLiteral("Open the project, save the window as a PNG, and quit."),
                                        QStringLiteral("png"));
    const QCommandLineOption view(QStringLiteral("view"),
                                  QStringLiteral("timeline (default), schedule (the editor, after its replay), compare "
                                                 "(the shown run and replays of it pinned in the compare view), analysis "
                                                 "(the analysis panel under the timeline, the critical path outlined) or "
                                                 "experiment (the experiment editor of Run > New Experiment)."),
                                  QStringLiteral("name"), QStringLiteral("timeline"));
    parser.addOption(experiment);
    parser.addOption(screenshot);
    parser.addOption(view);
    parser.process(app);
    const QString viewName = parser.value(view);
    if (viewName != QLatin1String("timeline") && viewName != QLatin1String("schedule") &&
        viewName != QLatin1String("analysis") && viewName != QLatin1String("compare") &&
        viewName != QLatin1String("experiment")) {
        std::fprintf(stderr, "pacer: error: --view must be timeline, schedule, compare, analysis or experiment, not '%s'\n",
                     qPrintable(viewName));
        return 2;
    }

    QString projectPath = parser.positionalArguments().value(0);
    QString experimentPath = parser.isSet(experiment) ? parser.value(experiment) : findSampleExperiment();
    if (projectPath.isEmpty()) {
        const QString dataDir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
        QDir().mkpath(dataDir);
        projectPath = dataDir + QLatin1Char('/') + QFileInfo(experimentPath).completeBaseName() + QStringLiteral(".pacer");
    }

    pacer::gui::MainWindow window;
    window.setExperiment(experimentPath, projectPath);
    window.show();
    if (QFileInfo::exists(projectPath))
        window.openProject(projectPath);

    if (viewName == QLatin1String("compare"))
        showCompareView(window);

    if (parser.isSet(screenshot)) {
        const QString out = parser.value(screenshot);
        if (viewName == QLatin1String("analysis")) {
            window.resize(1600, 900);
            if (auto* dock = window.findChild<QDockWidget*>(QStringLiteral("analysisDock")))
                dock->show();
        }
        auto grab = [&window, out] {
            const bool ok = window.grab().save(out);
            std::fprintf(ok ? stdout : stderr, ok ? "wrote %s\n" : "pacer: error: cannot write %s\n", qPrintable(out));
            QCoreApplication::exit(ok ? 0 : 1);
        };
        // Grab once the project has loaded (or failed), and for the schedule view once its replay is drawn; give up
        // after 30 s rather than hang.
        if (viewName == QLatin1String("compare")) {
            // Once the comparison and the sweep have both arrived.
            auto* poll = new QTimer(&window);
            QObject::connect(poll, &QTimer::timeout, &window, [&window, poll, grab] {
                pacer::gui::CompareDock* compare = window.compareDock();
                if (!compare->session()->latest().comparison || compare->session()->isBusy() ||
                    compare->sweepModel()->isBusy() || compare->sweepModel()->rowCount() == 0)
                    return;
                poll->stop();
                QTimer::singleShot(200, grab);
            });
            poll->start(100);
        } else if (viewName == QLatin1String("schedule")) {
            window.resize(1600, 900);
            QObject::connect(window.scheduleDock()->editor(), &pacer::gui::ScheduleEditorModel::replayed, &window,
                             [grab] { QTimer::singleShot(100, grab); });
        } else if (auto* panel = window.findChild<pacer::gui::AnalysisPanel*>();
                   viewName == QLatin1String("analysis") && panel) {
            window.scheduleDock()->hide();
            // The panel analyses off the GUI thread once the run is shown.
            QObject::connect(&window, &pacer::gui::MainWindow::projectLoaded, &window, [panel, grab] {
                QObject::connect(panel, &pacer::gui::AnalysisPanel::analysed, panel, [grab] { QTimer::singleShot(100, grab); });
            });
        } else if (viewName == QLatin1String("experiment")) {
            // The experiment editor (Run > New Experiment), grabbed once the worker has said which GPUs it found.
            if (auto* open = window.findChild<QAction*>(QStringLiteral("newExperimentAction"))) open->trigger();
            auto* editor = window.findChild<pacer::gui::ExperimentEditorDialog*>(QStringLiteral("experimentEditor"));
            if (!editor) {
                std::fprintf(stderr, "pacer: error: this build has no experiment editor\n");
                return 1;
            }
            auto grabEditor = [editor, out] {
                const bool ok = editor->grab().save(out);
                std::fprintf(ok ? stdout : stderr, ok ? "wrote %s\n" : "pacer: error: cannot write %s\n", qPrintable(out));
                QCoreApplication::exit(ok ? 0 : 1);
            };
            QObject::connect(editor, &pacer::gui::ExperimentEditorDialog::gpusDiscovered, editor,
                             [grabEditor] { QTimer::singleShot(100, grabEditor); });
            QTimer::singleShot(12'000, editor, grabEditor);  // discovery gives up after 10 s
        } else {
            window.scheduleDock()->hide();
            QObject::connect(&window, &pacer::gui::MainWindow::projectLoaded, &window, [grab] { QTimer::singleShot(100, grab); });
        }
        QObject::connect(&window, &pacer::gui::MainWindow::projectFailed, &window, [grab] { QTimer::singleShot(100, grab); });
        if (!QFileInfo::exists(projectPath))
            QTimer::singleShot(100, grab);
        QTimer::singleShot(30'000, &app, [] {
            std::fprintf(stderr, "pacer: error: the project did not load within 30 s\n");
            QCoreApplication::exit(1);
        });
    }
    return app.exec();
}
