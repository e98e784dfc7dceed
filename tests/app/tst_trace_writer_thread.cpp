// The worker's trace writer thread (app/worker/trace_writer_thread.h): it writes on a thread of its own, at
// SCHED_IDLE, so that the training loop never waits for SQLite or CUPTI; whoever else uses the rank file mid-run
// is kept out of a write in progress; a write's error reaches the owner; after stop() nothing more is written.
#include "app/worker/trace_writer_thread.h"

#include <QtTest/QtTest>

#include <sched.h>

#include <atomic>
#include <stdexcept>
#include <thread>

using pacer::worker::TraceWriterThread;
using namespace std::chrono_literals;

class TraceWriterThreadTest : public QObject {
    Q_OBJECT
private slots:
    void writesOnItsOwnThreadAtIdlePriority() {
        std::atomic<int> writes{0}, policy{-1};
        std::atomic<bool> elsewhere{false};
        const std::thread::id caller = std::this_thread::get_id();
        TraceWriterThread writer(
            [&] {
                policy = sched_getscheduler(0);
                elsewhere = std::this_thread::get_id() != caller;
                ++writes;
            },
            5ms);
        QTRY_VERIFY_WITH_TIMEOUT(writes >= 2, 10000);
        writer.stop();
        QVERIFY(elsewhere);
        QCOMPARE(policy.load(), SCHED_IDLE);
    }

    void nothingIsWrittenAfterStop() {
        std::atomic<int> writes{0};
        TraceWriterThread writer([&] { ++writes; }, 1ms);
        QTRY_VERIFY_WITH_TIMEOUT(writes >= 1, 10000);
        writer.stop();
        const int seen = writes;
        std::this_thread::sleep_for(20ms);
        QCOMPARE(writes.load(), seen);
        writer.stop();  // idempotent
    }

    void theRankFileIsNeverSharedWithAWriteInProgress() {
        std::atomic<bool> writing{false};
        std::atomic<int> writes{0};
        TraceWriterThread writer(
            [&] {
                writing = true;
                std::this_thread::sleep_for(2ms);
                writing = false;
                ++writes;
            },
            1ms);
        for (int i = 0; i < 50; ++i) {
            std::lock_guard lock(writer.writerMutex());
            QVERIFY(!writing);
            std::this_thread::sleep_for(1ms);
            QVERIFY(!writing);
        }
        QTRY_VERIFY_WITH_TIMEOUT(writes >= 1, 10000);
        writer.stop();
    }

    void aWritesErrorReachesTheOwner() {
        std::atomic<bool> tried{false};
        TraceWriterThread writer(
            [&] {
                tried = true;
                throw std::runtime_error("disk full");
            },
            1ms);
        QTRY_VERIFY_WITH_TIMEOUT(tried, 10000);
        bool caught = false;
        try {
            writer.stop();  // the thread ended at that write; stop() rethrows what it threw
        } catch (const std::runtime_error& e) {
            caught = std::string(e.what()) == "disk full";
        }
        QVERIFY(caught);
        writer.stop();  // and reports it once
    }
};

QTEST_GUILESS_MAIN(TraceWriterThreadTest)
#include "tst_trace_writer_thread.moc"
