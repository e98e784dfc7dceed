#include "engine/host_memory.h"

#include <fstream>
#include <string>

namespace pacer::engine {

std::uint64_t availableHostMemoryBytes() {
    std::ifstream in("/proc/meminfo");
    std::string key, unit;
    std::uint64_t kib = 0;
    while (in >> key >> kib >> unit)
        if (key == "MemAvailable:") return kib * 1024;
    return 0;
}

}  // namespace pacer::engine
