// The pacer-cli commands (DESIGN.md "CLI contract"). Each reads its Args, prints a human summary or, with
// --json, one JSON object on stdout, and returns the exit code; bad usage and failures are thrown as CliError.
#pragma once

#include "app/cli/cli_args.h"

#include <nlohmann/json.hpp>

namespace pacer::cli {

struct Command {
    const char* name;
    const char* synopsis;
    OptionSpec options;
    int (*run)(const Args& args);
};

const std::vector<Command>& commands();

int runCapture(const Args& args);
int runReplay(const Args& args);
int runSweep(const Args& args);
int runCompare(const Args& args);
int runImport(const Args& args);
int runExport(const Args& args);
int runMerge(const Args& args);
int runRuns(const Args& args);
int runAnalyze(const Args& args);
int runZoo(const Args& args);
int runBench(const Args& args);

// Shared by the commands: one JSON object on stdout.
void printJson(const nlohmann::json& j);

}  // namespace pacer::cli
