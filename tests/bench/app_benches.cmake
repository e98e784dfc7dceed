# Whole-run benchmarks (real workers through pacer-cli): included from tests/bench/CMakeLists.txt.
foreach(b bench_policies bench_prediction bench_tracing)
  pacer_add_bench(NAME ${b} SOURCES ${CMAKE_CURRENT_LIST_DIR}/${b}.cpp LIBS Qt6::Core nlohmann_json::nlohmann_json)
  add_dependencies(${b} pacer-cli pacer-worker)
endforeach()
