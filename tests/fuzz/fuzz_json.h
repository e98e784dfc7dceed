// The JSON targets' first step: the bounded parse every file a user hands Pacer goes through. A refusal must be
// one line; the targets go on with the document when there is one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "app/common/bounded_json.h"
#include "fuzz_support.h"

namespace pacer::fuzz {

inline std::optional<nlohmann::json> parseJsonInput(const std::uint8_t* data, std::size_t size) {
    std::string error;
    auto doc = app::parseBoundedJson(text(data, size), &error);
    if (!doc) checkErrorLine(error);
    return doc;
}

}  // namespace pacer::fuzz
