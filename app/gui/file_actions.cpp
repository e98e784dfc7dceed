#include "app/gui/file_actions.h"

#include "app/common/project_files.h"
#include "app/gui/analysis_panel.h"
#include "app/gui/main_window.h"
#include "app/gui/models/analysis_model.h"
#include "app/gui/models/figures_csv.h"
#include "app/gui/range_stats_panel.h"
#include "app/gui/timeline_view.h"
#include "profiler/export_chrome.h"

#include <QAction>
#include <QBuffer>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QMenu>
#include <QMessageBox>
#include <QPainter>
#include <QPixmap>
#include <QtConcurrent/QtConcurrentRun>

#if PACER_GUI_HAVE_SVG
#include <QSvgGenerator>
#endif

namespace pacer::gui {
namespace {

// What each kind of export starts with: an existing file is replaced only when it starts so too.
const QByteArray kPngHead("\x89PNG\r\n\x1a\n", 8);
const QByteArray kSvgHead("<?xml");

}  // namespace

FileActions::FileActions(MainWindow* window, QMenu* file, QAction* openAction) : QObject(window), m_window(window)
{
    setObjectName(QStringLiteral("fileActions"));
    auto* newProject = new QAction(QIcon::fromTheme(QStringLiteral("document-new")), tr("&New Project…"), window);
    newProject->setObjectName(QStringLiteral("newProjectAction"));
    newProject->setShortcut(QKeySequence::New);
    connect(newProject, &QAction::triggered, this, [this] {
        const QString path = askSavePath(tr("New Pacer Project"), tr("Pacer projects (*.pacer)"), QStringLiteral("pacer"));
        if (!path.isEmpty())
            this->newProject(path);
    });
    file->addAction(newProject);
    file->addAction(openAction);

    m_recentMenu = file->addMenu(tr("Open &Recent"));
    m_recentMenu->setObjectName(QStringLiteral("recentMenu"));
    connect(m_recentMenu, &QMenu::aboutToShow, this, &FileActions::fillRecentMenu);
    fillRecentMenu();
    connect(window, &MainWindow::projectLoaded, this, [this](const QString& path) {
        m_recent.add(path);
        fillRecentMenu();
    });
    file->addSeparator();

    auto* import = new QAction(tr("&Import Trace…"), window);
    import->setObjectName(QStringLiteral("importAction"));
    connect(import, &QAction::triggered, this, [this] {
        QString filter;
        const QStringList files = QFileDialog::getOpenFileNames(
            m_window, tr("Import Trace into %1").arg(QFileInfo(m_window->projectPath()).fileName()),
            QFileInfo(m_window->projectPath()).absolutePath(),
            tr("Chrome / Kineto trace JSON, one file per rank (*.json);;Nsight Systems SQLite export, one or one per "
               "rank (*.sqlite *.db)"),
            &filter);
        if (!files.isEmpty())
            importTraces(filter.startsWith(QLatin1String("Nsight")) ? QStringLiteral("nsys") : QStringLiteral("chrome"),
                         files);
    });
    file->addAction(import);

    QMenu* exportMenu = file->addMenu(tr("&Export"));
    exportMenu->setObjectName(QStringLiteral("exportMenu"));
    auto addExport = [&](const char* name, const QString& text, const QString& filter, const QString& suffix,
                         QString (FileActions::*action)(const QString&)) {
        QAction* a = exportMenu->addAction(text);
        a->setObjectName(QString::fromLatin1(name));
        connect(a, &QAction::triggered, this, [this, text, filter, suffix, action] {
            const QString path = askSavePath(text.chopped(1), filter, suffix);
            if (!path.isEmpty())
                (this->*action)(path);
        });
    };
    addExport("exportPngAction", tr("Timeline as &PNG…"), tr("PNG images (*.png)"), QStringLiteral("png"), &FileActions::exportTimeline);
    if (canExportSvg())
        addExport("exportSvgAction", tr("Timeline as &SVG…"), tr("SVG images (*.svg)"), QStringLiteral("svg"), &FileActions::exportTimeline);
    addExport("exportAnalysisCsvAction", tr("&Analysis as CSV…"), tr("CSV files (*.csv)"), QStringLiteral("csv"), &FileActions::exportAnalysisCsv);
    addExport("exportRangeCsvAction", tr("Selected &Range Table as CSV…"), tr("CSV files (*.csv)"), QStringLiteral("csv"),
              &FileActions::exportRangeCsv);
}

bool FileActions::canExportSvg()
{
    return PACER_GUI_HAVE_SVG;
}

QString FileActions::askSavePath(const QString& title, const QString& filter, const QString& suffix)
{
    QFileDialog dialog(m_window, title, QFileInfo(m_window->projectPath()).absolutePath(), filter);
    dialog.setAcceptMode(QFileDialog::AcceptSave);
    dialog.setDefaultSuffix(suffix);
    return dialog.exec() == QDialog::Accepted ? dialog.selectedFiles().value(0) : QString();
}

QString FileActions::report(const QString& error)
{
    if (error.isEmpty())
        return error;
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Pacer"), error, QMessageBox::Ok, m_window);
    box->setObjectName(QStringLiteral("fileErrorBox"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();  // window-modal, no nested event loop
    emit failed(error);
    return error;
}

QString FileActions::newProject(const QString& path)
{
    const auto st = app::createProject(path.toStdString());
    if (!st.ok())
        return report(QString::fromStdString(st.message()));
    m_window->openProject(path);
    return {};
}

void FileActions::importTraces(const QString& format, const QStringList& files)
{
    if (m_importing) {
        report(tr("An import is in progress"));
        return;
    }
    m_importing = true;
    const QString project = m_window->projectPath();
    std::vector<std::string> paths;
    for (const QString& f : files)
        paths.push_back(f.toStdString());
    auto* watcher = new QFutureWatcher<profiler::Result<std::int64_t>>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, project] {
        m_importing = false;
        const profiler::Result<std::int64_t> run = watcher->result();
        watcher->deleteLater();
        if (!run.ok()) {
            report(QString::fromStdString(run.status().message()));
            return;
        }
        emit imported(project, run.value());
        m_window->openProject(project, run.value());
    });
    watcher->setFuture(QtConcurrent::run([format = format.toStdString(), paths, out = project.toStdString()] {
        return app::importTraces(format, paths, out);
    }));
}

QString FileActions::writeExport(const QString& path, const QByteArray& head, const QByteArray& bytes)
{
    const auto st = profiler::writeFileReplacing(m_window->projectPath().toStdString(), path.toStdString(),
                                                 std::string_view(head.constData(), static_cast<std::size_t>(head.size())),
                                                 [&bytes](std::ostream& out) { out.write(bytes.constData(), bytes.size()); });
    if (!st.ok())
        return report(QString::fromStdString(st.message()));
    emit exported(path);
    return {};
}

QString FileActions::exportTimeline(const QString& path)
{
    TimelineView* timeline = m_window->timeline();
    if (!timeline->model()->trace())
        return report(tr("There is no run on the timeline to export"));
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive)) {
#if PACER_GUI_HAVE_SVG
        QSvgGenerator svg;
        svg.setOutputDevice(&buffer);
        svg.setSize(timeline->size());
        svg.setViewBox(QRect(QPoint(0, 0), timeline->size()));
        svg.setTitle(m_window->windowTitle());
        svg.setDescription(tr("Pacer timeline"));
        QPainter painter(&svg);
        timeline->render(&painter);
        painter.end();
        return writeExport(path, kSvgHead, bytes);
#else
        return report(tr("This build of pacer has no SVG support (Qt SVG was not found); export a PNG"));
#endif
    }
    if (!path.endsWith(QLatin1String(".png"), Qt::CaseInsensitive))
        return report(tr("%1: the timeline exports as .png or .svg").arg(path));
    if (!timeline->grab().save(&buffer, "PNG"))
        return report(tr("%1: the image could not be encoded").arg(path));
    return writeExport(path, kPngHead, bytes);
}

