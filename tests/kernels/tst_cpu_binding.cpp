// Core binding of CPU ranks: each local rank's share of the host's CPUs, none where ranks would have to share,
// and a bound compute thread (with OpenBLAS's workers) runs only on its share.
#include "kernels/cpu_binding.h"

#include <cblas.h>
#include <pthread.h>
#include <sched.h>

#include <QtTest/QtTest>

#include <thread>

using namespace pacer::kernels;

Q_DECLARE_METATYPE(std::vector<int>)

namespace {
std::vector<int> maskCpus(const cpu_set_t& set) {
    std::vector<int> cpus;
    for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &set)) cpus.push_back(c);
    return cpus;
}
}  // namespace

class TestCpuBinding : public QObject {
    Q_OBJECT
private slots:
    void eachLocalRankGetsCoresOfItsOwn_data() {
        QTest::addColumn<std::vector<int>>("allowed");
        QTest::addColumn<int>("localRank");
        QTest::addColumn<int>("localRanks");
        QTest::addColumn<int>("threadsPerRank");
        QTest::addColumn<std::vector<int>>("share");
        const std::vector<int> two{0, 1}, eight{0, 1, 2, 3, 4, 5, 6, 7};
        QTest::newRow("2 ranks on 2 cores, rank 0") << two << 0 << 2 << 1 << std::vector<int>{0};
        QTest::newRow("2 ranks on 2 cores, rank 1") << two << 1 << 2 << 1 << std::vector<int>{1};
        QTest::newRow("2 ranks x 2 threads on 8") << eight << 1 << 2 << 2 << std::vector<int>{2, 3};
        QTest::newRow("4 ranks x 2 threads on 8, last") << eight << 3 << 4 << 2 << std::vector<int>{6, 7};
        // A cgroup or taskset that left the process CPUs 2, 5 and 7: the shares come from those.
        QTest::newRow("a narrowed mask") << std::vector<int>{2, 5, 7} << 2 << 3 << 1 << std::vector<int>{7};
        QTest::newRow("one rank") << two << 0 << 1 << 1 << std::vector<int>{0};
        // Not enough CPUs for every rank's threads: no binding, the scheduler spreads them.
        QTest::newRow("4 ranks on 2 cores") << two << 0 << 4 << 1 << std::vector<int>{};
        QTest::newRow("2 ranks x 2 threads on 2") << two << 0 << 2 << 2 << std::vector<int>{};
        QTest::newRow("local rank beyond the host's ranks") << eight << 2 << 2 << 1 << std::vector<int>{};
        QTest::newRow("unknown rank count") << eight << 0 << 0 << 1 << std::vector<int>{};
        QTest::newRow("no CPUs") << std::vector<int>{} << 0 << 1 << 1 << std::vector<int>{};
    }
    void eachLocalRankGetsCoresOfItsOwn() {
        QFETCH(std::vector<int>, allowed);
        QFETCH(int, localRank);
        QFETCH(int, localRanks);
        QFETCH(int, threadsPerRank);
        QFETCH(std::vector<int>, share);
        QCOMPARE(coreShare(allowed, localRank, localRanks, threadsPerRank), share);
    }

    void allowedCpusAreTheProcessMask() {
        cpu_set_t set;
        QCOMPARE(sched_getaffinity(0, sizeof set, &set), 0);
        QCOMPARE(allowedCpus(), maskCpus(set));
        QVERIFY(!allowedCpus().empty());
    }

    // A thread of its own, so that the test's main thread keeps its mask; OpenBLAS with two threads, so that it has
    // a worker besides the caller.
    void boundThreadsRunOnlyOnTheirShare() {
        const std::vector<int> allowed = allowedCpus();
        const std::vector<int> target{allowed.back()};
        const int before = openblas_get_num_threads();
        openblas_set_num_threads(2);
        std::vector<int> self, worker;
        bool bound = false;
        std::string error;
        std::thread t([&] {
            bound = bindComputeThreads(target, &error);
            cpu_set_t set;
            if (pthread_getaffinity_np(pthread_self(), sizeof set, &set) == 0) self = maskCpus(set);
            if (openblas_getaffinity(0, sizeof set, &set) == 0) worker = maskCpus(set);
        });
        t.join();
        openblas_set_num_threads(before);
        QVERIFY2(bound, error.c_str());
        QCOMPARE(self, target);
        QCOMPARE(worker, target);
        cpu_set_t set;  // the process's other threads keep their mask
        QCOMPARE(pthread_getaffinity_np(pthread_self(), sizeof set, &set), 0);
        QCOMPARE(maskCpus(set), allowed);
    }

    void nothingToBindToIsAnError() {
        std::string error;
        QVERIFY(!bindComputeThreads({}, &error));
        QVERIFY(!error.empty());
    }
};

QTEST_GUILESS_MAIN(TestCpuBinding)
#include "tst_cpu_binding.moc"
