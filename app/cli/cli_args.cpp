#include "app/cli/cli_args.h"

#include "app/common/units.h"

#include <charconv>
#include <cmath>

namespace pacer::cli {
namespace {

// 0.001 and 10000 as a user writes them (std::to_string gives "0.001000" and "10000.000000").
std::string shortest(double x) {
    char text[32];
    const auto [end, ec] = std::to_chars(text, text + sizeof text, x);
    return ec == std::errc() ? std::string(text, end) : std::to_string(x);
}

}  // namespace

Args Args::parse(const std::vector<std::string>& argv, const OptionSpec& spec) {
    Args a;
    for (std::size_t i = 0; i < argv.size(); ++i) {
        const std::string& arg = argv[i];
        if (arg.rfind("--", 0) != 0 || arg.size() == 2) {
            if (!spec.positionals) throw usageError("unexpected argument '" + arg + "'");
            a.positionals_.push_back(arg);
            continue;
        }
        std::string name = arg.substr(2);
        std::optional<std::string> inlineValue;
        if (auto eq = name.find('='); eq != std::string::npos) {
            inlineValue = name.substr(eq + 1);
            name = name.substr(0, eq);
        }
        if (spec.flags.count(name)) {
            if (inlineValue) throw usageError("option '--" + name + "' takes no value");
            a.flags_.insert(name);
        } else if (spec.valued.count(name)) {
            if (!inlineValue) {
                if (i + 1 >= argv.size()) throw usageError("option '--" + name + "' needs a value");
                inlineValue = argv[++i];
            }
            if (a.values_.count(name)) throw usageError("option '--" + name + "' given twice");
            a.values_[name] = *inlineValue;
        } else {
            throw usageError("unknown option '--" + name + "'");
        }
    }
    return a;
}

std::optional<std::string> Args::value(const std::string& name) const {
    auto it = values_.find(name);
    if (it == values_.end()) return std::nullopt;
    return it->second;
}

std::string Args::required(const std::string& name) const {
    auto v = value(name);
    if (!v) throw usageError("option '--" + name + "' is required");
    return *v;
}

std::optional<int> Args::integer(const std::string& name, int min, int max) const {
    auto v = value(name);
    if (!v) return std::nullopt;
    int out = 0;
    auto [ptr, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
    if (ec != std::errc() || ptr != v->data() + v->size() || out < min || out > max)
        throw usageError("--" + name + " must be a whole number from " + std::to_string(min) + " to " +
                         std::to_string(max) + ", got '" + *v + "'");
    return out;
}

std::optional<double> Args::number(const std::string& name, double min, double max) const {
    auto v = value(name);
    if (!v) return std::nullopt;
    double out = 0;
    auto [ptr, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
    if (ec != std::errc() || ptr != v->data() + v->size() || !std::isfinite(out) || out < min || out > max)
        throw usageError("--" + name + " must be a number from " + shortest(min) + " to " + shortest(max) + ", got '" +
                         *v + "'");
    return out;
}

std::optional<std::int64_t> Args::size(const std::string& name) const {
    auto v = value(name);
    if (!v) return std::nullopt;
    auto bytes = app::parseSize(*v);
    if (!bytes) throw usageError("--" + name + ": '" + *v + "' is not a size (examples: 4096, 64KiB, 4MiB, 1GiB)");
    if (*bytes == 0) throw usageError("--" + name + " must be above 0 bytes");
    return bytes;
}

std::optional<std::pair<std::int64_t, std::int64_t>> Args::sizeRange(const std::string& name) const {
    auto v = value(name);
    if (!v) return std::nullopt;
    const auto colon = v->find(':');
    if (colon == std::string::npos) throw usageError("--" + name + " must be MIN:MAX, e.g. 4KiB:256MiB");
    auto lo = app::parseSize(v->substr(0, colon)), hi = app::parseSize(v->substr(colon + 1));
    if (!lo || !hi || *lo == 0 || *lo > *hi)
        throw usageError("--" + name + ": '" + *v + "' is not a range of sizes MIN:MAX with 0 < MIN <= MAX");
    return std::make_pair(*lo, *hi);
}

std::optional<std::pair<int, int>> Args::integerRange(const std::string& name, int min, int max) const {
    auto v = value(name);
    if (!v) return std::nullopt;
    auto whole = [](const std::string& text) -> std::optional<int> {
        int out = 0;
        auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
        if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
        return out;
    };
    const auto colon = v->find(':');
    const auto lo = colon == std::string::npos ? std::nullopt : whole(v->substr(0, colon));
    const auto hi = colon == std::string::npos ? std::nullopt : whole(v->substr(colon + 1));
    if (!lo || !hi || *lo < min || *lo > *hi || *hi > max)
        throw usageError("--" + name + " must be MIN:MAX, whole numbers with " + std::to_string(min) +
                         " <= MIN <= MAX <= " + std::to_string(max) + ", got '" + *v + "'");
    return std::make_pair(*lo, *hi);
}

}  // namespace pacer::cli
