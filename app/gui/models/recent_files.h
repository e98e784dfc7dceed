// The File menu's recent projects, kept in QSettings ("recentProjects"): newest first, each file once (by its
// absolute path), at most `limit` entries, and files that no longer exist are dropped whenever the list is read.
#pragma once

#include <QStringList>

namespace pacer::gui {

class RecentFiles {
public:
    static constexpr int kDefaultLimit = 8;
    explicit RecentFiles(int limit = kDefaultLimit) : m_limit(limit) {}

    // Puts a file at the top (moving it when listed already) and trims the list to the limit.
    void add(const QString& path);
    // The files that still exist, newest first; the stored list is pruned to them.
    QStringList files() const;
    void clear();

private:
    int m_limit;
};

}  // namespace pacer::gui
