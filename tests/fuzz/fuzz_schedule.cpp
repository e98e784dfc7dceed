// Schedule and priorities files: the same bytes read as a saved schedule's settings (what the GUI stores and
// loads back: {"policy": {...}, "what_if": {...}}) and as a `replay --priorities` file. A schedule that reads back
// must read back the same after being written again.
#include <cstdint>

#include "app/common/policy_json.h"
#include "app/common/priorities_file.h"
#include "fuzz_json.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace pacer;
    std::string error;
    if (!app::parsePriorities(fuzz::text(data, size), &error)) fuzz::checkErrorLine(error);

    auto doc = fuzz::parseJsonInput(data, size);
    if (!doc) return 0;
    engine::PolicyConfig config;
    engine::WhatIf whatIf;
    if (!app::scheduleSettingsFromJson(*doc, &config, &whatIf, &error)) {
        fuzz::checkErrorLine(error);
        return 0;
    }
    const nlohmann::json written = app::scheduleSettingsToJson(config, whatIf);
    engine::PolicyConfig config2;
    engine::WhatIf whatIf2;
    if (!app::scheduleSettingsFromJson(written, &config2, &whatIf2, &error))
        fuzz::broken("a schedule written back is refused", error);
    if (app::scheduleSettingsToJson(config2, whatIf2) != written)
        fuzz::broken("a schedule changes when written and read again", written.dump());
    return 0;
}
