#include "app/cli/commands/commands.h"

#include <cstdio>

namespace pacer::cli {

void printJson(const nlohmann::json& j) {
    const std::string text = j.dump(2) + "\n";
    std::fwrite(text.data(), 1, text.size(), stdout);
}

const std::vector<Command>& commands() {
    static const std::vector<Command> all = {
        {"capture",
         "capture --experiment FILE --out PROJECT [--ranks N] [--policy P] [--segment-bytes S] [--iterations K]\n"
         "                  [--backend cpu|gpu] [--order dynamic|plan] [--channels C] [--transport auto|gloo|shm]\n"
         "                  [--link-gbps G] [--link-latency-us U] [--timeout-s T] [--keep-run-dir]\n"
         "                  [--algorithm native|ring|recursive-doubling|halving-doubling|torus|auto]\n"
         "                  [--topology flat|ring|torus|torus:XxYxZ] [--json]",
         {{"experiment", "out", "ranks", "policy", "segment-bytes", "iterations", "backend", "order", "channels", "transport",
           "link-gbps", "link-latency-us", "timeout-s", "algorithm", "topology"},
          {"json", "keep-run-dir"},
          false},
         runCapture},
        {"replay",
         "replay  (--project PROJECT [--run ID] | --model NAME_OR_FILE) [--policy P] [--segment-bytes S]\n"
         "                  [--priorities FILE] [--ranks N] [--link-gbps G] [--link-latency-us U] [--compute-speed X]\n"
         "                  [--bucket-bytes S] [--credit C] [--channels C] [--iterations K] [--fusion-search]\n"
         "                  [--algorithm native|ring|recursive-doubling|halving-doubling|torus|auto]\n"
         "                  [--topology flat|ring|torus|torus:XxYxZ] [--save-to PROJECT] [--json]\n"
         "                  (without --policy a run is replayed as it ran: its own policy and settings)",
         {{"project", "run", "model", "policy", "segment-bytes", "priorities", "ranks", "link-gbps", "link-latency-us",
           "compute-speed", "channels", "bucket-bytes", "credit", "iterations", "save-to", "device-tflops", "algorithm",
           "topology"},
          {"json", "fusion-search"},
          false},
         runReplay},
        {"sweep",
         "sweep   (--project PROJECT [--run ID] | --model NAME_OR_FILE) [--policy P]   (default: the run's own)\n"
         "                  (--segment-bytes MIN:MAX | --bucket-bytes MIN:MAX | --credit MIN:MAX | --ranks MIN:MAX)\n"
         "                  [--ranks N] [--link-gbps G] [--link-latency-us U] [--compute-speed X] [--channels C]\n"
         "                  [--algorithm A] [--topology flat|ring|torus|torus:XxYxZ] [--json]",
         {{"project", "run", "model", "policy", "segment-bytes", "bucket-bytes", "credit", "ranks", "link-gbps",
           "link-latency-us", "compute-speed", "channels", "device-tflops", "algorithm", "topology"},
          {"json"},
          false},
         runSweep},
        {"compare",
         "compare --project PROJECT [--run ID] [--baseline N] RUN_OR_SCHEDULE... [--json]   (a run id;\n"
         "                  POLICY[:SEGMENT_BYTES][@RUN] or a saved schedule's name, replayed on @RUN, else on the last\n"
         "                  run named before it, else on --run, else on the latest run; one table per experiment;\n"
         "                  changes against the N-th item, default the first, within its experiment)",
         {{"project", "run", "baseline"}, {"json"}, true},
         runCompare},
        {"diff",
         "diff    --project PROJECT A B [--run ID] [--json]   (A, B: run ids, or POLICY[:SEGMENT_BYTES] replayed on\n"
         "                  the latest run or --run): per unit or kernel, the change in count, start and duration",
         {{"project", "run"}, {"json"}, true},
         runDiff},
        {"import", "import  --format chrome|nsys FILE... --out PROJECT [--json]", {{"format", "out"}, {"json"}, true},
         runImport},
        {"export", "export  --format chrome|perfetto --project PROJECT --run ID --out FILE",
         {{"format", "project", "run", "out"}, {}, false}, runExport},
        {"merge", "merge   RANK_FILE... --out PROJECT [--json]", {{"out"}, {"json"}, true}, runMerge},
        {"runs",
         "runs    --project PROJECT [--rename ID --label TEXT | --delete ID | --annotate ID --note TEXT] [--json]",
         {{"project", "rename", "label", "delete", "annotate", "note"}, {"json"}, false},
         runRuns},
        {"analyze", "analyze --project PROJECT [--run ID] [--iteration K] [--json]",
         {{"project", "run", "iteration"}, {"json"}, false}, runAnalyze},
        {"zoo", "zoo     list [--json]", {{}, {"json"}, true}, runZoo},
        {"bench",
         "bench   allreduce [--algorithm plan|dynamic|ring|recursive-doubling|halving-doubling|torus|auto]\n"
         "                  [--topology flat|ring|torus|torus:XxYxZ] [--ranks N] [--sizes MIN:MAX] [--segment-bytes S]\n"
         "                  [--channels C] [--iterations K] [--rounds R] [--seconds S] [--link-gbps G]\n"
         "                  [--link-latency-us U] [--transport gloo|shm] [--json]",
         {{"algorithm", "topology", "ranks", "sizes", "segment-bytes", "channels", "iterations", "rounds", "seconds",
           "link-gbps", "link-latency-us", "transport"},
          {"json"},
          true},
         runBench},
    };
    return all;
}

}  // namespace pacer::cli
