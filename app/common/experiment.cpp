#include "app/common/experiment.h"

#include "app/common/bounded_json.h"
#include "app/common/units.h"
#include "engine/collectives/allreduce_algorithms.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <type_traits>
#include <fstream>
#include <sstream>

namespace pacer::app {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int kPlanWarmupIterations = 2;
constexpr double kMinTimeoutSeconds = 0.1;

// A JSON number's value if it is whole (2 and 2.0 alike), as a long double, which holds any int64/uint64 exactly;
// nothing for 2.5 or non-numbers.
std::optional<long double> wholeNumber(const json& v) {
    if (!v.is_number()) return std::nullopt;
    const long double x = v.is_number_unsigned() ? static_cast<long double>(v.get<std::uint64_t>())
                          : v.is_number_integer() ? static_cast<long double>(v.get<std::int64_t>())
                                                  : static_cast<long double>(v.get<double>());
    if (!std::isfinite(x) || x != std::floor(x)) return std::nullopt;
    return x;
}

// Reads one optional field with a type check; a wrong type is an error naming the field. Whole-number fields
// take only whole numbers their type can hold: nlohmann's get<int>() would truncate 2.9 to 2, wrap 4294967298 to
// 2 and turn 1e15 into garbage, and the run would quietly differ from what the file says.
template <typename T>
bool readField(const json& j, const char* key, T& out, std::string* error) {
    auto it = j.find(key);
    if (it == j.end()) return true;
    auto fail = [&](const std::string& why) {
        *error = std::string("'") + key + "' " + why;
        return false;
    };
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        if (!it->is_number()) return fail(std::string("has the wrong type (") + it->type_name() + ")");
        const auto whole = wholeNumber(*it);
        if (!whole) return fail("must be a whole number, got " + it->dump());
        const long double v = *whole;
        if (v < static_cast<long double>(std::numeric_limits<T>::min()) ||
            v > static_cast<long double>(std::numeric_limits<T>::max()))
            return fail("is out of range, got " + it->dump());
        out = static_cast<T>(v);
        return true;
    } else {
        try {
            out = it->template get<T>();
            return true;
        } catch (const json::exception&) {
            return fail(std::string("has the wrong type (") + it->type_name() + ")");
        }
    }
}

bool validate(const Experiment& e, std::string* error) {
    auto fail = [&](std::string msg) {
        *error = std::move(msg);
        return false;
    };
    if (e.ranks < 1 || e.ranks > 64) return fail("'ranks' must be between 1 and 64, got " + std::to_string(e.ranks));
    if (e.backend != "cpu" && e.backend != "gpu") return fail("'backend' must be cpu or gpu, got '" + e.backend + "'");
    if (e.iterations < 1 || e.iterations > 1000000) return fail("'iterations' must be between 1 and 1000000");
    if (e.warmupIterations < 0 || e.warmupIterations >= e.iterations)
        return fail("'warmup_iterations' must be at least 0 and below 'iterations'");
    if (e.batchPerRank < 1 || e.batchPerRank > 1 << 20) return fail("'batch_per_rank' must be between 1 and 1048576");
    if (e.threadsPerRank < 1 || e.threadsPerRank > 256) return fail("'threads_per_rank' must be between 1 and 256");
    if (e.order != "dynamic" && e.order != "plan") return fail("'order' must be dynamic or plan, got '" + e.order + "'");
    // Plan order measures layer times in warm-up iterations 1.. (the first one is cold) before it can plan.
    if (e.order == "plan" && e.warmupIterations < kPlanWarmupIterations)
        return fail("order 'plan' needs at least " + std::to_string(kPlanWarmupIterations) +
                    " warm-up iterations to measure the layers it plans for, got " + std::to_string(e.warmupIterations) +
                    (e.iterations <= kPlanWarmupIterations ? " (give 'iterations' above 2)" : ""));
    if (e.channels < 1 || e.channels > 16) return fail("'channels' must be between 1 and 16, got " + std::to_string(e.channels));
    if (e.channels > 1 && e.order != "plan")
        return fail("'channels' above 1 needs order 'plan' (dynamic order agrees on one unit after another)");
    if (e.channels > 1 && e.backend != "cpu")
        return fail("'channels' above 1 needs the cpu backend (NCCL spreads each collective over its own channels)");
    if (e.transport != "auto" && e.transport != "gloo" && e.transport != "shm")
        return fail("'transport' must be auto, gloo or shm, got '" + e.transport + "'");
    if (!(e.linkGbps >= 0) || e.linkGbps > 10000) return fail("'link.gbps' must be between 0 and 10000");
    if (!(e.linkLatencyUs >= 0) || e.linkLatencyUs > 1e6) return fail("'link.latency_us' must be between 0 and 1e6");
    if (auto t = engine::parseTopology(e.topology, e.ranks); !t.ok()) return fail("'topology': " + t.message());
    if (auto a = engine::parseAlgorithm(e.algorithm); !a.ok()) return fail("'algorithm': " + a.message());
    if (e.algorithm == "torus" && engine::parseTopology(e.topology, e.ranks)->kind != engine::Topology::Kind::Torus)
        return fail("'algorithm' torus needs a torus 'topology', not " + e.topology);
    if (e.algorithm != "native" && e.backend != "cpu")
        return fail("'algorithm' " + e.algorithm + " needs the cpu backend (the NCCL point-to-point layer is built "
                    "but has not run on a GPU yet; on GPUs NCCL runs its own ring and tree)");
    // Below 0.1 s the engine's millisecond timeouts would round to (nearly) nothing, and no collective is that fast
    // on a loaded machine: the run could only fail.
    if (!(e.timeoutSeconds >= kMinTimeoutSeconds) || e.timeoutSeconds > 86400)
        return fail("'timeout_s' must be between 0.1 and 86400, got " + nlohmann::json(e.timeoutSeconds).dump());
    if (!e.model.is_object()) return fail("'model' must be an object or a model file");
    if (!e.policy.is_object() || !e.policy.contains("name") || !e.policy["name"].is_string())
        return fail("'policy' must be an object with a 'name'");
    return true;
}

