// The command line of pacer-cli: "pacer-cli COMMAND [--option value | --flag | positional]...".
// Each command declares its options; anything else is bad usage (exit 2) with one line that names it.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace pacer::cli {

// Everything a command can fail with. code 2: bad usage or bad input; code 1: the run failed.
struct CliError : std::runtime_error {
    CliError(int code, const std::string& message) : std::runtime_error(message), code(code) {}
    int code;
};
inline CliError usageError(const std::string& message) { return CliError(2, message); }
inline CliError runError(const std::string& message) { return CliError(1, message); }

struct OptionSpec {
    std::set<std::string> valued;   // --name VALUE
    std::set<std::string> flags;    // --name
    bool positionals = false;       // free arguments allowed
};

class Args {
public:
    static Args parse(const std::vector<std::string>& argv, const OptionSpec& spec);  // throws CliError(2)

    bool has(const std::string& name) const { return values_.count(name) || flags_.count(name); }
    bool flag(const std::string& name) const { return flags_.count(name) > 0; }
    std::optional<std::string> value(const std::string& name) const;
    std::string required(const std::string& name) const;  // throws usage error when missing
    const std::vector<std::string>& positionals() const { return positionals_; }

    // Typed readers; each throws a usage error naming the option when the value is malformed.
    std::optional<int> integer(const std::string& name, int min, int max) const;
    std::optional<double> number(const std::string& name, double min, double max) const;
    std::optional<std::int64_t> size(const std::string& name) const;   // B, KiB, MiB, GiB
    // "MIN:MAX" sizes, e.g. 4KiB:256MiB
    std::optional<std::pair<std::int64_t, std::int64_t>> sizeRange(const std::string& name) const;
    // "MIN:MAX" whole numbers, min <= MIN <= MAX <= max, each read exactly (no "8.5", "8abc" or "+8")
    std::optional<std::pair<int, int>> integerRange(const std::string& name, int min, int max) const;

private:
    std::map<std::string, std::string> values_;
    std::set<std::string> flags_;
    std::vector<std::string> positionals_;
};

}  // namespace pacer::cli
