#include "app/common/bounded_json.h"

#include <stdexcept>

namespace pacer::app {
namespace {

struct TooDeep : std::runtime_error {
    TooDeep() : std::runtime_error("nested more than " + std::to_string(kMaxJsonDepth) + " levels deep") {}
};

template <typename Input>
std::optional<nlohmann::json> parse(Input&& input, std::string* error) {
    // The callback sees every value with its depth before it is attached: the first too deep one stops the parse,
    // and what was built so far is at most kMaxJsonDepth deep, so destroying it is safe.
    auto bound = [](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
        if (depth > kMaxJsonDepth) throw TooDeep();
        return true;
    };
    try {
        return nlohmann::json::parse(std::forward<Input>(input), bound);
    } catch (const TooDeep& e) {
        *error = e.what();
    } catch (const nlohmann::json::exception& e) {
        *error = e.what();
    }
    return std::nullopt;
}

}  // namespace

std::optional<nlohmann::json> parseBoundedJson(std::istream& in, std::string* error) { return parse(in, error); }
std::optional<nlohmann::json> parseBoundedJson(std::string_view text, std::string* error) { return parse(text, error); }

}  // namespace pacer::app
