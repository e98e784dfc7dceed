// What the main window adds around the timeline for finding and measuring: the range table (a dock that a
// range selection fills and shows), a find field in the toolbar (Ctrl+F; Enter or F3 for the next match, Shift+Enter or
// Shift+F3 for the previous; timeline_finder.h) and the
// Fit Selection action (F); and the analysis dock. Kept apart from main_window.cpp so that other panels can be wired the same way.
#pragma once

class QMainWindow;
class QMenu;
class QToolBar;

namespace pacer::gui {

class TimelineView;
class RangeStatsPanel;
class AnalysisPanel;

RangeStatsPanel* addTimelineTools(QMainWindow* window, TimelineView* timeline, QToolBar* bar, QMenu* menu);
// The analysis dock (hidden until asked for from the menu), refreshed whenever the timeline shows another run.
AnalysisPanel* addAnalysisPanel(QMainWindow* window, TimelineView* timeline, QMenu* menu);

}  // namespace pacer::gui
