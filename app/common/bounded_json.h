// Parsing JSON a person hands us (experiments, model files, priorities, the experiment kept in a run) with a
// bound on nesting. nlohmann's parser itself is iterative, but copying, printing, comparing and destroying a
// value recurse once per level: an experiment nested 200,000 levels deep parsed fine and then crashed the
// program (stack overflow). No file of ours nests beyond a handful of levels.
#pragma once

#include <nlohmann/json.hpp>

#include <istream>
#include <optional>
#include <string>
#include <string_view>

namespace pacer::app {

inline constexpr int kMaxJsonDepth = 128;

// The document, or nullopt with *error set to one line (the parser's message, or the depth that was exceeded).
std::optional<nlohmann::json> parseBoundedJson(std::istream& in, std::string* error);
std::optional<nlohmann::json> parseBoundedJson(std::string_view text, std::string* error);

}  // namespace pacer::app
