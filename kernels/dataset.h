// A deterministic, learnable synthetic data set for every model family (teacher-student).
//
// A small fixed "teacher" drawn from the seed labels random inputs, and the student model learns to imitate it,
// so loss falls without any files on disk. Every sample is a pure function of (seed, global sample index), so a
// rank's slice of a global batch is the same whatever machine or device computes it, and N ranks of b samples see
// exactly the samples one rank of N*b sees.
//   mlp:         x ~ N(0,1)^input, label = argmax(Wt x)
//   cnn:         x[c][h][w] = a_c + 0.5 * noise, a ~ N(0,1)^channels, label = argmax(Ut a)
//   transformer: tokens uniform in [0, vocab), label = argmax(sum_t Et[token_t])
#pragma once

#include "kernels/model_spec.h"

#include <cstdint>
#include <vector>

namespace pacer::kernels {

struct Batch {
    std::vector<float> inputs;          // size * inputSize floats (mlp, cnn); empty for token models
    std::vector<std::int32_t> tokens;   // size * seqLen token ids (transformer); empty otherwise
    std::vector<int> labels;            // size class labels in [0, classes)
    int size = 0;
};

class SyntheticDataset {
public:
    SyntheticDataset(const ModelSpec& spec, std::uint64_t seed);  // throws std::invalid_argument on a bad spec
    // The slice of global batch `step` that `rank` of `worldSize` gets: global batch = worldSize*perRankBatch
    // samples; rank r takes samples [r*perRankBatch, (r+1)*perRankBatch). So 2 ranks x b == 1 rank x 2b.
    Batch batch(std::int64_t step, int rank, int worldSize, int perRankBatch) const;
    const ModelSpec& spec() const { return spec_; }

private:
    void sample(std::uint64_t index, float* x, std::int32_t* tokens, int* label) const;

    ModelSpec spec_;
    std::uint64_t seed_;
    // [features][classes]: a sample's logits grow one feature at a time across all classes, a contiguous loop of
    // independent sums (for the 1024x1024 teacher of a wide MLP, a class-major dot product per class was a chain
    // of dependent adds that cost 45 ms per batch of 64, a tenth of an iteration's compute).
    std::vector<float> teacher_;
};

}  // namespace pacer::kernels
