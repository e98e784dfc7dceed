#include "app/common/priorities_file.h"

#include "app/common/bounded_json.h"

#include <cstdint>
#include <limits>

namespace pacer::app {

std::optional<std::vector<int>> parsePriorities(std::string_view text, std::string* error) {
    const std::string expected = "expected a JSON array of integer priorities, one per tensor";
    auto doc = parseBoundedJson(text, error);
    if (!doc) {
        *error = expected + " (" + *error + ")";
        return std::nullopt;
    }
    const nlohmann::json* list = &*doc;
    if (doc->is_object()) {
        auto it = doc->find("priorities");
        if (it == doc->end()) {
            *error = expected + " (an object needs a \"priorities\" key)";
            return std::nullopt;
        }
        list = &*it;
    }
    if (!list->is_array()) {
        *error = expected;
        return std::nullopt;
    }
    std::vector<int> out;
    out.reserve(list->size());
    for (const auto& v : *list) {
        // nlohmann's get<int>() narrows silently (2.9 → 2, 2^32 + 1 → 1): only whole numbers that fit are taken.
        bool fits = false;
        if (v.is_number_unsigned()) fits = v.get<std::uint64_t>() <= std::numeric_limits<int>::max();
        else if (v.is_number_integer())
            fits = v.get<std::int64_t>() >= std::numeric_limits<int>::min() &&
                   v.get<std::int64_t>() <= std::numeric_limits<int>::max();
        if (!fits) {
            *error = expected + " (entry " + std::to_string(out.size()) + " is " +
                     (v.is_number() ? v.dump() : std::string("a ") + v.type_name()) + ")";
            return std::nullopt;
        }
        out.push_back(v.get<int>());
    }
    return out;
}

}  // namespace pacer::app
