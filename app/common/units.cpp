#include "app/common/units.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace pacer::app {

std::optional<std::int64_t> parseSize(std::string_view text) {
    auto trim = [](std::string_view s) {
        while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
        while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
        return s;
    };
    text = trim(text);
    std::size_t numberEnd = 0;
    while (numberEnd < text.size() && (std::isdigit(static_cast<unsigned char>(text[numberEnd])) || text[numberEnd] == '.'))
        ++numberEnd;
    if (numberEnd == 0) return std::nullopt;
    double value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + numberEnd, value);
    if (ec != std::errc() || ptr != text.data() + numberEnd) return std::nullopt;
    const std::string_view unit = trim(text.substr(numberEnd));
    double scale = 0;
    if (unit.empty() || unit == "B") scale = 1;
    else if (unit == "KiB") scale = 1024.0;
    else if (unit == "MiB") scale = 1024.0 * 1024;
    else if (unit == "GiB") scale = 1024.0 * 1024 * 1024;
    else return std::nullopt;
    const double bytes = value * scale;
    if (!std::isfinite(bytes) || bytes < 0 || bytes > 1099511627776.0) return std::nullopt;
    if (bytes != std::floor(bytes)) return std::nullopt;  // "0.3B" is not a size
    return static_cast<std::int64_t>(bytes);
}

std::string formatSize(std::int64_t bytes) {
    static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (std::fabs(v) >= 1024 && u < 4) {
        v /= 1024;
        ++u;
    }
    char buf[32];
    if (v == std::floor(v)) std::snprintf(buf, sizeof buf, "%.0f %s", v, units[u]);
    else std::snprintf(buf, sizeof buf, "%.3g %s", v, units[u]);
    return buf;
}

}  // namespace pacer::app
