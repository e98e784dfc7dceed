#include "app/worker/progress.h"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace pacer::worker {
namespace {

void emit(const nlohmann::json& j) {
    const std::string line = j.dump() + "\n";
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fflush(stdout);
}

}  // namespace

void Progress::iteration(int iteration, int total, float loss) {
    emit({{"event", "progress"}, {"rank", rank_}, {"iteration", iteration + 1}, {"total", total}, {"loss", loss}});
}

void Progress::note(const std::string& message) {
    emit({{"event", "note"}, {"rank", rank_}, {"message", message}});
}

void Progress::done(double iterMs, float loss, const std::string& paramHash) {
    emit({{"event", "done"}, {"rank", rank_}, {"iter_ms", iterMs}, {"loss", loss}, {"param_hash", paramHash}});
}

}  // namespace pacer::worker
