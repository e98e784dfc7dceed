// Experiment files (what `capture --experiment` and the GUI's Run read): bounded JSON, then every field checked.
// An experiment that parses must survive its own resolved copy (what the launcher writes for the workers): the
// copy parses again to the same settings.
#include <cstdint>

#include "app/common/experiment.h"
#include "fuzz_json.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace pacer;
    auto doc = fuzz::parseJsonInput(data, size);
    if (!doc) return 0;
    std::string error;
    // Model file references resolve against the scratch directory, where there are none: an error, not a read.
    auto experiment = app::parseExperiment(*doc, fuzz::scratchDir(), &error);
    if (!experiment) {
        fuzz::checkErrorLine(error);
        return 0;
    }
    const nlohmann::json resolved = experiment->toJson();
    auto again = app::parseExperiment(resolved, fuzz::scratchDir(), &error);
    if (!again) fuzz::broken("the resolved copy of a valid experiment is refused", error);
    if (again->toJson() != resolved) fuzz::broken("the resolved copy changes on a second parse", resolved.dump());
    return 0;
}
