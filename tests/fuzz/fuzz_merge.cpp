// `pacer-cli merge` of rank files (what a cluster launch leaves): the input holds two rank files, the first one's
// length in its first four bytes (little-endian; a length past the end makes it the only file). Merging must
// either add one run or fail with one line, and a failed merge must leave no project behind.
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <vector>

#include "fuzz_support.h"
#include "profiler/project.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace pacer;
    std::string_view bytes = fuzz::text(data, size);
    std::uint32_t first = 0;
    if (bytes.size() >= 4) {
        std::memcpy(&first, bytes.data(), 4);  // the fuzz machines and CI are little-endian
        bytes.remove_prefix(4);
    }
    std::vector<std::string> files{fuzz::writeScratch("rank-0.pacer", bytes.substr(0, first))};
    if (first < bytes.size()) files.push_back(fuzz::writeScratch("rank-1.pacer", bytes.substr(first)));
    else fuzz::removeScratch("rank-1.pacer");
    const std::string project = fuzz::scratchDir() + "/merged.pacer";
    fuzz::removeScratch("merged.pacer");
    auto merged = profiler::mergeRankFiles(files, project);
    if (!merged.ok()) {
        fuzz::checkErrorLine(merged.message());
        if (std::filesystem::exists(project)) fuzz::broken("a refused merge left a project behind", merged.message());
    } else {
        auto record = profiler::readRunRecord(project, merged.value());
        if (!record.ok()) fuzz::broken("a merged run does not read back", record.message());
    }
    fuzz::removeScratch("merged.pacer");
    return 0;
}
