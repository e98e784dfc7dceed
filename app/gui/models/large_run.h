// A run too large to hold, as the timeline sees it: its outline, the coarse summary levels of each lane kept in
// memory (a peak-per-bucket mipmap, a few thousand cells a lane), and windows read as the view moves.
//
// Opening reads no event: lanes, iteration bands and the time span come from the outline, the first frames from
// the resident summary. A window is either the events of a range (when few enough start in it to hold, the
// fold then paints them as for any run) or the summary cells of a finer level for the range. Windows are read
// off the GUI thread (TimelineModel::requestRange) and arrive as a new TimelineIndex: lanes never change, so a
// window swap is not a model reset. Memory stays bounded by the budgets below, whatever the run's size.
#pragma once

#include "profiler/run_reader.h"

#include <QString>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace pacer::gui {

struct TimelineIndex;

// One lane's summary at one stored level over the buckets [firstBucket, lastBucket].
struct SummaryLevelCells {
    int level = 0;
    std::int64_t width = 0;  // ns per bucket
    std::int64_t firstBucket = 0;
    std::int64_t lastBucket = -1;
    std::vector<profiler::SummaryCell> cells;  // by bucket, empty buckets left out
};

// Budgets that keep memory bounded whatever the run's size (tests shrink them to reach every path).
struct LargeRunLimits {
    // Runs with more events than this are opened as a LargeRun; smaller ones are read whole.
    std::int64_t wholeRunEvents = 300'000;
    // A window reads the events of its range when at most this many start in it (all lanes), else summary cells.
    std::int64_t windowEvents = 200'000;
    // Levels with at most this many buckets a lane stay in memory for the whole run.
    std::int64_t residentCells = 8192;
};

struct LargeRun {
    LargeRunLimits limits;
    QString path;
    std::int64_t runId = 0;
    profiler::RunOutline outline;
    std::vector<std::vector<SummaryLevelCells>> resident;  // per lane (index order), coarsest first
};

// What a window holds for the range [start, end).
struct LargeRunWindow {
    std::int64_t start = 0;
    std::int64_t end = 0;
    bool events = false;  // the events of the range are in the index; else `cells` hold a finer summary
    int level = -1;       // the summary level of `cells`
    std::vector<SummaryLevelCells> cells;  // per lane
};

// Reads a run's outline and resident summary levels; nullptr and *error when the project cannot be read.
std::shared_ptr<const LargeRun> openLargeRun(const QString& path, std::int64_t runId, QString* error,
                                             const LargeRunLimits& limits = {});

// The index of a large run before any window: lanes, iteration bands, the run's span and priority range.
std::shared_ptr<const TimelineIndex> buildLargeRunIndex(std::shared_ptr<const LargeRun> run);

// What to read so that [t0, t1) at nsPerPixel has enough detail: the events of a wider range when few enough
// start there, else the summary at the level of about a pixel. Returns false when the index already has it.
bool planWindow(const TimelineIndex& index, std::int64_t t0, std::int64_t t1, double nsPerPixel, LargeRunWindow* plan);

// Reads a planned window (any thread) and returns the index that shows it; nullptr and *error on failure.
std::shared_ptr<const TimelineIndex> readLargeRunWindow(const TimelineIndex& index, const LargeRunWindow& plan,
                                                        QString* error);

// The event whose name contains `text` (ASCII letters in any case) that starts first after `from` (forward) or last
// before it, wrapping around, searched in the project file (any thread): the name table first, then each track's
// index from `from` to the nearest match. std::nullopt when none; also with *error set when the file cannot be read.
std::optional<profiler::TraceEvent> findInLargeRun(const LargeRun& run, const QString& text, std::int64_t from, bool forward,
                                                   QString* error);

}  // namespace pacer::gui
