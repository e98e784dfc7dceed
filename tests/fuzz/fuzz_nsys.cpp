// Fuzz target for the Nsight Systems SQLite importer: arbitrary bytes (mutated database images) written to a
// file and imported. SQLite must reject corrupt pages and the importer must turn that into an error, not a crash.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "profiler/import_nsys.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const std::string path = "/tmp/pacer_fuzz_nsys_" + std::to_string(getpid()) + ".sqlite";
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    pacer::profiler::RunInfo info;
    auto trace = pacer::profiler::parseNsysSqlite(path, &info);
    if (!trace.ok() && trace.message().find(path) == std::string::npos) {
        std::fprintf(stderr, "error message without its source: %s\n", trace.message().c_str());
        std::abort();
    }
    std::remove(path.c_str());
    return 0;
}
