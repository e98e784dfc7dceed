// A deterministic stand-in for libFuzzer where the compiler is g++: runs LLVMFuzzerTestOneInput on each seed,
// then on a bounded number of mutations of the seeds (bit flips, byte edits with JSON-significant characters,
// cut/duplicated ranges, truncation, absurd numbers spliced in). Same seed → same inputs, so a failure reproduces.
//
//   fuzz_x [--iterations N] [--seed S] SEED_FILE...     (.sql seeds are built into an SQLite image first)
#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

struct Rng {
    std::uint64_t s;
    std::uint64_t next() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return s;
    }
    std::size_t below(std::size_t n) { return n ? static_cast<std::size_t>(next() % n) : 0; }
};

std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// An SQL seed becomes the bytes of the database it creates.
std::string sqlSeedImage(const std::string& path) {
    const std::string tmp = "/tmp/pacer_fuzz_seed_" + std::to_string(getpid()) + ".sqlite";
    std::remove(tmp.c_str());
    sqlite3* db = nullptr;
    sqlite3_open(tmp.c_str(), &db);
    sqlite3_exec(db, readFile(path).c_str(), nullptr, nullptr, nullptr);
    sqlite3_close(db);
    std::string bytes = readFile(tmp);
    std::remove(tmp.c_str());
    return bytes;
}

void mutate(std::string& d, Rng& rng) {
    static const char kSignificant[] = "{}[]\",:-.eE0123456789ntf \n\\";
    static const char* kNumbers[] = {"1e309", "-1e309", "99999999999999999999999", "-9223372036854775808", "NaN",
                                     "0.0000001", "4.6e15", "\"x\"", "null", "[]", "{}"};
    const int edits = 1 + static_cast<int>(rng.below(4));
    for (int i = 0; i < edits && !d.empty(); ++i) {
        const std::size_t at = rng.below(d.size());
        switch (rng.below(7)) {
            case 0: d[at] = static_cast<char>(d[at] ^ (1 << rng.below(8))); break;
            case 1: d[at] = kSignificant[rng.below(sizeof kSignificant - 1)]; break;
            case 2: d.erase(at, 1 + rng.below(std::min<std::size_t>(64, d.size() - at))); break;
            case 3: {
                const std::size_t len = 1 + rng.below(std::min<std::size_t>(128, d.size() - at));
                d.insert(rng.below(d.size()), d.substr(at, len));
                break;
            }
            case 4: d.resize(at); break;
            case 5: d.insert(at, kNumbers[rng.below(std::size(kNumbers))]); break;
            case 6: d[at] = static_cast<char>(rng.next()); break;
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    long iterations = 1000;
    std::uint64_t seed = 0x9E3779B97F4A7C15ull;
    std::vector<std::string> seeds;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--iterations" && i + 1 < argc) iterations = std::strtol(argv[++i], nullptr, 10);
        else if (a == "--seed" && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 10) | 1;
        else {
            std::string bytes = a.size() > 4 && a.compare(a.size() - 4, 4, ".sql") == 0 ? sqlSeedImage(a) : readFile(a);
            if (bytes.empty()) {
                std::fprintf(stderr, "fuzz: cannot read seed %s\n", a.c_str());
                return 2;
            }
            seeds.push_back(std::move(bytes));
        }
    }
    if (seeds.empty()) {
        std::fprintf(stderr, "usage: %s [--iterations N] [--seed S] SEED_FILE...\n", argv[0]);
        return 2;
    }
    const auto t0 = std::chrono::steady_clock::now();
    for (const std::string& s : seeds) LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(s.data()), s.size());
    Rng rng{seed};
    for (long i = 0; i < iterations; ++i) {
        std::string input = seeds[static_cast<std::size_t>(i) % seeds.size()];
        mutate(input, rng);
        LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("fuzz: %zu seeds, %ld mutated inputs, %.2f s, no crash\n", seeds.size(), iterations, secs);
    return 0;
}
