// What the fuzz targets share: a scratch directory of this process for the inputs that must be files (SQLite
// databases, projects), and the checks every error message must pass. A broken promise aborts, which libFuzzer and
// the corpus replay both report as a failure with the input that caused it.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace pacer::fuzz {

// One directory per process under $TMPDIR (default /tmp), removed when the process ends normally.
inline const std::string& scratchDir() {
    struct Dir {
        std::string path;
        Dir() {
            const char* tmp = std::getenv("TMPDIR");
            path = std::string(tmp && *tmp ? tmp : "/tmp") + "/pacer-fuzz-" + std::to_string(getpid());
            std::filesystem::create_directories(path);
        }
        ~Dir() {
            std::error_code ec;
            std::filesystem::remove_all(path, ec);
        }
    };
    static const Dir dir;
    return dir.path;
}

// Writes the bytes to <scratch>/<name> (replacing it) and returns the path.
inline std::string writeScratch(const std::string& name, std::string_view bytes) {
    const std::string path = scratchDir() + "/" + name;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return path;
}

inline void removeScratch(const std::string& name) {
    std::error_code ec;
    std::filesystem::remove(scratchDir() + "/" + name, ec);
}

[[noreturn]] inline void broken(const std::string& what, const std::string& message) {
    std::fprintf(stderr, "fuzz: %s: %s\n", what.c_str(), message.c_str());
    std::abort();
}

// An error for the user: one line, not empty, naming `source` when given (the file, so they know which).
inline void checkErrorLine(const std::string& message, const std::string& source = {}) {
    if (message.empty()) broken("empty error message", message);
    if (message.find('\n') != std::string::npos) broken("error message of more than one line", message);
    if (!source.empty() && message.find(source) == std::string::npos)
        broken("error message without its source " + source, message);
}

inline std::string_view text(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

}  // namespace pacer::fuzz
