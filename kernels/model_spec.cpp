#include "kernels/model_spec.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <set>
#include <stdexcept>

namespace pacer::kernels {

namespace {

void positive(const char* key, int v, int min = 1) {
    if (v < min)
        throw std::invalid_argument(std::string("model spec: \"") + key + "\" must be >= " + std::to_string(min) +
                                    ", got " + std::to_string(v));
}

int readInt(const nlohmann::json& j, const char* key, int fallback) {
    if (!j.contains(key)) return fallback;
    const auto& v = j.at(key);
    if (!v.is_number_integer())
        throw std::invalid_argument(std::string("model spec: \"") + key + "\" must be an integer, got " + v.dump());
    const auto x = v.get<long long>();
    if (x < -1'000'000'000LL || x > 1'000'000'000LL)
        throw std::invalid_argument(std::string("model spec: \"") + key + "\" is out of range: " + v.dump());
    return int(x);
}

std::string readString(const nlohmann::json& j, const char* key, const std::string& fallback) {
    if (!j.contains(key)) return fallback;
    const auto& v = j.at(key);
    if (!v.is_string())
        throw std::invalid_argument(std::string("model spec: \"") + key + "\" must be a string, got " + v.dump());
    return v.get<std::string>();
}

}  // namespace

void ModelSpec::validate() const {
    if (family != "mlp" && family != "cnn" && family != "transformer")
        throw std::invalid_argument("model spec: \"family\" must be \"mlp\", \"cnn\" or \"transformer\", got " +
                                    nlohmann::json(family).dump());
    positive("classes", classes, 2);
    positive("width", width);
    if (family == "mlp") {
        positive("depth", depth, 2);
        positive("input", input);
        if (activation != "relu" && activation != "gelu")
            throw std::invalid_argument("model spec: \"activation\" must be \"relu\" or \"gelu\", got " +
                                        nlohmann::json(activation).dump());
    } else if (family == "cnn") {
        positive("depth", depth, 0);
        positive("channels", channels);
        positive("stages", stages);
        positive("image", image);
        // stages first: image >> 3,065,535 is undefined (found by fuzz_model_spec).
        if (stages > 16 || (image >> (stages - 1)) < 2)
            throw std::invalid_argument("model spec: image " + std::to_string(image) + " is too small for " +
                                        std::to_string(stages) + " stages (each later stage halves it)");
    } else {
        positive("depth", depth);
        positive("vocab", vocab, 2);
        positive("seq_len", seqLen);
        positive("heads", heads);
        positive("ffn_mult", ffnMult);
        if (width % heads != 0)
            throw std::invalid_argument("model spec: width " + std::to_string(width) + " is not divisible by " +
                                        std::to_string(heads) + " heads");
    }
    if (parameterCount(*this) > (std::size_t(1) << 31))
        throw std::invalid_argument("model spec: more than 2^31 parameters; lower width or depth");
}

std::size_t ModelSpec::inputSize() const {
    if (family == "mlp") return std::size_t(input);
    if (family == "cnn") return std::size_t(channels) * image * image;
    return std::size_t(seqLen);
}

ModelSpec parseModelSpec(const nlohmann::json& j) {
    if (!j.is_object()) throw std::invalid_argument("model spec: expected a JSON object, got " + std::string(j.type_name()));
    static const std::set<std::string> known = {"family", "name", "classes", "width", "depth", "input",
                                                "activation", "channels", "image", "stages", "vocab", "seq_len",
                                                "heads", "ffn_mult", "comment"};
    for (const auto& [key, value] : j.items())
        if (!known.count(key)) throw std::invalid_argument("model spec: unknown key " + nlohmann::json(key).dump());
    if (!j.contains("family")) throw std::invalid_argument("model spec: \"family\" is required");
    ModelSpec s;
    s.family = readString(j, "family", "");
    s.name = readString(j, "name", s.family);
    s.classes = readInt(j, "classes", s.classes);
    s.width = readInt(j, "width", s.width);
    s.depth = readInt(j, "depth", s.depth);
    s.input = readInt(j, "input", s.input);
    s.activation = readString(j, "activation", s.activation);
    s.channels = readInt(j, "channels", s.channels);
    s.image = readInt(j, "image", s.image);
    s.stages = readInt(j, "stages", s.stages);
    s.vocab = readInt(j, "vocab", s.vocab);
    s.seqLen = readInt(j, "seq_len", s.seqLen);
    s.heads = readInt(j, "heads", s.heads);
    s.ffnMult = readInt(j, "ffn_mult", s.ffnMult);
    s.validate();
    return s;
}

ModelSpec loadModelSpec(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::invalid_argument("model spec: cannot open \"" + path + "\"");
    // Copying or destroying a value recurses once per level: a file nested thousands deep would overflow the
    // stack after parsing, so the parse stops at a depth no model spec comes near.
    constexpr int kMaxDepth = 64;
    auto bounded = [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
        if (depth > kMaxDepth)
            throw std::invalid_argument("model spec: \"" + path + "\" nests more than " + std::to_string(kMaxDepth) +
                                        " levels deep");
        return true;
    };
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(in, bounded);
    } catch (const nlohmann::json::parse_error& e) {
        throw std::invalid_argument("model spec: \"" + path + "\" is not valid JSON: " + e.what());
    }
    try {
        return parseModelSpec(j);
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(std::string(e.what()) + " (in \"" + path + "\")");
    }
}

nlohmann::json toJson(const ModelSpec& s) {
    nlohmann::json j = {{"family", s.family}, {"name", s.name}, {"classes", s.classes}, {"width", s.width},
                        {"depth", s.depth}};
    if (s.family == "mlp") {
        j["input"] = s.input;
        j["activation"] = s.activation;
    } else if (s.family == "cnn") {
        j["channels"] = s.channels;
        j["image"] = s.image;
        j["stages"] = s.stages;
    } else {
        j["vocab"] = s.vocab;
        j["seq_len"] = s.seqLen;
        j["heads"] = s.heads;
        j["ffn_mult"] = s.ffnMult;
    }
    return j;
}

std::size_t parameterCount(const ModelSpec& s) {
    using Z = std::size_t;
    auto linear = [](Z in, Z out) { return in * out + out; };
    auto conv3 = [](Z c, Z cout) { return c * 9 * cout + cout; };
    if (s.family == "mlp") {
        Z n = linear(Z(s.input), Z(s.width));
        for (int i = 1; i + 1 < s.depth; ++i) n += linear(Z(s.width), Z(s.width));
        return n + linear(Z(s.width), Z(s.classes));
    }
    if (s.family == "cnn") {
        Z c = Z(s.width);
        Z n = conv3(Z(s.channels), c);
        for (int st = 0; st < s.stages; ++st) {
            if (st > 0) {
                n += conv3(c, 2 * c);
                c *= 2;
            }
            n += Z(s.depth) * 2 * conv3(c, c);
        }
        return n + linear(c, Z(s.classes));
    }
    const Z d = Z(s.width), f = d * Z(s.ffnMult);
    const Z block = 2 * 2 * d + linear(d, 3 * d) + linear(d, d) + linear(d, f) + linear(f, d);
    return Z(s.vocab) * d + Z(s.seqLen) * d + Z(s.depth) * block + 2 * d + linear(d, Z(s.classes));
}

}  // namespace pacer::kernels
