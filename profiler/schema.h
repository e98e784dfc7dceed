// The project file's schema and how a file is opened: created, checked, migrated or refused.
//
// A project is one SQLite file. Table names follow Nsight Systems' export (StringIds, CUPTI_ACTIVITY_KIND_*,
// NVTX_EVENTS, int64 ns start/end, names as string ids) with run_id/track columns added; Pacer's own tables hold
// experiments, runs, ranks, tracks, tensors, segments, schedules, metrics, the per-track summary and the compare
// view's pins.
// A file is ours when PRAGMA application_id says so; PRAGMA user_version is the schema version. An older file is
// migrated in one transaction; a newer or foreign one is refused before anything is written.
#pragma once

#include <memory>
#include <string>

#include "profiler/sqlite_db.h"
#include "profiler/status.h"

namespace pacer::profiler {

inline constexpr int kPacerApplicationId = 0x50414345;  // "PACE"
inline constexpr int kSchemaVersion = 4;

enum class OpenFor {
    Read,            // must exist; migrated if older
    Write,           // must exist; migrated if older
    CreateOrWrite,   // created (with the schema) when missing or empty
};

// Opens a project or rank file, applying the checks above. WAL mode for writers.
Result<std::unique_ptr<sql::Db>> openStore(const std::string& path, OpenFor intent);

// Creates the tables of the given schema version in an empty database (older versions exist for migration tests).
Status createSchema(sql::Db& db, int version);

}  // namespace pacer::profiler
