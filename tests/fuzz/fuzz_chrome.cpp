// Fuzz target for the Chrome trace importer (and the exporter on whatever imports). Any input must either parse
// or fail with a message naming the input; a parsed trace must export without trouble.
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <sstream>
#include <string_view>

#include "profiler/export_chrome.h"
#include "profiler/import_chrome.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace pacer::profiler;
    RunInfo info;
    auto trace = parseChromeTraceText(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json", &info);
    if (!trace.ok()) {
        if (trace.message().rfind("fuzz.json", 0) != 0 || trace.message().find('\n') != std::string::npos) {
            std::fprintf(stderr, "error message without its source or not one line: %s\n", trace.message().c_str());
            std::abort();
        }
        return 0;
    }
    std::ostringstream out;
    writeChromeTrace(out, *trace, info);
    return 0;
}
