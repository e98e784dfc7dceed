#include "app/gui/models/recent_files.h"

#include <QFileInfo>
#include <QSettings>

namespace pacer::gui {
namespace {

const QString kKey = QStringLiteral("recentProjects");

}  // namespace

void RecentFiles::add(const QString& path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList list = files();
    list.removeAll(absolute);
    list.prepend(absolute);
    while (list.size() > m_limit)
        list.removeLast();
    QSettings().setValue(kKey, list);
}

QStringList RecentFiles::files() const
{
    QSettings settings;
    const QStringList stored = settings.value(kKey).toStringList();
    QStringList existing;
    for (const QString& path : stored)
        if (QFileInfo(path).isFile() && !existing.contains(path) && existing.size() < m_limit)
            existing << path;
    if (existing != stored)
        settings.setValue(kKey, existing);
    return existing;
}

void RecentFiles::clear()
{
    QSettings().remove(kKey);
}

}  // namespace pacer::gui
