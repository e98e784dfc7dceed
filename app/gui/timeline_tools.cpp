#include "app/gui/timeline_tools.h"

#include "app/gui/analysis_panel.h"
#include "app/gui/range_stats_panel.h"
#include "app/gui/timeline_view.h"

#include <QAction>
#include <QDockWidget>
#include <QLineEdit>
#include <QMainWindow>
#include <QMenu>
#include <QToolBar>

namespace pacer::gui {

RangeStatsPanel* addTimelineTools(QMainWindow* window, TimelineView* timeline, QToolBar* bar, QMenu* menu)
{
    auto* panel = new RangeStatsPanel;
    auto* dock = new QDockWidget(QObject::tr("Selected Range"), window);
    dock->setObjectName(QStringLiteral("rangeStatsDock"));
    dock->setWidget(panel);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetClosable);
    window->addDockWidget(Qt::BottomDockWidgetArea, dock);
    dock->hide();  // until a range is selected
    QObject::connect(timeline, &TimelineView::rangeSelected, panel, [panel, dock, timeline](qint64 start, qint64 end) {
        panel->showRange(*timeline->model(), start, end);
        dock->show();
    });
    QObject::connect(timeline, &TimelineView::rangeCleared, panel, &RangeStatsPanel::clear);

    auto* fit = new QAction(QObject::tr("&Fit Selection"), window);
    fit->setShortcut(QKeySequence(Qt::Key_F));
    fit->setShortcutContext(Qt::WidgetShortcut);  // the timeline handles F itself; this is for the menu
    QObject::connect(fit, &QAction::triggered, timeline, &TimelineView::fitSelection);
    menu->addAction(fit);
    menu->addAction(dock->toggleViewAction());

    auto* find = new QLineEdit;
    find->setObjectName(QStringLiteral("findField"));
    find->setPlaceholderText(QObject::tr("Find event (Ctrl+F)"));
    find->setClearButtonEnabled(true);
    find->setMaximumWidth(220);
    bar->addSeparator();
    bar->addWidget(find);
    auto* focusFind = new QAction(QObject::tr("&Find Event…"), window);
    focusFind->setShortcut(QKeySequence::Find);
    QObject::connect(focusFind, &QAction::triggered, find, [find] {
        find->setFocus();
        find->selectAll();
    });
    window->addAction(focusFind);
    menu->addAction(focusFind);
    QObject::connect(find, &QLineEdit::returnPressed, timeline, [find, timeline] {
        const bool found = timeline->findNext(find->text());
        find->setStyleSheet(found || find->text().isEmpty() ? QString() : QStringLiteral("background: #fde2e2"));
        find->setToolTip(found ? QString() : QObject::tr("No event's name contains \"%1\"").arg(find->text()));
    });
    return panel;
}

AnalysisPanel* addAnalysisPanel(QMainWindow* window, TimelineView* timeline, QMenu* menu)
{
    auto* panel = new AnalysisPanel(timeline);
    auto* dock = new QDockWidget(QObject::tr("Analysis"), window);
    dock->setObjectName(QStringLiteral("analysisDock"));
    dock->setWidget(panel);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetClosable);
    window->addDockWidget(Qt::BottomDockWidgetArea, dock);
    dock->hide();
    QObject::connect(timeline->model(), &QAbstractItemModel::modelReset, panel, &AnalysisPanel::refresh);
    QAction* toggle = dock->toggleViewAction();
    toggle->setText(QObject::tr("&Analysis"));
    menu->addAction(toggle);
    panel->refresh();
    return panel;
}

}  // namespace pacer::gui
