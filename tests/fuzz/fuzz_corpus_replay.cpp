// The g++ stand-in for libFuzzer's driver: runs LLVMFuzzerTestOneInput once on every file of the corpus
// directories given (sorted, so a failure reproduces in the same order). CTest runs it over the checked-in corpus
// (seeds, and every input a fuzzer once found a crash with), so a regression fails the normal test run; new inputs
// come from scripts/fuzz, which builds the same target with libFuzzer.
//
//   fuzz_x_replay CORPUS_DIR_OR_FILE...
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

int main(int argc, char** argv) {
    namespace fs = std::filesystem;
    std::vector<fs::path> inputs;
    for (int i = 1; i < argc; ++i) {
        std::error_code ec;
        if (fs::is_directory(argv[i], ec)) {
            for (const auto& entry : fs::directory_iterator(argv[i]))
                if (entry.is_regular_file()) inputs.push_back(entry.path());
        } else if (fs::is_regular_file(argv[i], ec)) {
            inputs.emplace_back(argv[i]);
        } else {
            std::fprintf(stderr, "fuzz replay: %s is neither a file nor a directory\n", argv[i]);
            return 2;
        }
    }
    if (inputs.empty()) {
        std::fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE... (none of them held an input)\n", argv[0]);
        return 2;
    }
    std::sort(inputs.begin(), inputs.end());
    const auto t0 = std::chrono::steady_clock::now();
    for (const fs::path& p : inputs) {
        std::ifstream in(p, std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::fprintf(stderr, "%s\n", p.c_str());  // the last name printed is the input that failed
        LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("fuzz replay: %zu inputs, %.2f s, no failure\n", inputs.size(), secs);
    return 0;
}
