// Model files (samples/models/*.json, or inline in an experiment): bounded JSON, then the spec's own checks. A
// spec that validates must say its size without overflow (the memory check before a capture relies on it).
#include <cstdint>
#include <stdexcept>

#include "fuzz_json.h"
#include "fuzz_support.h"
#include "kernels/model_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace pacer;
    auto doc = fuzz::parseJsonInput(data, size);
    if (!doc) return 0;
    try {
        const kernels::ModelSpec spec = kernels::parseModelSpec(*doc);
        spec.validate();
        (void)kernels::parameterCount(spec);
        (void)spec.inputSize();
        const kernels::ModelSpec again = kernels::parseModelSpec(kernels::toJson(spec));
        if (kernels::toJson(again) != kernels::toJson(spec))
            fuzz::broken("a model spec changes on a second parse", kernels::toJson(spec).dump());
    } catch (const std::invalid_argument& e) {
        fuzz::checkErrorLine(e.what());
    }
    return 0;
}
