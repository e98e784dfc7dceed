// How the all-reduce benchmark judges a ratio goal from paired calls (engine/bench/allreduce_bench.h): the median of
// the pairs' ratios and its distribution-free 95% interval from order statistics (engine/median_interval.h). Every
// row's verdict and interval is worked out by hand from the binomial tail: for n pairs the interval is
// [x_(k), x_(n+1-k)] with the largest k such that 2·P(Binomial(n, 1/2) <= k-1) <= 0.05.
#include "engine/bench/allreduce_bench.h"
#include "engine/median_interval.h"

#include <QTest>

#include <cmath>
#include <random>

using namespace pacer::engine;

namespace {

std::vector<double> toVector(const QList<double>& list) { return {list.begin(), list.end()}; }

QList<double> repeated(std::initializer_list<std::pair<int, double>> runs) {
    QList<double> out;
    for (const auto& [times, value] : runs)
        for (int i = 0; i < times; ++i) out.push_back(value);
    return out;
}

// A benchmark row of `bytes` whose 20 pairs' ratios are `ratios` (auto's: `ran` the algorithm it ran).
AllreduceBenchRow rowOf(std::size_t bytes, const QList<double>& ratios, const std::string& ran = "") {
    AllreduceBenchRow r;
    r.bytes = bytes;
    r.ran = ran;
    r.pair_ratios = toVector(ratios);
    r.ratio = medianInterval(r.pair_ratios);
    return r;
}

}  // namespace

class TestBenchJudgement : public QObject {
    Q_OBJECT
private slots:
    // Ranks from the binomial tail: n = 6: 2·(1/64) = 0.031 (k = 1), 2·(7/64) = 0.22; n = 10: 2·(11/1024) = 0.021
    // (k = 2), 2·(56/1024) = 0.11; n = 20: 2·(21,700/2^20) = 0.041 (k = 6), 2·(60,460/2^20) = 0.115; n = 40 and
    // 100: 14 and 40, as published tables of the sign test's interval give them. Under 6 even [min, max] falls short
    // (2/32 = 0.0625 at n = 5).
    void intervalRanks_data() {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("k");
        for (auto [n, k] : {std::pair{1, 0}, {5, 0}, {6, 1}, {8, 1}, {10, 2}, {12, 3}, {20, 6}, {40, 14}, {100, 40}})
            QTest::addRow("n=%d", n) << n << k;
    }
    void intervalRanks() {
        QFETCH(int, n);
        QFETCH(int, k);
        QCOMPARE(medianIntervalRank(static_cast<std::size_t>(n), 0.95), static_cast<std::size_t>(k));
    }

    void fewestValues() {
        QCOMPARE(medianIntervalMinCount(0.95), std::size_t(6));
        QCOMPARE(medianIntervalMinCount(0.99), std::size_t(8));  // 2/128 = 0.016 > 0.01, 2/256 = 0.008
    }

    void judgeRatio_data() {
        QTest::addColumn<QList<double>>("ratios");
        QTest::addColumn<double>("median");
        QTest::addColumn<double>("low");
        QTest::addColumn<double>("high");
        QTest::addColumn<QString>("verdict");
        QTest::newRow("6 pairs, all at or above: [min, max]")
            << QList<double>{1.0, 1.1, 0.97, 1.2, 0.99, 1.05} << 1.025 << 0.97 << 1.2 << "met";
        QTest::newRow("low end exactly at the goal")
            << QList<double>{1.3, 1.0, 0.95, 1.1, 1.2, 1.0} << 1.05 << 0.95 << 1.3 << "met";
        QTest::newRow("5 pairs are too few, however clear")
            << QList<double>{1.2, 1.3, 1.1, 1.25, 1.4} << 1.25 << 0.0 << 0.0 << "not judged (5 pairs, fewer than 6)";
        // n = 20: [x_(6), x_(15)]. Five slow outliers cannot sink a row, a sixth leaves it open.
        QTest::newRow("20 pairs, five at 0.5")
            << (QList<double>{1.9, 0.96, 1.0, 1.08, 0.98, 1.01, 1.0, 1.02, 1.03, 1.05, 1.06, 1.1, 1.12, 1.15, 1.2} +
                repeated({{5, 0.5}}))
            << 1.015 << 0.96 << 1.08 << "met";
        QTest::newRow("20 pairs, six at 0.5")
            << (QList<double>{0.96, 0.98, 1.0, 1.0, 1.01, 1.02, 1.03, 1.05, 1.06, 1.08, 1.1, 1.12, 1.15, 1.2} +
                repeated({{6, 0.5}}))
            << 1.005 << 0.5 << 1.06 << "not judged (0.50..1.06 holds 0.95)";
        // n = 10: [x_(2), x_(9)]; one pair far above the goal does not save it.
        QTest::newRow("10 pairs below")
            << QList<double>{0.8, 0.85, 0.9, 0.88, 0.7, 0.92, 0.93, 0.86, 0.94, 1.3} << 0.89 << 0.8 << 0.94 << "NOT met";
        QTest::newRow("high end exactly at the goal")
            << QList<double>{0.96, 0.8, 0.85, 0.86, 0.88, 0.9, 0.91, 0.92, 0.93, 0.95} << 0.905 << 0.85 << 0.95
            << "not judged (0.85..0.95 holds 0.95)";
        // n = 100: [x_(40), x_(61)]. A spread like the loaded machine's (0.51..1.90) with a third of the pairs far
        // below the goal: many pairs conclude where a handful of rounds could not.
        QTest::newRow("100 pairs, spread 0.51..1.90")
            << repeated({{30, 0.51}, {9, 0.9}, {40, 1.0}, {20, 1.2}, {1, 1.9}}) << 1.0 << 1.0 << 1.0 << "met";
        QTest::newRow("100 pairs, the middle below")
            << repeated({{45, 0.51}, {20, 0.9}, {34, 1.2}, {1, 1.9}}) << 0.9 << 0.51 << 0.9 << "NOT met";
    }
    void judgeRatio() {
        QFETCH(QList<double>, ratios);
        QFETCH(double, median);
        QFETCH(double, low);
        QFETCH(double, high);
        QFETCH(QString, verdict);
        const MedianInterval interval = medianInterval(toVector(ratios));
        QCOMPARE(interval.count, static_cast<std::size_t>(ratios.size()));
        QCOMPARE(interval.median, median);
        QCOMPARE(interval.low, low);
        QCOMPARE(interval.high, high);
        const Judgement j = pacer::engine::judgeRatio(interval, 0.95);
        QCOMPARE(QString::fromStdString(j.text), verdict);
        const Verdict expected = verdict == "met"       ? Verdict::Met
                                 : verdict == "NOT met" ? Verdict::NotMet
                                                        : Verdict::NotJudged;
        QCOMPARE(j.verdict, expected);
    }

