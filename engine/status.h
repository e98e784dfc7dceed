// The engine's error policy: functions return a Status or a Result<T>, never throw and never abort.
//
// A Status is either ok or carries one message a person can act on. PACER_CHECK records file:line so that a
// failure deep in the comm thread still says where it was detected; errors raised on the comm thread are kept
// and handed to whichever caller waits next (Runtime::waitReduced, waitAll, beginIteration).
#pragma once

#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace pacer::engine {

//
// C++ cannot give one class both a static ok() factory and an ok() query with the same parameters, so the query
// keeps the name ok() (as Result<T> has) and the factory is Status::success(); a default Status is also ok.
class [[nodiscard]] Status {
public:
    Status() = default;
    static Status success() { return Status(); }
    static Status error(std::string message) { return Status(std::move(message)); }

    bool ok() const { return !failed_; }
    explicit operator bool() const { return !failed_; }
    const std::string& message() const { return message_; }

private:
    explicit Status(std::string message) : failed_(true), message_(std::move(message)) {}

    bool failed_ = false;
    std::string message_;
};

// A value or the Status that explains why there is none.
template <typename T>
class [[nodiscard]] Result {
public:
    Result(T value) : state_(std::move(value)) {}                // NOLINT: implicit, like std::expected
    // Anything convertible to T (a unique_ptr to a derived class, say) converts in one step.
    template <typename U>
        requires(std::is_convertible_v<U &&, T> && !std::is_same_v<std::decay_t<U>, T> &&
                 !std::is_same_v<std::decay_t<U>, Status>)
    Result(U&& value) : state_(T(std::forward<U>(value))) {}     // NOLINT
    Result(Status status) : state_(std::move(status)) {}         // NOLINT
    bool ok() const { return std::holds_alternative<T>(state_); }
    explicit operator bool() const { return ok(); }
    // The error; an ok Status when a value is held.
    Status status() const { return ok() ? Status::success() : std::get<Status>(state_); }
    const std::string& message() const {
        static const std::string kNone;
        return ok() ? kNone : std::get<Status>(state_).message();
    }
    T& value() & { return std::get<T>(state_); }
    const T& value() const& { return std::get<T>(state_); }
    T&& value() && { return std::get<T>(std::move(state_)); }
    T* operator->() { return &value(); }
    T& operator*() & { return value(); }

private:
    std::variant<T, Status> state_;
};

namespace detail {
inline Status checkFailed(const char* file, int line, const std::string& what) {
    std::string f = file;
    const auto slash = f.find_last_of('/');
    if (slash != std::string::npos) f = f.substr(slash + 1);
    return Status::error(what + " [" + f + ":" + std::to_string(line) + "]");
}
}  // namespace detail

}  // namespace pacer::engine

// Returns an error Status (with file:line) from the enclosing function when cond is false.
#define PACER_CHECK(cond, msg)                                                                   \
    do {                                                                                         \
        if (!(cond)) return ::pacer::engine::detail::checkFailed(__FILE__, __LINE__, (msg));     \
    } while (0)

// Propagates a failed Status from an expression.
#define PACER_RETURN_IF_ERROR(expr)                                  \
    do {                                                             \
        ::pacer::engine::Status pacer_status_ = (expr);              \
        if (!pacer_status_.ok()) return pacer_status_;             \
    } while (0)
