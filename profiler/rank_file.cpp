#include "profiler/rank_file.h"

#include <algorithm>
#include <unistd.h>

#include <filesystem>

#include "profiler/schema.h"
#include "profiler/sqlite_db.h"
#include "profiler/store.h"

namespace pacer::profiler {

RankFileWriter::~RankFileWriter() = default;

Result<std::unique_ptr<RankFileWriter>> RankFileWriter::create(const std::string& path, const RunInfo& run, int rank) {
    if (rank < 0) return errorStatus(path + ": negative rank " + std::to_string(rank));
    std::error_code ec;
    if (std::filesystem::exists(path, ec)) {
        // Only a file of ours may be replaced (a rerun into the same directory); anything else stays untouched.
        { PROFILER_ASSIGN_OR_RETURN(auto old, openStore(path, OpenFor::Read)); }
        for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix, ec);
    }
    std::unique_ptr<RankFileWriter> w(new RankFileWriter());
    w->path_ = path;
    w->rank_ = rank;
    PROFILER_ASSIGN_OR_RETURN(w->db_, openStore(path, OpenFor::CreateOrWrite));
    sql::Transaction tx(*w->db_);
    PROFILER_RETURN_IF_ERROR(tx.begun());
    PROFILER_ASSIGN_OR_RETURN(w->runId_, store::insertRunRow(*w->db_, run, "capture", ""));
    store::RankExtra extra;
    extra.rank = rank;
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) == 0) extra.hostname = host;  // which node, for multi-node merges
    PROFILER_RETURN_IF_ERROR(store::insertRanks(*w->db_, w->runId_, {extra}));
    if (!run.run_key.empty()) {
        PROFILER_ASSIGN_OR_RETURN(sql::Stmt key, w->db_->prepare("INSERT INTO PacerMeta(key, value) VALUES('run_key', ?)"));
        PROFILER_RETURN_IF_ERROR(key.bind(1, run.run_key).run());
    }
    // A rank file is written far more than it is read until merge: its time index on PACER_EVENTS is built once
    // at close() instead of on every insert (a file left by a crash still reads, only without the index).
    PROFILER_RETURN_IF_ERROR(w->db_->exec("DROP INDEX PACER_EVENTS_track_start"));
    PROFILER_RETURN_IF_ERROR(tx.commit());
    PROFILER_RETURN_IF_ERROR(w->db_->exec("PRAGMA cache_size=-65536"));
    PROFILER_ASSIGN_OR_RETURN(w->events_, store::EventWriter::create(*w->db_, w->runId_));
    return w;
}

Status RankFileWriter::writeTensors(const std::vector<TensorRecord>& tensors) {
    if (!db_) return errorStatus(path_ + ": rank file is closed");
    sql::Transaction tx(*db_);
    PROFILER_RETURN_IF_ERROR(tx.begun());
    PROFILER_RETURN_IF_ERROR(store::insertTensors(*db_, runId_, tensors));
    return tx.commit();
}

Status RankFileWriter::flush(CpuTracer& tracer) {
    if (!db_) return errorStatus(path_ + ": rank file is closed");
    sortBuffer_ = tracer.drain();
    // Records from several threads arrive interleaved; the store and every reader want (track, start) order.
    std::sort(sortBuffer_.begin(), sortBuffer_.end(), [](const TraceRecord& a, const TraceRecord& b) {
        return a.track != b.track ? a.track < b.track : a.start < b.start;
    });
    const std::vector<Track> tracks = tracer.tracks();
    const std::vector<std::string> names = tracer.names();

    sql::Transaction tx(*db_);
    PROFILER_RETURN_IF_ERROR(tx.begun());
    if (tracks.size() > tracksWritten_) {
        PROFILER_RETURN_IF_ERROR(store::insertTracks(
            *db_, runId_, std::vector<Track>(tracks.begin() + static_cast<std::ptrdiff_t>(tracksWritten_), tracks.end())));
    }
    for (std::size_t i = nameToStringId_.size(); i < names.size(); ++i) {
        PROFILER_ASSIGN_OR_RETURN(const std::int64_t id, events_->stringId(names[i]));
        nameToStringId_.push_back(id);
    }
    for (const TraceRecord& r : sortBuffer_) {
        if (r.track < 0 || static_cast<std::size_t>(r.track) >= tracks.size())
            return errorStatus(path_ + ": event on unknown track " + std::to_string(r.track));
        if (r.nameId >= static_cast<int>(nameToStringId_.size()))
            return errorStatus(path_ + ": event with unknown name id " + std::to_string(r.nameId));
        const std::int64_t nameId = r.nameId >= 0 ? nameToStringId_[static_cast<std::size_t>(r.nameId)] : -1;
        PROFILER_RETURN_IF_ERROR(events_->add(r.kind, r.track, nameId, r.start, r.end, 0, r.iteration, r.layer, r.tensor,
                                           r.segment, r.bytes, r.priority));
    }
    PROFILER_RETURN_IF_ERROR(updateRank("dropped", static_cast<std::int64_t>(tracer.dropped() + extraDropped_)));
    PROFILER_RETURN_IF_ERROR(tx.commit());
    tracksWritten_ = tracks.size();
    eventsWritten_ += static_cast<std::int64_t>(sortBuffer_.size());
    sortBuffer_.clear();
    return okStatus();
}

