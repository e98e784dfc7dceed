// What a worker tells its launcher while it runs: one JSON object per line on stdout, flushed at once.
//   {"event":"progress","rank":0,"iteration":3,"total":30,"loss":2.31}
//   {"event":"note","rank":0,"message":"..."}
//   {"event":"done","rank":0,"iter_ms":4.2,"loss":0.8,"param_hash":"9f0c..."}
#pragma once

#include <string>

namespace pacer::worker {

class Progress {
public:
    explicit Progress(int rank) : rank_(rank) {}
    void iteration(int iteration, int total, float loss);
    void note(const std::string& message);
    void done(double iterMs, float loss, const std::string& paramHash);

private:
    int rank_;
};

}  // namespace pacer::worker
