# Whole-run benchmarks (real workers through pacer-cli): included from tests/bench/CMakeLists.txt.
foreach(b bench_policies bench_prediction bench_tracing bench_vs_pytorch)
  pacer_add_bench(NAME ${b} SOURCES ${CMAKE_CURRENT_LIST_DIR}/${b}.cpp LIBS Qt6::Core nlohmann_json::nlohmann_json)
  add_dependencies(${b} pacer-cli pacer-worker)
endforeach()
# bench_vs_pytorch runs tests/bench/pytorch_ddp_mlp.py for PyTorch's side.
target_compile_definitions(bench_vs_pytorch PRIVATE PACER_SOURCE_DIR="${PACER_SOURCE_ROOT}")
