#include "engine/replay/zoo.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace pacer::engine {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr double kMaxRanks = 1'000'000;
constexpr double kMaxLayerNs = 3600e9;
constexpr std::uint64_t kMaxTensorElements = std::uint64_t{1} << 40;

// Reads a number field with a default; a field of the wrong type is an error, not a silent default.
Result<double> number(const json& object, const char* key, double fallback, const std::string& where) {
    auto it = object.find(key);
    if (it == object.end()) return fallback;
    if (!it->is_number()) return Status::error(where + ": '" + key + "' must be a number");
    return it->get<double>();
}

std::string readFile(const fs::path& path, bool& ok) {
    std::ifstream in(path, std::ios::binary);
    ok = static_cast<bool>(in);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace

std::vector<std::string> defaultZooDirs() {
    std::vector<std::string> dirs;
    if (const char* env = std::getenv("PACER_ZOO_PATH")) {
        std::string list = env;
        std::size_t start = 0;
        while (start <= list.size()) {
            const std::size_t colon = list.find(':', start);
            const std::string dir = list.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
            if (!dir.empty()) dirs.push_back(dir);
            if (colon == std::string::npos) break;
            start = colon + 1;
        }
    }
    dirs.push_back("samples/zoo");
    dirs.push_back("../samples/zoo");
    return dirs;
}

std::size_t parameterCount(const Workload& w) {
    std::size_t n = 0;
    for (const TensorInfo& t : w.tensors) n += t.elements;
    return n;
}

// A profile nested deeper than this is refused while parsing: copying or destroying a value recurses once per
// level, so a file nested thousands deep would overflow the stack after a successful parse.
constexpr int kMaxProfileDepth = 64;

static json parseBounded(const std::string& text) {
    bool tooDeep = false;
    json doc = json::parse(
        text,
        [&](int depth, json::parse_event_t, json&) {
            tooDeep = tooDeep || depth > kMaxProfileDepth;
            return !tooDeep;  // from the first too deep value on, everything is dropped (the result is discarded)
        },
        /*allow_exceptions=*/false);
    return tooDeep ? json(json::value_t::discarded) : doc;
}

Result<Workload> parseProfile(const std::string& text, double deviceTflops, const std::string& origin) {
    json doc = parseBounded(text);
    if (doc.is_discarded()) return Status::error(origin + ": not valid JSON (or nested too deep)");
    if (!doc.is_object()) return Status::error(origin + ": a profile is a JSON object");
    auto layersIt = doc.find("layers");
    if (layersIt == doc.end() || !layersIt->is_array() || layersIt->empty())
        return Status::error(origin + ": needs a non-empty \"layers\" array");

    Result<double> tflops = number(doc, "device_tflops", 10.0, origin);
    Result<double> batch = number(doc, "batch_size", 1.0, origin);
    Result<double> backwardFactor = number(doc, "backward_factor", 2.0, origin);
    Result<double> overheadUs = number(doc, "layer_overhead_us", 0.0, origin);
    Result<double> update = number(doc, "update_ns_per_element", 0.0, origin);
    Result<double> ranks = number(doc, "ranks", 2.0, origin);
    for (const Result<double>* r : {&tflops, &batch, &backwardFactor, &overheadUs, &update, &ranks})
        if (!r->ok()) return r->status();
    const double deviceRate = deviceTflops > 0 ? deviceTflops : tflops.value();
    if (!(deviceRate > 0)) return Status::error(origin + ": device_tflops must be above 0");
    if (!(batch.value() > 0)) return Status::error(origin + ": batch_size must be above 0");
    if (backwardFactor.value() < 0 || overheadUs.value() < 0 || update.value() < 0)
        return Status::error(origin + ": backward_factor, layer_overhead_us and update_ns_per_element must be >= 0");
    if (ranks.value() < 1 || ranks.value() > kMaxRanks || ranks.value() != std::floor(ranks.value()))
        return Status::error(origin + ": ranks must be a whole number from 1 to " + std::to_string(static_cast<int>(kMaxRanks)));

    Workload w;
    w.name = doc.value("name", origin);
    w.ranks = static_cast<int>(ranks.value());
    w.update_ns_per_element = update.value();
    const double overheadNs = overheadUs.value() * 1000.0;
    // 1 TFLOP/s is 1,000 FLOP per ns.
    const double flopPerNs = deviceRate * 1000.0;

    for (std::size_t l = 0; l < layersIt->size(); ++l) {
        const json& layer = (*layersIt)[l];
        const std::string where = origin + ": layer " + std::to_string(l);
        if (!layer.is_object()) return Status::error(where + " is not an object");
        LayerTimes lt;
        lt.name = layer.value("name", "layer " + std::to_string(l));
        double computeNs = 0;
        if (layer.contains("forward_us")) {
            Result<double> us = number(layer, "forward_us", 0, where);
            if (!us.ok()) return us.status();
            computeNs = us.value() * 1000.0;
        } else {
            Result<double> gflops = number(layer, "forward_gflops", 0, where);
            if (!gflops.ok()) return gflops.status();
            computeNs = batch.value() * gflops.value() * 1e9 / flopPerNs;
        }
        if (computeNs < 0) return Status::error(where + " ('" + lt.name + "') has a negative cost");
        double backwardNs = backwardFactor.value() * computeNs;
        if (layer.contains("backward_us")) {
            Result<double> us = number(layer, "backward_us", 0, where);
            if (!us.ok()) return us.status();
            if (us.value() < 0) return Status::error(where + " ('" + lt.name + "') has a negative backward time");
            backwardNs = us.value() * 1000.0;
        }
        // Checked before the conversion: a time past Nanos' range does not convert (a fuzzer's forward_gflops
        // of 1e300 came out as a negative time), and no real layer takes hours.
        if (!(computeNs + overheadNs <= kMaxLayerNs) || !(backwardNs + overheadNs <= kMaxLayerNs))
            return Status::error(where + " ('" + lt.name + "') takes longer than an hour");
        lt.forward = static_cast<Nanos>(std::llround(computeNs + overheadNs));
        lt.backward = static_cast<Nanos>(std::llround(backwardNs + overheadNs));
        const int layerIndex = static_cast<int>(w.layers.size());
        w.layers.push_back(std::move(lt));

        auto params = layer.find("params");
        if (params == layer.end()) continue;
        if (!params->is_array()) return Status::error(where + ": \"params\" must be an array");
        for (const json& p : *params) {
            if (!p.is_object() || !p.contains("shape") || !p["shape"].is_array() || p["shape"].empty())
                return Status::error(where + ": every param needs a non-empty \"shape\" array");
            std::size_t elements = 1;
            for (const json& d : p["shape"]) {
                if (!d.is_number_integer() || d.get<long long>() < 1)
                    return Status::error(where + ": shape dimensions must be whole numbers >= 1");
                // Overflow-checked: a shape of [2^32, 2^32] wrapped to 0 elements.
                if (d.get<std::uint64_t>() > kMaxTensorElements / elements)
                    return Status::error(where + ": a param of more than 2^40 elements");
                elements *= d.get<std::size_t>();
            }
            TensorInfo t;
            t.id = static_cast<int>(w.tensors.size());
            t.name = p.value("name", w.layers.back().name + "." + std::to_string(t.id));
            t.layer = layerIndex;
            t.elements = elements;
            w.tensors.push_back(std::move(t));
        }
    }
    if (w.tensors.empty()) return Status::error(origin + ": no layer has params (nothing to all-reduce)");
    if (!(w.update_ns_per_element * static_cast<double>(parameterCount(w)) <= kMaxLayerNs))
        return Status::error(origin + ": the optimizer step (update_ns_per_element x parameters) takes longer than an hour");
    return w;
}

Result<Workload> loadProfile(const std::string& pathOrName, double deviceTflops,
                             const std::vector<std::string>& zooDirs) {
    if (pathOrName.empty()) return Status::error("no model profile named");
    std::vector<fs::path> candidates{fs::path(pathOrName)};
    const std::string file = pathOrName.ends_with(".json") ? pathOrName : pathOrName + ".json";
    if (pathOrName.find('/') == std::string::npos)
        for (const std::string& dir : zooDirs) candidates.push_back(fs::path(dir) / file);
    for (const fs::path& p : candidates) {
        std::error_code ec;
        if (!fs::is_regular_file(p, ec)) continue;
        bool ok = false;
        const std::string text = readFile(p, ok);
        if (!ok) return Status::error("cannot read model profile " + p.string());
        return parseProfile(text, deviceTflops, p.string());
    }
    std::string known;
    for (const std::string& n : zooNames(zooDirs)) known += (known.empty() ? "" : ", ") + n;
    return Status::error("no model profile '" + pathOrName +
                         "' (not a file; zoo has: " + (known.empty() ? "nothing on the search path" : known) + ")");
}

std::vector<std::string> zooNames(const std::vector<std::string>& zooDirs) {
    std::set<std::string> names;
    for (const std::string& dir : zooDirs) {
        std::error_code ec;
        for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
            if (it->is_regular_file(ec) && it->path().extension() == ".json") names.insert(it->path().stem().string());
    }
    return {names.begin(), names.end()};
}

std::vector<ZooEntry> listZoo(const std::vector<std::string>& zooDirs) {
    std::vector<ZooEntry> entries;
    for (const std::string& name : zooNames(zooDirs)) {
        ZooEntry e;
        e.name = name;
        // The first directory that holds it wins, as in loadProfile.
        for (const std::string& dir : zooDirs) {
            std::error_code ec;
            const fs::path p = fs::path(dir) / (name + ".json");
            if (fs::is_regular_file(p, ec)) {
                e.path = p.string();
                break;
            }
        }
        bool ok = false;
        const std::string text = readFile(e.path, ok);
        Result<Workload> w =
            ok ? parseProfile(text, 0, e.path) : Result<Workload>(Status::error("cannot read " + e.path));
        if (w.ok()) {
            e.tensors = static_cast<int>(w.value().tensors.size());
            e.parameters = parameterCount(w.value());
            const json doc = parseBounded(text);
            e.description = doc.value("description", "");
        } else {
            e.error = w.status().message();
        }
        entries.push_back(std::move(e));
    }
    return entries;
}

}  // namespace pacer::engine
