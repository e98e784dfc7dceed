// pacer-cli: the headless face of Pacer — capture, replay, sweep, compare, import, export, merge, runs, zoo, bench.
// Exit codes: 0 ok, 1 a failed run, 2 bad usage or bad input (one line on stderr: "pacer-cli: error: ...").
#include "app/cli/commands/commands.h"

#include <QCoreApplication>

#include <cstdio>
#include <exception>
#include <string>

namespace {

void printUsage(FILE* out) {
    std::fputs("usage: pacer-cli COMMAND [OPTIONS]\n\ncommands:\n", out);
    for (const pacer::cli::Command& c : pacer::cli::commands()) std::fprintf(out, "  %s\n", c.synopsis);
    std::fputs("\nSizes accept B, KiB, MiB, GiB. --json prints one JSON object on stdout.\n", out);
}

// The error line: whatever a message quotes from the input (a key with an escaped line break, SQLite quoting a
// corrupt schema) stays on it, so scripts reading stderr's last line get the whole error.
void printError(const char* message) {
    std::string line = message;
    for (char& c : line)
        if (static_cast<unsigned char>(c) < 0x20) c = ' ';
    std::fprintf(stderr, "pacer-cli: error: %s\n", line.c_str());
}

}  // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);  // the capture command runs the launcher's event loop
    if (argc < 2) {
        printUsage(stderr);
        std::fputs("pacer-cli: error: no command given\n", stderr);
        return 2;
    }
    const std::string name = argv[1];
    if (name == "--help" || name == "-h" || name == "help") {
        printUsage(stdout);
        return 0;
    }
    if (name == "--version") {
        std::puts("pacer-cli " PACER_CLI_VERSION);
        return 0;
    }
    for (const pacer::cli::Command& c : pacer::cli::commands()) {
        if (name != c.name) continue;
        try {
            std::vector<std::string> rest(argv + 2, argv + argc);
            for (const std::string& a : rest) {
                if (a == "--help" || a == "-h") {
                    std::printf("usage: pacer-cli %s\n", c.synopsis);
                    return 0;
                }
            }
            return c.run(pacer::cli::Args::parse(rest, c.options));
        } catch (const pacer::cli::CliError& e) {
            printError(e.what());
            return e.code;
        } catch (const std::exception& e) {
            printError(e.what());
            return 1;
        }
    }
    std::fprintf(stderr, "pacer-cli: error: unknown command '%s' (see pacer-cli --help)\n", name.c_str());
    return 2;
}
