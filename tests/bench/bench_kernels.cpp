// Kernel benchmarks: a whole training step of the sample MLP (and a 1024-wide one) against the same model in
// PyTorch on the CPU, measured in the same run (skipped, saying why, where python3-torch is missing), then
// per-layer forward/backward times of each sample model family (the compute side that replay uses).
// --quick: small sizes, few timed steps.
//   bench_kernels [--quick] [--threads N] [--batch B]
#include "kernels/device.h"
#include "kernels/dataset.h"
#include "kernels/model.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace pacer::kernels;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

template <typename F>
double bestOf(int reps, F&& f) {
    f();  // warm-up: first-touch page faults and OpenBLAS buffer setup are not the kernel's speed
    double best = 1e30;
    for (int r = 0; r < reps; ++r) {
        const auto t0 = Clock::now();
        f();
        best = std::min(best, seconds(t0, Clock::now()));
    }
    return best;
}

// Median seconds per training step (forward, loss, backward) of Pacer's model for `spec` at `batch`.
double pacerStepSeconds(const ModelSpec& spec, int batch, int steps) {
    auto model = Model::create(spec, 1);
    const SyntheticDataset data(spec, 1);
    const Batch b = data.batch(0, 0, 1, batch);
    model->trainStep(b, {});  // warm-up: buffers are allocated on the first step
    std::vector<double> times;
    for (int i = 0; i < steps; ++i) {
        const auto t0 = Clock::now();
        model->trainStep(b, {});
        times.push_back(seconds(t0, Clock::now()));
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

// The same step in PyTorch (CPU, same layer sizes, cross-entropy, backward), in a python3 that has torch; the
// median seconds per step, or a negative value with *why set when PyTorch cannot run here.
double torchStepSeconds(const ModelSpec& spec, int batch, int steps, int threads, std::string* why) {
    char script[2048];
    std::snprintf(script, sizeof script,
                  "import sys, time, statistics\n"
                  "try:\n import torch\nexcept ImportError:\n print('NO_TORCH'); sys.exit(0)\n"
                  "torch.set_num_threads(%d); torch.manual_seed(1)\n"
                  "act = {'relu': torch.nn.ReLU, 'gelu': torch.nn.GELU, 'tanh': torch.nn.Tanh}['%s']\n"
                  "layers, n = [], %d\n"
                  "for _ in range(%d - 1): layers += [torch.nn.Linear(n, %d), act()]; n = %d\n"
                  "model = torch.nn.Sequential(*layers, torch.nn.Linear(n, %d))\n"
                  "x = torch.randn(%d, %d); y = torch.randint(0, %d, (%d,)); loss = torch.nn.CrossEntropyLoss()\n"
                  "def step():\n model.zero_grad(set_to_none=True); loss(model(x), y).backward()\n"
                  "step(); t = []\n"
                  "for _ in range(%d):\n s = time.perf_counter(); step(); t.append(time.perf_counter() - s)\n"
                  "print(statistics.median(t))\n",
                  threads, spec.activation.c_str(), spec.input, spec.depth, spec.width, spec.width, spec.classes,
                  batch, spec.input, spec.classes, batch, steps);
    // Debian's python3-torch lives in the system interpreter, which a PATH python3 (pyenv, venv) may not see.
    for (const char* python : {"/usr/bin/python3", "python3"}) {
        const std::string command = std::string(python) + " - 2>/dev/null <<'PACER_EOF'\n" + script + "PACER_EOF\n";
        FILE* p = popen(command.c_str(), "r");
        if (!p) continue;
        char line[256] = {};
        const bool got = std::fgets(line, sizeof line, p) != nullptr;
        const int status = pclose(p);
        if (!got || status != 0 || std::strncmp(line, "NO_TORCH", 8) == 0) continue;
        return std::atof(line);
    }
    *why = "python3-torch is not installed (apt-get install python3-torch)";
    return -1;
}

// Pacer's CPU path is OpenBLAS, as PyTorch's CPU path is: the honest comparison is a whole training step of the
// same model in both, not one GEMM against itself. Pacer is measured before and after PyTorch and the two are
// averaged, so that load that comes and goes during the run falls on both sides.
void compareWithPyTorch(bool quick, int threads) {
    const int steps = quick ? 5 : 50;
    std::printf("== training step (forward + cross-entropy + backward), Pacer vs PyTorch CPU, %d thread(s), "
                "median of %d steps ==\n", threads, steps);
    std::printf("%-28s %6s %12s %12s %8s\n", "model", "batch", "pacer ms", "torch ms", "ratio");
    ModelSpec wide = loadModelSpec(std::string(PACER_SAMPLES_DIR) + "/models/mlp.json");
    wide.name = "mlp 1024 wide";
    wide.width = 1024;
    for (const ModelSpec& spec : {loadModelSpec(std::string(PACER_SAMPLES_DIR) + "/models/mlp.json"), wide}) {
        for (int batch : quick ? std::vector<int>{32} : std::vector<int>{32, 256}) {
            const double before = pacerStepSeconds(spec, batch, steps);
            std::string why;
            const double torch = torchStepSeconds(spec, batch, steps, threads, &why);
            const double pacer = (before + pacerStepSeconds(spec, batch, steps)) / 2;
            if (torch < 0) {
                std::printf("%-28s %6d %12.3f %12s %8s   PyTorch skipped: %s\n", spec.name.c_str(), batch, pacer * 1e3,
                            "-", "-", why.c_str());
                return;
            }
            // ratio > 1: Pacer's step takes longer than PyTorch's.
            std::printf("%-28s %6d %12.3f %12.3f %8.2f\n", spec.name.c_str(), batch, pacer * 1e3, torch * 1e3,
                        pacer / torch);
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    bool quick = false;
    int threads = 1, batch = 32;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--quick") quick = true;
        else if (a == "--threads" && i + 1 < argc) threads = std::atoi(argv[++i]);
        else if (a == "--batch" && i + 1 < argc) batch = std::atoi(argv[++i]);
        else {
            std::fprintf(stderr, "bench_kernels: error: unknown argument %s\n", a.c_str());
            return 2;
        }
    }
    if (quick) batch = 8;

    setCpuThreads(threads);
    compareWithPyTorch(quick, threads);

    for (const char* family : {"mlp", "cnn", "transformer"}) {
        const ModelSpec spec = loadModelSpec(std::string(PACER_SAMPLES_DIR) + "/models/" + family + ".json");
        auto model = Model::create(spec, 1);
        const SyntheticDataset data(spec, 1);
        const Batch b = data.batch(0, 0, 1, batch);
        const int L = model->layerCount();
        std::vector<double> fwd(L, 0), bwd(L, 0);
        std::vector<Clock::time_point> start(L);
        LayerHooks h;
        h.beforeForward = [&](int l) { start[l] = Clock::now(); };
        h.afterForward = [&](int l) { fwd[l] += seconds(start[l], Clock::now()); };
        h.beforeBackward = [&](int l) { start[l] = Clock::now(); };
        h.afterBackward = [&](int l) { bwd[l] += seconds(start[l], Clock::now()); };
        model->trainStep(b, {});  // warm-up: buffers are allocated on the first step
        const int iters = quick ? 1 : 10;
        const auto t0 = Clock::now();
        for (int i = 0; i < iters; ++i) model->trainStep(b, h);
        const double step = seconds(t0, Clock::now()) / iters;
        std::printf("\n== %s (%s): %zu params, batch %d, %.3f ms per training step ==\n", family, spec.name.c_str(),
                    parameterCount(spec), batch, step * 1e3);
        std::printf("%-14s %12s %12s %10s\n", "layer", "fwd us", "bwd us", "fwd GF/s");
        for (int l = 0; l < L; ++l) {
            const double f = fwd[l] / iters, g = bwd[l] / iters;
            const double gf = f > 0 ? model->layerForwardFlops(l) * batch / f * 1e-9 : 0;
            std::printf("%-14s %12.1f %12.1f %10.2f\n", model->layerName(l).c_str(), f * 1e6, g * 1e6, gf);
        }
    }
    return 0;
}
