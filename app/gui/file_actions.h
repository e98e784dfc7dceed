// The File menu around Open: New Project, Open Recent (QSettings, pruned of files that are gone), Import Trace
// (Chrome/Kineto JSON, Nsight Systems SQLite; the code path of `pacer-cli import`), and Export: the timeline as PNG
// or SVG, the analysis and range-table figures as CSV. Exports go through profiler::writeFileReplacing (a temp
// file renamed into place; never over a project, only over an earlier export of the same kind).
//
// Each action asks for a file and calls the public function of the same name, which tests call directly; failures
// arrive as `failed` with a line a person can act on (and a message box in the window).
#pragma once

#include "app/gui/models/recent_files.h"

#include <QObject>
#include <QStringList>

class QAction;
class QMenu;

namespace pacer::gui {

class MainWindow;

class FileActions : public QObject {
    Q_OBJECT
public:
    FileActions(MainWindow* window, QMenu* fileMenu, QAction* openAction);

    QMenu* recentMenu() const { return m_recentMenu; }
    RecentFiles& recent() { return m_recent; }

    // Each returns an empty string on success, else the reason (also emitted as `failed`).
    QString newProject(const QString& path);
    QString exportTimeline(const QString& path);  // .png or .svg, the timeline as it is shown
    QString exportAnalysisCsv(const QString& path);
    QString exportRangeCsv(const QString& path);
    // Imports off the GUI thread into the window's project and opens the new run; `imported` or `failed` follows.
    void importTraces(const QString& format, const QStringList& files);

    static bool canExportSvg();

signals:
    void imported(const QString& projectPath, qint64 runId);
    void exported(const QString& path);
    void failed(const QString& message);

private:
    QString report(const QString& error);
    QString writeExport(const QString& path, const QByteArray& head, const QByteArray& bytes);
    void fillRecentMenu();
    QString askSavePath(const QString& title, const QString& filter, const QString& suffix);

    MainWindow* m_window;
    QMenu* m_recentMenu = nullptr;
    RecentFiles m_recent;
    bool m_importing = false;
};

}  // namespace pacer::gui