Status RankFileWriter::writeEvents(const std::vector<Track>& tracks, const std::vector<TraceEvent>& events,
                                   std::uint64_t dropped) {
    if (!db_) return errorStatus(path_ + ": rank file is closed");
    std::vector<Track> fresh;
    for (Track t : tracks) {
        if (static_cast<std::size_t>(t.id) < tracksWritten_ && !extraTracks_.count(t.id))
            return errorStatus(path_ + ": track id " + std::to_string(t.id) + " is taken by the CPU tracer");
        t.rank = rank_;
        if (extraTracks_.insert(t.id).second) fresh.push_back(std::move(t));
    }
    sql::Transaction tx(*db_);
    PROFILER_RETURN_IF_ERROR(tx.begun());
    PROFILER_RETURN_IF_ERROR(store::insertTracks(*db_, runId_, fresh));
    for (const TraceEvent& e : events) {
        if (!extraTracks_.count(e.track))
            return errorStatus(path_ + ": event '" + e.name + "' on unknown track " + std::to_string(e.track));
        if (e.end < e.start) return errorStatus(path_ + ": event '" + e.name + "' ends before it starts");
        std::int64_t nameId = -1;
        if (!e.name.empty()) { PROFILER_ASSIGN_OR_RETURN(nameId, events_->stringId(e.name)); }
        PROFILER_RETURN_IF_ERROR(events_->add(e.kind, e.track, nameId, e.start, e.end, e.correlation, e.iteration, e.layer,
                                           e.tensor, e.segment, e.bytes, e.priority));
    }
    extraDropped_ += dropped;
    PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db_->prepare("UPDATE ranks SET dropped=dropped+? WHERE run_id=? AND rank=?"));
    PROFILER_RETURN_IF_ERROR(st.bind(1, static_cast<std::int64_t>(dropped)).bind(2, runId_).bind(3, rank_).run());
    PROFILER_RETURN_IF_ERROR(tx.commit());
    eventsWritten_ += static_cast<std::int64_t>(events.size());
    return okStatus();
}

Status RankFileWriter::updateRank(const char* column, std::int64_t value) {
    PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db_->prepare(std::string("UPDATE ranks SET ") + column +
                                                      "=? WHERE run_id=? AND rank=?"));
    return st.bind(1, value).bind(2, runId_).bind(3, rank_).run();
}

Status RankFileWriter::setMetric(const std::string& key, double value) {
    if (!db_) return errorStatus(path_ + ": rank file is closed");
    if (key.empty()) return errorStatus(path_ + ": metric with an empty name");
    PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db_->prepare(
        "INSERT OR REPLACE INTO run_metrics(run_id, rank, key, value) VALUES(?,?,?,?)"));
    return st.bind(1, runId_).bind(2, rank_).bind(3, key).bind(4, value).run();
}

Status RankFileWriter::setClockOffset(std::int64_t offsetNs) {
    if (!db_) return errorStatus(path_ + ": rank file is closed");
    return updateRank("clock_offset_ns", offsetNs);
}

Status RankFileWriter::setHostname(const std::string& hostname) {
    if (!db_) return errorStatus(path_ + ": rank file is closed");
    PROFILER_ASSIGN_OR_RETURN(sql::Stmt st, db_->prepare("UPDATE ranks SET hostname=? WHERE run_id=? AND rank=?"));
    return st.bind(1, hostname).bind(2, runId_).bind(3, rank_).run();
}

Status RankFileWriter::close() {
    if (!db_) return okStatus();
    events_.reset();  // finalises its statements before the connection goes
    Status s = db_->exec("CREATE INDEX IF NOT EXISTS PACER_EVENTS_track_start ON PACER_EVENTS(run_id, track, start)");
    if (s.ok()) s = db_->exec("PRAGMA wal_checkpoint(TRUNCATE)");
    db_.reset();
    return s;
}

}  // namespace pacer::profiler
