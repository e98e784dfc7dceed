#include "kernels/optimizer.h"

#include "kernels/backend.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <stdexcept>

namespace pacer::kernels {

namespace {

float readFloat(const nlohmann::json& j, const char* key, float fallback) {
    if (!j.contains(key)) return fallback;
    const auto& v = j.at(key);
    if (!v.is_number())
        throw std::invalid_argument(std::string("optimizer: \"") + key + "\" must be a number, got " + v.dump());
    const double x = v.get<double>();
    if (!std::isfinite(x)) throw std::invalid_argument(std::string("optimizer: \"") + key + "\" must be finite");
    return float(x);
}

void validate(const OptimizerConfig& c) {
    if (c.kind != "sgd" && c.kind != "adam")
        throw std::invalid_argument("optimizer: \"kind\" must be \"sgd\" or \"adam\", got \"" + c.kind + "\"");
    if (!(c.lr > 0.f)) throw std::invalid_argument("optimizer: \"lr\" must be > 0");
    if (c.momentum < 0.f || c.momentum >= 1.f) throw std::invalid_argument("optimizer: \"momentum\" must be in [0, 1)");
    if (c.beta1 < 0.f || c.beta1 >= 1.f || c.beta2 < 0.f || c.beta2 >= 1.f)
        throw std::invalid_argument("optimizer: \"beta1\" and \"beta2\" must be in [0, 1)");
    if (!(c.eps > 0.f)) throw std::invalid_argument("optimizer: \"eps\" must be > 0");
    if (c.weightDecay < 0.f) throw std::invalid_argument("optimizer: \"weight_decay\" must be >= 0");
}

class BackendOptimizer final : public Optimizer {
public:
    BackendOptimizer(const OptimizerConfig& c, std::vector<ParamView> params, Device device, void* stream)
        : config_(c), params_(std::move(params)),
          backend_(device == Device::Cuda ? makeCudaBackend(stream) : makeCpuBackend()),
          ownStream_(device == Device::Cuda && stream == nullptr) {
        validate(c);
        steps_.assign(params_.size(), 0);
        for (const ParamView& p : params_) {
            if (!p.value || !p.grad) throw std::invalid_argument("optimizer: parameter \"" + p.name + "\" has no storage");
            first_.emplace_back(*backend_, p.count);  // momentum or Adam's m
            if (c.kind == "adam") second_.emplace_back(*backend_, p.count);
        }
    }
    void update(int i, float gradScale) override {
        if (i < 0 || i >= int(params_.size()))
            throw std::invalid_argument("optimizer: no parameter " + std::to_string(i));
        const ParamView& p = params_[i];
        if (config_.kind == "sgd")
            backend_->sgdStep(p.value, p.grad, first_[i].data(), p.count, gradScale, config_.lr, config_.momentum,
                              config_.weightDecay);
        else
            backend_->adamStep(p.value, p.grad, first_[i].data(), second_[i].data(), p.count, gradScale, config_.lr,
                               config_.beta1, config_.beta2, config_.eps, config_.weightDecay, ++steps_[i]);
        if (ownStream_) backend_->synchronize();
    }
    int parameterCount() const override { return int(params_.size()); }

private:
    OptimizerConfig config_;
    std::vector<ParamView> params_;
    std::unique_ptr<Backend> backend_;
    bool ownStream_;
    std::vector<int> steps_;
    std::vector<Buffer<float>> first_, second_;
};

}  // namespace

OptimizerConfig parseOptimizerConfig(const nlohmann::json& j) {
    if (!j.is_object()) throw std::invalid_argument("optimizer: expected a JSON object");
    for (const auto& [key, value] : j.items())
        if (key != "kind" && key != "lr" && key != "momentum" && key != "beta1" && key != "beta2" && key != "eps" &&
            key != "weight_decay")
            throw std::invalid_argument("optimizer: unknown key \"" + key + "\"");
    OptimizerConfig c;
    if (j.contains("kind")) {
        if (!j.at("kind").is_string()) throw std::invalid_argument("optimizer: \"kind\" must be a string");
        c.kind = j.at("kind").get<std::string>();
    }
    c.lr = readFloat(j, "lr", c.lr);
    c.momentum = readFloat(j, "momentum", c.momentum);
    c.beta1 = readFloat(j, "beta1", c.beta1);
    c.beta2 = readFloat(j, "beta2", c.beta2);
    c.eps = readFloat(j, "eps", c.eps);
    c.weightDecay = readFloat(j, "weight_decay", c.weightDecay);
    validate(c);
    return c;
}

Optimizer::~Optimizer() = default;

std::unique_ptr<Optimizer> Optimizer::create(const OptimizerConfig& config, std::vector<ParamView> params,
                                             Device device, void* stream) {
    return std::make_unique<BackendOptimizer>(config, std::move(params), device, stream);
}

}  // namespace pacer::kernels
