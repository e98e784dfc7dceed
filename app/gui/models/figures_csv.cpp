#include "app/gui/models/figures_csv.h"

#include <cmath>

namespace pacer::gui {
namespace {

QByteArray quoted(const QString& text)
{
    QByteArray bytes = text.toUtf8();
    if (!bytes.contains(',') && !bytes.contains('"') && !bytes.contains('\n') && !bytes.contains('\r'))
        return bytes;
    bytes.replace("\"", "\"\"");
    return '"' + bytes + '"';
}

QByteArray number(std::int64_t n)
{
    return QByteArray::number(static_cast<qlonglong>(n));
}

}  // namespace

QByteArray rangeStatsCsv(const std::vector<RangeStat>& stats)
{
    QByteArray csv(kRangeCsvHeader);
    for (const RangeStat& s : stats)
        csv += quoted(s.name) + ',' + number(s.count) + ',' + number(s.totalNs) + ',' +
               number(static_cast<std::int64_t>(std::llround(s.meanNs()))) + '\n';
    return csv;
}

QByteArray analysisCsv(const profiler::analysis::RunAnalysis& analysis)
{
    QByteArray csv(kAnalysisCsvHeader);
    for (const auto& r : analysis.ranks)
        csv += QByteArray::number(r.rank) + ',' + number(r.span_ns) + ',' + number(r.compute_ns) + ',' +
               number(r.exposed_comm_ns) + ',' + number(r.idle_ns) + ',' + number(r.comm_ns) + ',' +
               QByteArray::number(r.overlapPercent(), 'f', 2) + ',' + QByteArray::number(r.last_starts) + ',' +
               number(static_cast<std::int64_t>(std::llround(r.mean_lateness_ns))) + ',' +
               (r.rank == analysis.straggler_rank ? "yes" : "no") + '\n';
    return csv;
}

}  // namespace pacer::gui
