// The profiler's error policy: functions return a Status (ok or a message) or a Result<T> (a value or a Status).
//
// No exceptions cross the library boundary. Messages say what and where, ready to print as one line
// ("trace.json: line 3: expected number for 'ts'"); the CLI prints them after "pacer-cli: error: " and exits 2.
// PROFILER_RETURN_IF_ERROR / PROFILER_ASSIGN_OR_RETURN keep call sites short, as Perfetto's RETURN_IF_ERROR does.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace pacer::profiler {

class [[nodiscard]] Status {
public:
    Status() = default;
    static Status error(std::string message) {
        Status s;
        s.message_ = std::move(message);
        s.ok_ = false;
        return s;
    }
    bool ok() const { return ok_; }
    explicit operator bool() const { return ok_; }
    const std::string& message() const { return message_; }
    // Prefixes context ("merge: ") to an error; leaves ok untouched.
    Status withContext(const std::string& prefix) const {
        return ok_ ? *this : error(prefix + message_);
    }

private:
    bool ok_ = true;
    std::string message_;
};

inline Status okStatus() { return Status(); }
inline Status errorStatus(std::string message) { return Status::error(std::move(message)); }

template <typename T>
class [[nodiscard]] Result {
public:
    Result(T value) : value_(std::move(value)) {}                    // NOLINT: implicit on purpose
    Result(Status status) : status_(std::move(status)) { assert(!status_.ok()); }  // NOLINT
    bool ok() const { return value_.has_value(); }
    explicit operator bool() const { return ok(); }
    const Status& status() const { return status_; }
    const std::string& message() const { return status_.message(); }
    T& value() & { assert(ok()); return *value_; }
    const T& value() const& { assert(ok()); return *value_; }
    T&& value() && { assert(ok()); return std::move(*value_); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }

private:
    std::optional<T> value_;
    Status status_;
};

}  // namespace pacer::profiler

#define PROFILER_STATUS_CONCAT_INNER(a, b) a##b
#define PROFILER_STATUS_CONCAT(a, b) PROFILER_STATUS_CONCAT_INNER(a, b)

#define PROFILER_RETURN_IF_ERROR(expr)                                   \
    do {                                                              \
        ::pacer::profiler::Status pacer_status_ = (expr);             \
        if (!pacer_status_.ok()) return pacer_status_;                \
    } while (0)

#define PROFILER_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
    auto tmp = (expr);                              \
    if (!tmp.ok()) return tmp.status();             \
    lhs = std::move(tmp).value()

#define PROFILER_ASSIGN_OR_RETURN(lhs, expr) \
    PROFILER_ASSIGN_OR_RETURN_IMPL(PROFILER_STATUS_CONCAT(pacer_result_, __LINE__), lhs, expr)
