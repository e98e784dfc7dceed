// The rank file: what one rank writes while it trains. Same schema as a project, holding one run and one rank,
// so `pacer-cli merge` (mergeRankFiles) can read it back with the project reader and check it the same way.
//
// The worker creates it at start, calls flush(tracer) at iteration boundaries (each flush sorts what the tracer
// holds and writes it in one transaction, so a crash loses at most the last unflushed batch), sets metrics at
// the end and closes it.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "profiler/cpu_tracer.h"
#include "profiler/run_info.h"
#include "profiler/status.h"
#include "profiler/trace_model.h"

namespace pacer::profiler {

namespace sql { class Db; }
namespace store { class EventWriter; }

class RankFileWriter {
public:
    // Replaces an older Pacer file at `path`; refuses a foreign one.
    static Result<std::unique_ptr<RankFileWriter>> create(const std::string& path, const RunInfo& run, int rank);
    ~RankFileWriter();

    Status writeTensors(const std::vector<TensorRecord>& tensors);
    Status flush(CpuTracer& tracer);   // sorts and writes what the tracer holds, in one transaction
    // Events that come as TraceEvents (the CUPTI tracer's), with their tracks; ids must not clash with the CPU
    // tracer's (CuptiTracer numbers from 1000). Adds `dropped` to the rank's dropped count.
    Status writeEvents(const std::vector<Track>& tracks, const std::vector<TraceEvent>& events,
                       std::uint64_t dropped = 0);
    Status setMetric(const std::string& key, double value);  // e.g. iter_ms, loss, param_hash
    // This rank's clock minus the reference clock is -offset: merge adds the offset to every time of this rank.
    Status setClockOffset(std::int64_t offsetNs);
    Status setHostname(const std::string& hostname);
    Status close();   // checkpoints the WAL into the file so it can be copied alone

    std::int64_t eventsWritten() const { return eventsWritten_; }

private:
    RankFileWriter() = default;
    Status updateRank(const char* column, std::int64_t value);

    std::string path_;
    int rank_ = 0;
    std::int64_t runId_ = 0;
    std::unique_ptr<sql::Db> db_;
    std::unique_ptr<store::EventWriter> events_;
    std::size_t tracksWritten_ = 0;
    std::set<int> extraTracks_;       // written through writeEvents
    std::uint64_t extraDropped_ = 0;
    std::vector<std::int64_t> nameToStringId_;  // tracer name id -> StringIds id
    std::int64_t eventsWritten_ = 0;
    std::vector<TraceRecord> sortBuffer_;
};

}  // namespace pacer::profiler
