// The figures of the analysis panel and the range table as CSV (RFC 4180: a header row, names quoted when they
// hold a comma, quote or line break), durations in integer nanoseconds so that a spreadsheet gets exact numbers.
// The header row is also what an export may replace: only an earlier CSV of the same table is overwritten.
#pragma once

#include "app/gui/models/range_stats_model.h"
#include "profiler/analysis/trace_analysis.h"

#include <QByteArray>

#include <vector>

namespace pacer::gui {

inline constexpr const char* kRangeCsvHeader = "name,count,total_ns,mean_ns\n";
inline constexpr const char* kAnalysisCsvHeader =
    "rank,span_ns,compute_ns,exposed_comm_ns,idle_ns,comm_ns,overlap_percent,collectives_started_last,"
    "mean_lateness_ns,straggler\n";

QByteArray rangeStatsCsv(const std::vector<RangeStat>& stats);
QByteArray analysisCsv(const profiler::analysis::RunAnalysis& analysis);

}  // namespace pacer::gui
