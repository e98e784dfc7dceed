// What model to build: a family and its size knobs, read from a small JSON file in samples/models/.
//
// File format (one JSON object; unknown keys are errors so that typos do not pass silently):
//   {
//     "family": "mlp" | "cnn" | "transformer",   required
//     "name": "text",                             optional, shown in traces
//     "classes": 10,                              classifier outputs (>= 2)
//     "width": 256,   mlp: hidden width; cnn: channels of the first stage (doubling per stage);
//                     transformer: model dimension (divisible by "heads")
//     "depth": 4,     mlp: linear layers (>= 2); cnn: residual blocks per stage; transformer: encoder blocks
//     mlp only:         "input": 256, "activation": "relu" | "gelu"
//     cnn only:         "channels": 3, "image": 16 (square side), "stages": 2
//     transformer only: "vocab": 256, "seq_len": 16, "heads": 4, "ffn_mult": 4
//   }
// Width and depth are the scaling knobs: parameterCount() tells the size a setting gives, so one file can make
// a 10 MB or a 500 MB model (e.g. mlp width 256 depth 4 is 0.8 MB; width 4096 depth 10 is about 540 MB).
// A caller can also override knobs after loading (spec.width = ...) and call validate().
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <string>

namespace pacer::kernels {

struct ModelSpec {
    std::string family;  // "mlp" | "cnn" | "transformer"
    std::string name;
    int classes = 10;
    int width = 256;
    int depth = 4;
    // mlp
    int input = 256;
    std::string activation = "relu";
    // cnn
    int channels = 3;
    int image = 16;
    int stages = 2;
    // transformer
    int vocab = 256;
    int seqLen = 16;
    int heads = 4;
    int ffnMult = 4;

    // Throws std::invalid_argument naming the first bad knob.
    void validate() const;
    // Floats one sample's input holds (token ids count as one each for the transformer).
    std::size_t inputSize() const;
    bool tokenInput() const { return family == "transformer"; }
};

ModelSpec parseModelSpec(const nlohmann::json& j);  // throws std::invalid_argument
ModelSpec loadModelSpec(const std::string& path);   // throws std::invalid_argument (missing file, bad JSON, bad spec)
nlohmann::json toJson(const ModelSpec& spec);

// Number of trainable floats the spec makes (x4 for bytes).
std::size_t parameterCount(const ModelSpec& spec);

}  // namespace pacer::kernels
