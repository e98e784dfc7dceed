// Counter-based random numbers: a value depends only on (seed, stream, index), never on call order, so a data
// set, a weight init or a test input comes out the same on every rank, device and run.
#pragma once

#include <cmath>
#include <cstdint>

namespace pacer::kernels {

inline std::uint64_t splitmix64(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

inline std::uint64_t mixKey(std::uint64_t a, std::uint64_t b) { return splitmix64(a ^ splitmix64(b)); }

// A sequential generator over one key; cheap enough to create per sample.
class Rng {
public:
    explicit Rng(std::uint64_t key) : state_(splitmix64(key)) {}
    std::uint64_t next() { return splitmix64(state_++); }
    // Uniform in [0, 1).
    double uniform() { return double(next() >> 11) * 0x1.0p-53; }
    float normal() {  // Box-Muller; one value per call keeps it stateless apart from the counter
        const double u1 = 1.0 - uniform();
        const double u2 = uniform();
        return float(std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
    }
    int below(int n) { return int(next() % std::uint64_t(n)); }

private:
    std::uint64_t state_;
};

}  // namespace pacer::kernels
