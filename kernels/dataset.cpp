#include "kernels/dataset.h"

#include "kernels/rng.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace pacer::kernels {

namespace {
// Keys that keep the teacher's and the samples' random streams apart.
constexpr std::uint64_t kTeacherStream = 0x7465616368657231ull;
constexpr std::uint64_t kSampleStream = 0x73616d706c657321ull;
}  // namespace

SyntheticDataset::SyntheticDataset(const ModelSpec& spec, std::uint64_t seed) : spec_(spec), seed_(seed) {
    spec_.validate();
    const std::size_t features = spec_.family == "mlp"   ? std::size_t(spec_.input)
                                 : spec_.family == "cnn" ? std::size_t(spec_.channels)
                                                         : std::size_t(spec_.vocab);
    const std::size_t K = spec_.classes;
    teacher_.resize(features * K);
    Rng rng(mixKey(seed, kTeacherStream));
    for (std::size_t k = 0; k < K; ++k)  // drawn class by class, as ever: the same teacher for a seed
        for (std::size_t f = 0; f < features; ++f) teacher_[f * K + k] = rng.normal();
}

void SyntheticDataset::sample(std::uint64_t index, float* x, std::int32_t* tokens, int* label) const {
    Rng rng(mixKey(mixKey(seed_, kSampleStream), index));
    const int K = spec_.classes;
    std::vector<double> logits(K, 0.0);
    if (spec_.family == "mlp") {
        for (int i = 0; i < spec_.input; ++i) x[i] = rng.normal();
        // Each logit still sums its features in order 0, 1, ...: the labels are the same to the bit.
        for (int i = 0; i < spec_.input; ++i) {
            const float* row = teacher_.data() + std::size_t(i) * K;
            const double xi = x[i];
            for (int k = 0; k < K; ++k) logits[k] += double(row[k]) * xi;
        }
    } else if (spec_.family == "cnn") {
        const int C = spec_.channels, hw = spec_.image * spec_.image;
        for (int c = 0; c < C; ++c) {
            const float a = rng.normal();
            for (int k = 0; k < K; ++k) logits[k] += double(teacher_[std::size_t(c) * K + k]) * a;
            for (int i = 0; i < hw; ++i) x[std::size_t(c) * hw + i] = a + 0.5f * rng.normal();
        }
    } else {
        for (int t = 0; t < spec_.seqLen; ++t) {
            const int tok = rng.below(spec_.vocab);
            tokens[t] = tok;
            for (int k = 0; k < K; ++k) logits[k] += teacher_[std::size_t(tok) * K + k];
        }
    }
    *label = int(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

Batch SyntheticDataset::batch(std::int64_t step, int rank, int worldSize, int perRankBatch) const {
    if (step < 0) throw std::invalid_argument("dataset: step must be >= 0, got " + std::to_string(step));
    if (worldSize < 1) throw std::invalid_argument("dataset: world size must be >= 1, got " + std::to_string(worldSize));
    if (rank < 0 || rank >= worldSize)
        throw std::invalid_argument("dataset: rank " + std::to_string(rank) + " outside world of " +
                                    std::to_string(worldSize));
    if (perRankBatch < 1) throw std::invalid_argument("dataset: batch must be >= 1, got " + std::to_string(perRankBatch));
    Batch b;
    b.size = perRankBatch;
    b.labels.resize(perRankBatch);
    const std::size_t in = spec_.inputSize();
    if (spec_.tokenInput()) b.tokens.resize(in * perRankBatch);
    else b.inputs.resize(in * perRankBatch);
    const std::uint64_t first =
        std::uint64_t(step) * std::uint64_t(worldSize) * std::uint64_t(perRankBatch) + std::uint64_t(rank) * perRankBatch;
    for (int i = 0; i < perRankBatch; ++i)
        sample(first + i, spec_.tokenInput() ? nullptr : b.inputs.data() + in * i,
               spec_.tokenInput() ? b.tokens.data() + in * i : nullptr, &b.labels[i]);
    return b;
}

}  // namespace pacer::kernels
