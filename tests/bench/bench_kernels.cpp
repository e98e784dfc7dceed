// Kernel benchmarks: GEMM GFLOP/s of Pacer's CPU path (Backend::gemm with the configured threads) against a
// plain single-thread cblas_sgemm measured in the same run, then per-layer forward/backward times of each sample
// model family (the compute side that replay uses). --quick: small sizes, one timed iteration.
//   bench_kernels [--quick] [--threads N] [--batch B]
#include "kernels/backend.h"
#include "kernels/dataset.h"
#include "kernels/model.h"
#include "kernels/rng.h"

#include <cblas.h>

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
    const int reps = quick ? 1 : 5;

    std::printf("== GEMM (square, fp32), Pacer CPU path with %d thread(s) vs single-thread cblas_sgemm ==\n", threads);
    std::printf("%8s %14s %14s %8s %8s\n", "n", "pacer GFLOP/s", "base GFLOP/s", "ratio", "wrong");
    auto cpu = makeCpuBackend();
    for (int n : quick ? std::vector<int>{128} : std::vector<int>{128, 256, 512, 1024}) {
        std::vector<float> A(std::size_t(n) * n), B(A.size()), C1(A.size()), C2(A.size());
        Rng rng(n);
        for (float& v : A) v = rng.normal();
        for (float& v : B) v = rng.normal();
        openblas_set_num_threads(1);
        const double base = bestOf(reps, [&] {
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.f, A.data(), n, B.data(), n, 0.f,
                        C1.data(), n);
        });
        setCpuThreads(threads);
        const double ours = bestOf(reps, [&] { cpu->gemm(false, false, n, n, n, 1.f, A.data(), n, B.data(), n, 0.f, C2.data(), n); });
        int wrong = 0;
        for (std::size_t i = 0; i < C1.size(); ++i) wrong += std::abs(C1[i] - C2[i]) > 1e-3f * (1.f + std::abs(C1[i]));
        const double flop = 2.0 * n * n * n;
        std::printf("%8d %14.2f %14.2f %8.2f %8d\n", n, flop / ours * 1e-9, flop / base * 1e-9, base / ours, wrong);
    }
    setCpuThreads(threads);

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
