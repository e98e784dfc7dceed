#include "app/gui/timeline_tools.h"

#include "app/gui/analysis_panel.h"
#include "app/gui/range_stats_panel.h"
#include "app/gui/timeline_finder.h"
#include "app/gui/timeline_view.h"

#include <QAction>
#include <QDockWidget>
#include <QKeyEvent>
#include <QLineEdit>
#include <QMainWindow>
#include <QMenu>
#include <QToolBar>

namespace pacer::gui {

namespace {

// Shift+Enter in the find field triggers `action` instead of the field's returnPressed (which ignores modifiers).
class ShiftReturnFilter : public QObject {
public:
    ShiftReturnFilter(QAction* action, QObject* parent) : QObject(parent), m_action(action) {}
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        if (event->type() == QEvent::KeyPress) {
            const auto* key = static_cast<QKeyEvent*>(event);
            if ((key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) && (key->modifiers() & Qt::ShiftModifier)) {
                m_action->trigger();
                return true;
            }
        }
        return QObject::eventFilter(watched, event);
    }

private:
    QAction* m_action;
};

}  // namespace

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
    // Enter finds the next match, Shift+Enter the previous one (F3 and Shift+F3 from anywhere in the window).
    auto* finder = new TimelineFinder(timeline);
    auto* findNext = new QAction(QObject::tr("Find &Next"), window);
    findNext->setShortcut(QKeySequence::FindNext);
    auto* findPrevious = new QAction(QObject::tr("Find &Previous"), window);
    findPrevious->setShortcut(QKeySequence::FindPrevious);
    for (QAction* action : {findNext, findPrevious}) {
        const bool forward = action == findNext;
        QObject::connect(action, &QAction::triggered, finder, [finder, find, forward] { finder->find(find->text(), forward); });
        window->addAction(action);
        menu->addAction(action);
    }
    QObject::connect(find, &QLineEdit::returnPressed, findNext, &QAction::trigger);
    find->installEventFilter(new ShiftReturnFilter(findPrevious, find));
    QObject::connect(finder, &TimelineFinder::finished, find, [find](bool found, const QString& error) {
        find->setStyleSheet(found || find->text().isEmpty() ? QString() : QStringLiteral("background: #fde2e2"));
        find->setToolTip(found ? QString()
                         : !error.isEmpty() ? error
                                            : QObject::tr("No event's name contains \"%1\"").arg(find->text()));
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
