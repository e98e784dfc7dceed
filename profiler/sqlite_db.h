// A thin RAII layer over the SQLite C API for the profiler's store: one connection, prepared statements, and
// transactions that roll back unless committed. Errors come back as Status with the file name and SQLite's text.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "profiler/status.h"

namespace pacer::profiler::sql {

class Stmt;

class Db {
public:
    enum class Mode { ReadOnly, ReadWrite, Create };
    static Result<std::unique_ptr<Db>> open(const std::string& path, Mode mode);
    ~Db();
    Db(const Db&) = delete;
    Db& operator=(const Db&) = delete;

    sqlite3* handle() const { return db_; }
    const std::string& path() const { return path_; }

    Status exec(std::string_view sqlText);
    Result<Stmt> prepare(std::string_view sqlText);
    Status error(std::string_view what) const;  // "path: what: sqlite message"
    bool hasTable(const std::string& name);
    std::int64_t lastInsertId() const { return sqlite3_last_insert_rowid(db_); }

private:
    Db(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
    sqlite3* db_;
    std::string path_;
};

class Stmt {
public:
    Stmt(Db* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
    Stmt(Stmt&& other) noexcept : db_(other.db_), stmt_(other.stmt_) { other.stmt_ = nullptr; }
    Stmt& operator=(Stmt&&) = delete;
    ~Stmt() { sqlite3_finalize(stmt_); }

    Stmt& bind(int i, std::int64_t v) { sqlite3_bind_int64(stmt_, i, v); return *this; }
    Stmt& bind(int i, int v) { sqlite3_bind_int64(stmt_, i, v); return *this; }
    Stmt& bind(int i, double v) { sqlite3_bind_double(stmt_, i, v); return *this; }
    Stmt& bind(int i, std::string_view v) {
        sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
        return *this;
    }
    Stmt& bind(int i, const char* v) { return bind(i, std::string_view(v)); }
    Stmt& bind(int i, const std::string& v) { return bind(i, std::string_view(v)); }
    Stmt& bindNull(int i) { sqlite3_bind_null(stmt_, i); return *this; }

    // One row: true while rows come, false when done; errors go to *status.
    bool step(Status* status);
    // Runs a statement that returns no rows, then resets it for the next binding (bindings are kept).
    Status run();
    void reset() { sqlite3_reset(stmt_); sqlite3_clear_bindings(stmt_); }

    std::int64_t i64(int col) const { return sqlite3_column_int64(stmt_, col); }
    int i32(int col) const { return sqlite3_column_int(stmt_, col); }
    double f64(int col) const { return sqlite3_column_double(stmt_, col); }
    bool isNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
    std::string text(int col) const {
        const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
        return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col))) : std::string();
    }
    // A BLOB column's bytes, valid until the next step (empty for NULL).
    std::string_view blob(int col) const {
        const auto* p = static_cast<const char*>(sqlite3_column_blob(stmt_, col));
        return p ? std::string_view(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col))) : std::string_view();
    }

private:
    Db* db_;
    sqlite3_stmt* stmt_;
};

// BEGIN IMMEDIATE on construction; ROLLBACK on destruction unless commit() succeeded.
class Transaction {
public:
    explicit Transaction(Db& db) : db_(db) { status_ = db_.exec("BEGIN IMMEDIATE"); }
    ~Transaction() {
        if (status_.ok() && !done_) (void)db_.exec("ROLLBACK");
    }
    const Status& begun() const { return status_; }
    Status commit() {
        done_ = true;
        return db_.exec("COMMIT");
    }

private:
    Db& db_;
    Status status_;
    bool done_ = false;
};

}  // namespace pacer::profiler::sql