    // What the interval promises, checked: over many samples of a skewed distribution (exponential, median ln 2),
    // the interval holds the true median at least 95% of the time (exactly 1 - 0.041 = 95.9% at n = 20).
    void intervalHoldsTheMedian() {
        std::mt19937 random(11);
        std::exponential_distribution<double> draw(1.0);
        const double trueMedian = std::log(2.0);
        int held = 0;
        const int trials = 4000;
        for (int t = 0; t < trials; ++t) {
            std::vector<double> sample(20);
            for (double& x : sample) x = draw(random);
            const MedianInterval m = medianInterval(sample);
            held += m.low <= trueMedian && trueMedian <= m.high;
        }
        QVERIFY2(held >= 0.945 * trials, qPrintable(QString("held %1 of %2").arg(held).arg(trials)));
        QVERIFY2(held <= 0.975 * trials, qPrintable(QString("held %1 of %2").arg(held).arg(trials)));
    }

    // The goal's second half: auto is judged only where another algorithm is clearly ahead of the transport's own
    // (20 pairs: the interval is [x_(6), x_(15)]), against 1, and beside the best such algorithm by median.
    void aheadWherePoor_data() {
        QTest::addColumn<QList<double>>("ring");
        QTest::addColumn<QList<double>>("halvingDoubling");
        QTest::addColumn<QList<double>>("autoRatios");
        QTest::addColumn<qulonglong>("bytes");
        QTest::addColumn<QString>("expected");  // "" = not judged at all; else best algorithm and verdict
        const QList<double> clearlyAhead = repeated({{3, 0.9}, {17, 1.2}});    // low end x_(6) = 1.2
        const QList<double> furtherAhead = repeated({{3, 0.9}, {17, 1.3}});
        const QList<double> straddling = repeated({{8, 0.9}, {12, 1.1}});      // 0.9..1.1
        const QList<double> behind = repeated({{16, 0.9}, {4, 1.1}});          // high end x_(15) = 0.9
        const qulonglong mib32 = 32ull << 20;
        QTest::newRow("auto ahead where the ring is") << clearlyAhead << behind << clearlyAhead << mib32
                                                      << "ring ahead";
        QTest::newRow("auto behind where the ring is ahead") << clearlyAhead << behind << behind << mib32
                                                             << "ring NOT ahead";
        QTest::newRow("auto in the noise") << clearlyAhead << behind << straddling << mib32 << "ring not judged";
        QTest::newRow("the best of two ahead") << clearlyAhead << furtherAhead << clearlyAhead << mib32
                                               << "halving-doubling ahead";
        QTest::newRow("nobody clearly ahead: Gloo's choice is not poor")
            << straddling << behind << behind << mib32 << "";
        QTest::newRow("below 1 MiB: not judged") << clearlyAhead << behind << behind << 512ull * 1024 << "";
    }
    void aheadWherePoor() {
        QFETCH(QList<double>, ring);
        QFETCH(QList<double>, halvingDoubling);
        QFETCH(QList<double>, autoRatios);
        QFETCH(qulonglong, bytes);
        QFETCH(QString, expected);
        const std::map<std::string, std::vector<AllreduceBenchRow>> rows{
            {"auto", {rowOf(1 << 10, autoRatios, "native"), rowOf(bytes, autoRatios, "ring")}},
            {"ring", {rowOf(1 << 10, ring), rowOf(bytes, ring)}},
            {"halving-doubling", {rowOf(bytes, halvingDoubling)}}};
        const std::vector<AheadJudgement> judged = judgeAheadWherePoor(rows);
        if (expected.isEmpty()) {
            QVERIFY(judged.empty());
            return;
        }
        QCOMPARE(judged.size(), std::size_t(1));
        QCOMPARE(judged[0].bytes, bytes);
        QCOMPARE(judged[0].autoRow, &rows.at("auto")[1]);
        const char* verdict = judged[0].verdict == Verdict::Met      ? "ahead"
                              : judged[0].verdict == Verdict::NotMet ? "NOT ahead"
                                                                     : "not judged";
        QCOMPARE(QString::fromStdString(judged[0].best) + " " + verdict, expected);
        QCOMPARE(judged[0].bestRow->ratio.median, rows.at(judged[0].best).back().ratio.median);
    }
};

QTEST_GUILESS_MAIN(TestBenchJudgement)
#include "tst_bench_judgement.moc"
