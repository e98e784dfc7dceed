// The zoom and pan state: anchored zoom, clamping to the data, the change signal.
#include "app/gui/models/zoom_state.h"

#include <QSignalSpy>
#include <QTest>

using pacer::gui::ZoomState;

class TestZoomState : public QObject {
    Q_OBJECT
private slots:
    void zoomKeepsAnchorInPlace_data()
    {
        QTest::addColumn<qint64>("anchor");
        QTest::addColumn<double>("factor");
        QTest::newRow("in at a quarter") << qint64(250'000) << 2.0;
        QTest::newRow("in at the start") << qint64(0) << 4.0;
        QTest::newRow("in at the end") << qint64(1'000'000) << 3.0;
        QTest::newRow("in deep") << qint64(600'000) << 1000.0;
    }
    void zoomKeepsAnchorInPlace()
    {
        QFETCH(qint64, anchor);
        QFETCH(double, factor);
        ZoomState zoom;
        zoom.setFullRange(0, 1'000'000);
        const double before = double(anchor - zoom.visibleStart()) / double(zoom.visibleLength());
        zoom.zoomAround(anchor, factor);
        QCOMPARE(zoom.visibleLength(), qint64(std::llround(1'000'000 / factor)));
        const double after = double(anchor - zoom.visibleStart()) / double(zoom.visibleLength());
        QVERIFY2(std::abs(after - before) < 1e-3, qPrintable(QStringLiteral("%1 vs %2").arg(before).arg(after)));
    }

    void zoomOutStopsAtFullRange()
    {
        ZoomState zoom;
        zoom.setFullRange(1000, 2000);
        zoom.zoomAround(1500, 4.0);
        QVERIFY(zoom.isZoomed());
        zoom.zoomAround(1500, 0.01);
        QCOMPARE(zoom.visibleStart(), qint64(1000));
        QCOMPARE(zoom.visibleEnd(), qint64(2000));
        QVERIFY(!zoom.isZoomed());
    }

    void zoomInStopsAtMinimum()
    {
        ZoomState zoom;
        zoom.setFullRange(0, 1'000'000);
        for (int i = 0; i < 100; ++i)
            zoom.zoomAround(500'000, 10.0);
        QCOMPARE(zoom.visibleLength(), ZoomState::kMinVisibleNs);
        QVERIFY(zoom.visibleStart() <= 500'000 && zoom.visibleEnd() >= 500'000);
    }

    void panClampsToData_data()
    {
        QTest::addColumn<qint64>("delta");
        QTest::addColumn<qint64>("start");
        QTest::newRow("later") << qint64(100) << qint64(350);
        QTest::newRow("earlier") << qint64(-100) << qint64(150);
        QTest::newRow("past the end") << qint64(10'000) << qint64(750);
        QTest::newRow("before the start") << qint64(-10'000) << qint64(0);
    }
    void panClampsToData()
    {
        QFETCH(qint64, delta);
        QFETCH(qint64, start);
        ZoomState zoom;
        zoom.setFullRange(0, 1000);
        zoom.setVisibleRange(250, 500);
        zoom.panBy(delta);
        QCOMPARE(zoom.visibleStart(), start);
        QCOMPARE(zoom.visibleLength(), qint64(250));
    }

    void signalsOnlyOnChange()
    {
        ZoomState zoom;
        QSignalSpy spy(&zoom, &ZoomState::visibleRangeChanged);
        zoom.setFullRange(0, 1000);
        QCOMPARE(spy.count(), 1);
        zoom.panBy(10);  // whole range visible: nothing to pan
        zoom.resetZoom();
        QCOMPARE(spy.count(), 1);
        zoom.zoomAround(500, 2.0);
        QCOMPARE(spy.count(), 2);
        QCOMPARE(spy.last().at(0).toLongLong(), zoom.visibleStart());
        QCOMPARE(spy.last().at(1).toLongLong(), zoom.visibleEnd());
        zoom.setFullRange(0, 1000);  // a new trace with the same extent still announces itself
        QCOMPARE(spy.count(), 3);
    }
};

QTEST_GUILESS_MAIN(TestZoomState)
#include "tst_zoom_state.moc"
