// A priorities file (`replay --priorities FILE`): one priority per tensor, as a JSON array [3, 1, 2] or an object
// {"priorities": [...], ...} (a policy object as experiments and saved schedules hold it). Read with the bounded
// parser: a file nested thousands of levels deep is bad input, not a crash.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pacer::app {

// The priorities, or nullopt with *error set to one line (what was expected, the parser's message).
std::optional<std::vector<int>> parsePriorities(std::string_view text, std::string* error);

}  // namespace pacer::app
