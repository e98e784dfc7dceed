// One rank of the engine's process tests: a real process with its own transport (Gloo with a FileStore rendezvous
// in a shared directory, or shared memory), running the same integer-valued training loop as the thread tests
// and checking every sum.
//   rank_process RANK RANKS RENDEZVOUS_DIR POLICY plan|dynamic SEGMENT_BYTES [gloo|shm|auto|ALGORITHM]
// ALGORITHM: how units are reduced (engine/collectives; native by default), over Gloo on the most nearly cubic
// torus; gloo|shm|auto: the transport of a native reduction.
// Exit 0: every element of every iteration was the exact sum; 1: a wrong sum or an engine error (on stderr);
// 2: bad arguments.
#include "rank_training.h"

#include "engine/transport/transport.h"

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace pacer::engine;
using namespace pacer::engine::testing;

int main(int argc, char** argv) {
    if (argc != 7 && argc != 8) {
        std::fprintf(stderr, "usage: rank_process RANK RANKS RENDEZVOUS_DIR POLICY plan|dynamic SEGMENT_BYTES [gloo|shm|auto|ALGORITHM]\n");
        return 2;
    }
    Training training;
    const bool transportGiven = argc == 8 && parseCpuTransport(argv[7]).ok();
    if (argc == 8 && !transportGiven) {
        auto algorithm = parseAlgorithm(argv[7]);
        if (!algorithm.ok()) {
            std::fprintf(stderr, "%s\n", algorithm.message().c_str());
            return 2;
        }
        training.algorithm = algorithm.value();
        training.topology = balancedTorus(std::atoi(argv[2]));
    }
    const int rank = std::atoi(argv[1]);
    const int ranks = std::atoi(argv[2]);
    const std::string mode = argv[5];
    TransportOptions o;
    o.rank = rank;
    o.size = ranks;
    o.rendezvous_dir = argv[3];
    o.timeout = std::chrono::milliseconds(20000);
    const auto kind = parseCpuTransport(transportGiven ? argv[7] : "gloo");
    if (!kind.ok()) {
        std::fprintf(stderr, "%s\n", kind.message().c_str());
        return 2;
    }
    o.cpu_transport = kind.value();
    auto transport = makeCpuTransport(o);
    if (!transport.ok()) {
        std::fprintf(stderr, "rank %d: %s\n", rank, transport.message().c_str());
        return 1;
    }
    PolicyConfig config;
    config.name = argv[4];
    config.segment_bytes = std::strtoull(argv[6], nullptr, 10);
    config.first_bucket_bytes = 4096;
    config.bucket_bytes = 64 << 10;
    config.fusion_bytes = 64 << 10;
    config.cycle_ns = 200'000;
    config.fuse_below_bytes = 1024;
    const auto tensors = makeTensors({1, 7, 1000, 33, 10003, 5, 129});  // odd sizes, a multi-segment one, fusable ones
    if (config.name == "manual")
        for (std::size_t i = 0; i < tensors.size(); ++i) config.priorities.push_back(static_cast<int>(tensors.size() - i));
    const Status st = trainRank(rank, ranks, *transport.value(), config,
                                mode == "plan" ? OrderMode::Plan : OrderMode::Dynamic, tensors, nullptr, training);
    if (!st.ok()) {
        std::fprintf(stderr, "rank %d: %s\n", rank, st.message().c_str());
        return 1;
    }
    return 0;
}
