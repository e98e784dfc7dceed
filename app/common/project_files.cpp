#include "app/common/project_files.h"

#include "profiler/import_chrome.h"
#include "profiler/import_nsys.h"
#include "profiler/project.h"
#include "profiler/schema.h"

#include <filesystem>

namespace pacer::app {

profiler::Status createProject(const std::string& path) {
    if (std::filesystem::exists(path)) return profiler::errorStatus(path + ": already exists (open it instead)");
    auto db = profiler::openStore(path, profiler::OpenFor::CreateOrWrite);
    return db.ok() ? profiler::okStatus() : db.status();
}

profiler::Result<std::int64_t> importTraces(const std::string& format, const std::vector<std::string>& files,
                                            const std::string& projectPath) {
    if (format != "chrome" && format != "nsys")
        return profiler::errorStatus("--format must be chrome or nsys, got '" + format + "'");
    if (files.empty()) return profiler::errorStatus("name at least one input file");
    for (const std::string& f : files)
        if (!std::filesystem::is_regular_file(f)) return profiler::errorStatus(f + ": no such file");
    if (std::filesystem::exists(projectPath))
        if (auto st = profiler::checkProject(projectPath); !st.ok()) return st;
    if (format == "chrome") return profiler::importChromeTrace(files, projectPath);
    return profiler::importNsysSqlite(files, projectPath);
}

}  // namespace pacer::app