QString FileActions::exportAnalysisCsv(const QString& path)
{
    auto* panel = m_window->findChild<AnalysisPanel*>();
    // The panel analyses only while visible: an export of a run it has not analysed computes the figures now.
    const profiler::analysis::RunAnalysis analysis = panel ? panel->analysisNow() : profiler::analysis::RunAnalysis{};
    if (analysis.ranks.empty())
        return report(tr("There are no analysis figures to export: show a run"));
    return writeExport(path, kAnalysisCsvHeader, analysisCsv(analysis));
}

QString FileActions::exportRangeCsv(const QString& path)
{
    auto* panel = m_window->findChild<RangeStatsPanel*>();
    if (!panel || panel->model()->stats().empty())
        return report(tr("There is no range table to export: drag across the timeline to select a range"));
    return writeExport(path, kRangeCsvHeader, rangeStatsCsv(panel->model()->stats()));
}

void FileActions::fillRecentMenu()
{
    m_recentMenu->clear();
    const QStringList files = m_recent.files();
    for (int i = 0; i < files.size(); ++i) {
        QAction* a = m_recentMenu->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(files[i]).fileName()));
        a->setData(files[i]);
        a->setToolTip(files[i]);
        connect(a, &QAction::triggered, m_window, [this, path = files[i]] { m_window->openProject(path); });
    }
    if (files.isEmpty())
        m_recentMenu->addAction(tr("(none)"))->setEnabled(false);
    else {
        m_recentMenu->addSeparator();
        connect(m_recentMenu->addAction(tr("&Clear List")), &QAction::triggered, this, [this] {
            m_recent.clear();
            fillRecentMenu();
        });
    }
}

}  // namespace pacer::gui
