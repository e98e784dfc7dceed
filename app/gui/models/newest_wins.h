// Runs jobs off the GUI thread one at a time, newest wins: a job requested while one runs waits in a single slot
// that a newer request overwrites, and the last request's result is always delivered, on the owner's thread, in
// request order (hotspot's job tracker pattern). The compare view's comparisons and its segment sweep use it.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>

#include <functional>
#include <optional>
#include <utility>

namespace pacer::gui {

template <typename Result>
class NewestWins {
public:
    using Job = std::function<Result()>;

    // deliver is called on owner's thread with each result that was computed.
    NewestWins(QObject* owner, std::function<void(quint64 generation, const Result&)> deliver)
        : m_owner(owner), m_deliver(std::move(deliver)) {
        m_pool.setMaxThreadCount(1);
    }
    ~NewestWins() { m_pool.waitForDone(); }
    NewestWins(const NewestWins&) = delete;
    NewestWins& operator=(const NewestWins&) = delete;

    // The job must own (or share) everything it reads: it runs on another thread.
    quint64 request(Job job) {
        m_pending = std::make_pair(++m_generation, std::move(job));
        if (!m_running) startNext();
        return m_generation;
    }
    // Forgets a waiting job (a running one still delivers).
    void dropPending() { m_pending.reset(); }
    bool isBusy() const { return m_running || m_pending.has_value(); }
    quint64 generation() const { return m_generation; }
    int computed() const { return m_computed; }

private:
    void startNext() {
        if (!m_pending) return;
        auto [generation, job] = std::move(*m_pending);
        m_pending.reset();
        m_running = true;
        ++m_computed;
        auto* watcher = new QFutureWatcher<Result>(m_owner);
        QObject::connect(watcher, &QFutureWatcher<Result>::finished, m_owner, [this, watcher, generation = generation] {
            watcher->deleteLater();
            m_running = false;
            m_deliver(generation, watcher->result());
            startNext();
        });
        watcher->setFuture(QtConcurrent::run(&m_pool, std::move(job)));
    }

    QObject* m_owner;
    std::function<void(quint64, const Result&)> m_deliver;
    QThreadPool m_pool;
    std::optional<std::pair<quint64, Job>> m_pending;
    quint64 m_generation = 0;
    bool m_running = false;
    int m_computed = 0;
};

}  // namespace pacer::gui
