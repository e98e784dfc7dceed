// Time-to-pixel mapping, ruler tick steps and labels, without widgets.
#include "app/gui/models/time_axis.h"

#include <QTest>

using pacer::gui::TimeAxis;

class TestTimeAxis : public QObject {
    Q_OBJECT
private slots:
    void mapsBothWays_data()
    {
        QTest::addColumn<qint64>("start");
        QTest::addColumn<qint64>("end");
        QTest::addColumn<double>("left");
        QTest::addColumn<double>("width");
        QTest::addColumn<qint64>("time");
        QTest::addColumn<double>("x");
        QTest::newRow("origin") << qint64(0) << qint64(1000) << 0.0 << 100.0 << qint64(0) << 0.0;
        QTest::newRow("end") << qint64(0) << qint64(1000) << 0.0 << 100.0 << qint64(1000) << 100.0;
        QTest::newRow("header offset") << qint64(0) << qint64(1000) << 120.0 << 100.0 << qint64(500) << 170.0;
        QTest::newRow("shifted start") << qint64(5'000'000) << qint64(6'000'000) << 0.0 << 1000.0 << qint64(5'250'000) << 250.0;
        QTest::newRow("before start") << qint64(1000) << qint64(2000) << 0.0 << 100.0 << qint64(500) << -50.0;
        QTest::newRow("huge times") << qint64(1'700'000'000'000'000'000) << qint64(1'700'000'000'010'000'000) << 0.0 << 1000.0
                                    << qint64(1'700'000'000'005'000'000) << 500.0;
    }
    void mapsBothWays()
    {
        QFETCH(qint64, start);
        QFETCH(qint64, end);
        QFETCH(double, left);
        QFETCH(double, width);
        QFETCH(qint64, time);
        QFETCH(double, x);
        const TimeAxis axis{start, end, left, width};
        QCOMPARE(axis.toX(time), x);
        QCOMPARE(axis.toTime(x), time);
    }

    void niceTickStep_data()
    {
        QTest::addColumn<qint64>("visible");
        QTest::addColumn<double>("width");
        QTest::addColumn<qint64>("step");
        // 90 px minimum spacing: the step is the first 1-2-5 value at or above visible * 90 / width.
        QTest::newRow("10 ms on 900 px") << qint64(10'000'000) << 900.0 << qint64(1'000'000);
        QTest::newRow("10 ms on 450 px") << qint64(10'000'000) << 450.0 << qint64(2'000'000);
        QTest::newRow("10 ms on 300 px") << qint64(10'000'000) << 300.0 << qint64(5'000'000);
        QTest::newRow("10 ms on 100 px") << qint64(10'000'000) << 100.0 << qint64(10'000'000);
        QTest::newRow("exact fit stays") << qint64(2'000) << 90.0 << qint64(2'000);
        QTest::newRow("just above rounds up") << qint64(2'001) << 90.0 << qint64(5'000);
        QTest::newRow("1 µs on 1000 px") << qint64(1'000) << 1000.0 << qint64(100);
        QTest::newRow("never below 1 ns") << qint64(5) << 2000.0 << qint64(1);
        QTest::newRow("3 s on 1200 px") << qint64(3'000'000'000) << 1200.0 << qint64(500'000'000);
        QTest::newRow("empty range") << qint64(0) << 900.0 << qint64(1);
        QTest::newRow("no width") << qint64(1000) << 0.0 << qint64(1);
    }
    void niceTickStep()
    {
        QFETCH(qint64, visible);
        QFETCH(double, width);
        QFETCH(qint64, step);
        QCOMPARE(pacer::gui::niceTickStep(visible, width), step);
    }

    void tickLabel_data()
    {
        QTest::addColumn<qint64>("time");
        QTest::addColumn<qint64>("step");
        QTest::addColumn<QString>("label");
        QTest::newRow("zero") << qint64(0) << qint64(1'000'000) << "0";
        QTest::newRow("whole ms") << qint64(3'000'000) << qint64(1'000'000) << "3 ms";
        QTest::newRow("250 µs step in ms") << qint64(1'250'000) << qint64(250'000) << "1.25 ms";
        QTest::newRow("500 µs step in ms") << qint64(1'500'000) << qint64(500'000) << "1.5 ms";
        QTest::newRow("µs") << qint64(40'000) << qint64(20'000) << "40 µs";
        QTest::newRow("ns") << qint64(700) << qint64(100) << "700 ns";
        QTest::newRow("s") << qint64(2'500'000'000) << qint64(500'000'000) << "2.5 s";
    }
    void tickLabel()
    {
        QFETCH(qint64, time);
        QFETCH(qint64, step);
        QFETCH(QString, label);
        QCOMPARE(pacer::gui::formatTickLabel(time, step), label);
    }

    void humanFormats()
    {
        QCOMPARE(pacer::gui::formatDuration(830), QStringLiteral("830 ns"));
        QCOMPARE(pacer::gui::formatDuration(12'400), QStringLiteral("12.40 µs"));
        QCOMPARE(pacer::gui::formatDuration(3'210'000), QStringLiteral("3.210 ms"));
        QCOMPARE(pacer::gui::formatBytes(512), QStringLiteral("512 B"));
        QCOMPARE(pacer::gui::formatBytes(98'304), QStringLiteral("96.0 KiB"));
        QCOMPARE(pacer::gui::formatBytes(25 << 20), QStringLiteral("25.0 MiB"));
    }
};

QTEST_GUILESS_MAIN(TestTimeAxis)
#include "tst_time_axis.moc"
