// Nsight Systems SQLite import: arbitrary bytes (mutated database images) written to a file and imported. SQLite
// must reject corrupt pages and the importer must turn that into one line naming the file, not a crash.
#include <cstdint>

#include "fuzz_support.h"
#include "profiler/import_nsys.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string path = pacer::fuzz::writeScratch("nsys.sqlite", pacer::fuzz::text(data, size));
    pacer::profiler::RunInfo info;
    auto trace = pacer::profiler::parseNsysSqlite({path}, &info);
    if (!trace.ok()) pacer::fuzz::checkErrorLine(trace.message(), path);
    pacer::fuzz::removeScratch("nsys.sqlite");
    return 0;
}