// Sizes in a policy may be written "256KiB": turn them into plain byte counts for the engine.
bool normalisePolicySizes(json& policy, std::string* error) {
    for (auto& [key, value] : policy.items()) {
        const bool isSize = key.size() > 6 && key.compare(key.size() - 6, 6, "_bytes") == 0;
        if (!isSize) continue;
        if (value.is_string()) {
            auto bytes = parseSize(value.get<std::string>());
            if (!bytes) {
                *error = "policy '" + key + "': '" + value.get<std::string>() + "' is not a size (use B, KiB, MiB, GiB)";
                return false;
            }
            value = *bytes;
        } else if (!value.is_number_integer() || value.get<std::int64_t>() < 0) {
            *error = "policy '" + key + "' must be a size such as 4MiB";
            return false;
        }
    }
    return true;
}

// The experiment's "topology": "flat", "ring" or {"torus": [X, Y, Z]}, to the engine's text form and back.
bool readTopology(const json& j, std::string& out, std::string* error) {
    auto it = j.find("topology");
    if (it == j.end()) return true;
    if (it->is_string() && (*it == "flat" || *it == "ring")) {
        out = it->get<std::string>();
        return true;
    }
    if (it->is_object() && it->size() == 1 && it->contains("torus") && (*it)["torus"].is_array() &&
        !(*it)["torus"].empty()) {
        out = "torus:";
        // Dimensions follow the whole-number rule of readField: 2.0 is 2, 2.5 or 1e30 are refused, never truncated.
        for (const json& d : (*it)["torus"]) {
            const auto v = wholeNumber(d);
            if (!v || *v < 1 || *v > 1 << 20) {
                *error = "'topology': torus dimensions must be whole numbers from 1 to 1048576, got " + d.dump();
                return false;
            }
            if (out.size() > 6) out += 'x';
            out += std::to_string(static_cast<long long>(*v));
        }
        return true;
    }
    *error = "'topology' must be \"flat\", \"ring\" or {\"torus\": [X, Y, Z]}";
    return false;
}

json topologyJson(const std::string& text) {
    if (text.rfind("torus:", 0) != 0) return text;
    json dims = json::array();
    std::stringstream in(text.substr(6));
    for (std::string d; std::getline(in, d, 'x');) dims.push_back(std::stoi(d));
    return json{{"torus", dims}};
}

}  // namespace

json Experiment::toJson() const {
    json j{{"name", name},
                {"model", model},
                {"ranks", ranks},
                {"backend", backend},
                {"iterations", iterations},
                {"warmup_iterations", warmupIterations},
                {"batch_per_rank", batchPerRank},
                {"seed", seed},
                {"threads_per_rank", threadsPerRank},
                {"optimizer", optimizer},
                {"policy", policy},
                {"transport", transport},
                {"link", {{"gbps", linkGbps}, {"latency_us", linkLatencyUs}}},
                {"topology", topologyJson(topology)},
                {"algorithm", algorithm},
                {"timeout_s", timeoutSeconds},
                {"trace", trace}};
    if (orderGiven) j["order"] = order;
    if (channelsGiven) j["channels"] = channels;
    return j;
}

