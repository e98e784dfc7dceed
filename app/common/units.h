// Human units on the command line and in experiment files: sizes such as "512KiB" or "4 MiB", durations in ms.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pacer::app {

// "4096", "4096B", "64KiB", "1.5 MiB", "2GiB" -> bytes; nullopt when malformed, negative or absurd (> 1 TiB).
std::optional<std::int64_t> parseSize(std::string_view text);
// 1048576 -> "1 MiB", 1536 -> "1.5 KiB"
std::string formatSize(std::int64_t bytes);

}  // namespace pacer::app
