#include "profiler/sqlite_db.h"

namespace pacer::profiler::sql {
namespace {

// SQLite's messages quote the SQL they choke on: a corrupt schema's message carried its line breaks into ours
// (found by fuzz_project). Errors are one line, so control characters become spaces.
std::string oneLine(const char* message) {
    std::string s = message ? message : "unknown SQLite error";
    for (char& c : s)
        if (static_cast<unsigned char>(c) < 0x20) c = ' ';
    return s;
}

}  // namespace

Result<std::unique_ptr<Db>> Db::open(const std::string& path, Mode mode) {
    int flags = SQLITE_OPEN_NOMUTEX;
    switch (mode) {
        case Mode::ReadOnly: flags |= SQLITE_OPEN_READONLY; break;
        case Mode::ReadWrite: flags |= SQLITE_OPEN_READWRITE; break;
        case Mode::Create: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE; break;
    }
    sqlite3* raw = nullptr;
    const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
    if (rc != SQLITE_OK) {
        std::string msg = path + ": cannot open: " + oneLine(raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc));
        sqlite3_close(raw);
        return errorStatus(msg);
    }
    sqlite3_busy_timeout(raw, 5000);  // another process writing: wait at most 5 s, then report "database is locked"
    sqlite3_extended_result_codes(raw, 1);
    return std::unique_ptr<Db>(new Db(raw, path));
}

Db::~Db() { sqlite3_close_v2(db_); }

Status Db::error(std::string_view what) const {
    return errorStatus(path_ + ": " + std::string(what) + ": " + oneLine(sqlite3_errmsg(db_)));
}

Status Db::exec(std::string_view sqlText) {
    char* err = nullptr;
    const std::string text(sqlText);
    if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
        std::string msg = path_ + ": " + oneLine(err ? err : sqlite3_errmsg(db_));
        sqlite3_free(err);
        return errorStatus(msg);
    }
    return okStatus();
}

Result<Stmt> Db::prepare(std::string_view sqlText) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, sqlText.data(), static_cast<int>(sqlText.size()), &stmt, nullptr) != SQLITE_OK)
        return error("prepare");
    return Stmt(this, stmt);
}

bool Db::hasTable(const std::string& name) {
    auto st = prepare("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?");
    if (!st) return false;
    st->bind(1, name);
    Status s;
    return st->step(&s);
}

bool Stmt::step(Status* status) {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE && status) *status = db_->error("query");
    return false;
}

Status Stmt::run() {
    const int rc = sqlite3_step(stmt_);
    Status s = (rc == SQLITE_DONE || rc == SQLITE_ROW) ? okStatus() : db_->error("write");
    sqlite3_reset(stmt_);  // bindings stay: every caller binds every parameter before the next run
    return s;
}

}  // namespace pacer::profiler::sql