std::optional<Experiment> parseExperiment(const json& j, const std::string& baseDir, std::string* error) {
    if (!j.is_object()) {
        *error = "an experiment must be a JSON object";
        return std::nullopt;
    }
    Experiment e;
    std::string modelRef;
    bool ok = readField(j, "name", e.name, error) && readField(j, "ranks", e.ranks, error) &&
              readField(j, "backend", e.backend, error) && readField(j, "iterations", e.iterations, error) &&
              readField(j, "warmup_iterations", e.warmupIterations, error) &&
              readField(j, "batch_per_rank", e.batchPerRank, error) && readField(j, "seed", e.seed, error) &&
              readField(j, "threads_per_rank", e.threadsPerRank, error) &&
              readField(j, "order", e.order, error) && readField(j, "channels", e.channels, error) &&
              readField(j, "transport", e.transport, error) &&
              readField(j, "timeout_s", e.timeoutSeconds, error) &&
              readField(j, "trace", e.trace, error) && readField(j, "algorithm", e.algorithm, error) &&
              readTopology(j, e.topology, error);
    if (!ok) return std::nullopt;
    e.orderGiven = j.contains("order");
    e.channelsGiven = j.contains("channels");
    if (auto it = j.find("optimizer"); it != j.end()) e.optimizer = *it;
    if (auto it = j.find("policy"); it != j.end()) {
        if (it->is_string()) e.policy = json{{"name", *it}};
        else e.policy = *it;
    }
    if (auto it = j.find("link"); it != j.end()) {
        if (!it->is_object()) {
            *error = "'link' must be an object with 'gbps' and 'latency_us'";
            return std::nullopt;
        }
        if (!readField(*it, "gbps", e.linkGbps, error) || !readField(*it, "latency_us", e.linkLatencyUs, error))
            return std::nullopt;
    }
    auto model = j.find("model");
    if (model == j.end()) {
        *error = "'model' is missing";
        return std::nullopt;
    }
    if (model->is_string()) {
        fs::path path = model->get<std::string>();
        if (path.is_relative()) path = fs::path(baseDir) / path;
        std::ifstream in(path);
        std::error_code ec;
        if (!in || !fs::is_regular_file(path, ec)) {  // a directory opens, then fails on the first read
            *error = "model file " + path.string() + " cannot be read";
            return std::nullopt;
        }
        std::string why;
        auto parsed = parseBoundedJson(in, &why);
        if (!parsed) {
            *error = path.string() + ": " + why;
            return std::nullopt;
        }
        e.model = std::move(*parsed);
    } else {
        e.model = *model;
    }
    if (e.policy.is_object() && !normalisePolicySizes(e.policy, error)) return std::nullopt;
    if (!validate(e, error)) return std::nullopt;
    return e;
}

std::optional<Experiment> loadExperiment(const std::string& path, std::string* error) {
    std::ifstream in(path);
    if (!in) {
        *error = path + ": cannot be read";
        return std::nullopt;
    }
    std::string why;
    auto j = parseBoundedJson(in, &why);
    if (!j) {
        *error = path + ": not valid JSON (" + why + ")";
        return std::nullopt;
    }
    std::string inner;
    auto e = parseExperiment(*j, fs::path(path).parent_path().string(), &inner);
    if (!e) *error = path + ": " + inner;
    return e;
}

std::optional<Experiment> applyOverrides(Experiment e, const ExperimentOverrides& o, std::string* error) {
    if (o.policyObject) {
        e.policy = *o.policyObject;
        if (e.policy.is_object() && !normalisePolicySizes(e.policy, error)) return std::nullopt;
    }
    if (o.ranks) e.ranks = *o.ranks;
    if (o.backend) e.backend = *o.backend;
    if (o.policy) e.policy["name"] = *o.policy;
    if (o.segmentBytes) e.policy["segment_bytes"] = *o.segmentBytes;
    if (o.iterations) e.iterations = *o.iterations;
    if (o.linkGbps) e.linkGbps = *o.linkGbps;
    if (o.linkLatencyUs) e.linkLatencyUs = *o.linkLatencyUs;
    if (o.order) {
        e.order = *o.order;
        e.orderGiven = true;
    }
    if (o.channels) {
        e.channels = *o.channels;
        e.channelsGiven = true;
    }
    if (o.transport) e.transport = *o.transport;
    if (o.algorithm) e.algorithm = *o.algorithm;
    if (o.topology) {
        // "torus" alone means the most nearly cubic shape for the (possibly overridden) rank count.
        auto t = engine::parseTopology(*o.topology, e.ranks);
        if (!t.ok()) {
            *error = "topology: " + t.message();
            return std::nullopt;
        }
        e.topology = t->kind == engine::Topology::Kind::Torus ? "torus:" + t->describe().substr(6) : *o.topology;
    }
    if (o.batchPerRank) e.batchPerRank = *o.batchPerRank;
    if (o.timeoutSeconds) e.timeoutSeconds = *o.timeoutSeconds;
    if (o.trace) e.trace = *o.trace;
    // Fewer iterations than the file's warm-up: a quarter of them warm up, and plan order keeps the warm-up it needs
    // as long as one iteration is left to run on the plan.
    if (o.iterations && e.warmupIterations >= e.iterations) {
        e.warmupIterations = e.iterations / 4;
        if (e.order == "plan") e.warmupIterations = std::min(std::max(e.warmupIterations, kPlanWarmupIterations),
                                                             e.iterations - 1);
    }
    if (!validate(e, error)) return std::nullopt;
    return e;
}

}  // namespace pacer::app
