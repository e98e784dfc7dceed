// One rank of the transport process tests: integer-valued all-reduces, each sum checked exactly, through the CPU
// transport named on the command line, and optionally through one of Pacer's collective algorithms.
//   collective_process RANK RANKS RENDEZVOUS_DIR gloo|shm|shm-copy|shm-streaming|auto COUNTS ITERATIONS CHANNELS
//                      [TIMEOUT_MS [ALGORITHM [TOPOLOGY]]]
// COUNTS is one element count or several separated by commas (each iteration reduces each size in turn). ALGORITHM:
// native (the transport's own, the default) or a name of engine/collectives (auto calibrates first and then
// chooses per size); TOPOLOGY as for experiments (default flat; the torus algorithm defaults to the most nearly
// cubic torus). ITERATIONS 0 runs until a collective fails (fault tests kill a peer meanwhile). Prints "ready"
// after the first collective with the transport's name ("ready shm"). Exit 0: every sum exact; 1: a wrong sum or a
// transport error (one line on stderr); 2: bad arguments.
#include "engine/collectives/algorithm_cost.h"
#include "engine/collectives/calibrate.h"
#include "engine/transport/transport.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

using namespace pacer::engine;

int main(int argc, char** argv) {
    if (argc < 8 || argc > 11) {
        std::fprintf(stderr, "usage: collective_process RANK RANKS DIR gloo|shm|shm-copy|shm-streaming|auto COUNTS "
                             "ITERATIONS CHANNELS [TIMEOUT_MS [ALGORITHM [TOPOLOGY]]]\n");
        return 2;
    }
    TransportOptions o;
    o.rank = std::atoi(argv[1]);
    o.size = std::atoi(argv[2]);
    o.rendezvous_dir = argv[3];
    o.timeout = std::chrono::milliseconds(argc >= 9 ? std::atol(argv[8]) : 20000);
    o.channels = std::atoi(argv[7]);
    // shm-copy: shared memory with every point-to-point piece through the segment's outbox slots; shm-streaming:
    // shared memory whose all-reduce writes every chunk with streaming stores.
    const std::string kindName = argv[4];
    const bool copyThroughSlots = kindName == "shm-copy", streaming = kindName == "shm-streaming";
    o.shm_direct_reads = !copyThroughSlots;
    if (streaming) o.shm_slot_stores = SlotStores::Streaming;
    const auto kind = parseCpuTransport(copyThroughSlots || streaming ? "shm" : argv[4]);
    if (!kind.ok()) {
        std::fprintf(stderr, "%s\n", kind.message().c_str());
        return 2;
    }
    o.cpu_transport = kind.value();
    std::vector<std::size_t> counts;
    for (const char* at = argv[5];;) {
        char* end = nullptr;
        counts.push_back(std::strtoull(at, &end, 10));
        if (end == at || (*end != ',' && *end != '\0')) {
            std::fprintf(stderr, "COUNTS must be element counts separated by commas, not '%s'\n", argv[5]);
            return 2;
        }
        if (*end == '\0') break;
        at = end + 1;
    }
    const long iterations = std::atol(argv[6]);
    const auto algorithm = parseAlgorithm(argc >= 10 ? argv[9] : "native");
    if (!algorithm.ok()) {
        std::fprintf(stderr, "%s\n", algorithm.message().c_str());
        return 2;
    }
    const std::string topologyName = argc >= 11 ? argv[10] : "";
    const auto topology = topologyName.empty() && algorithm.value() == Algorithm::Torus
                              ? Result<Topology>(balancedTorus(o.size))
                              : parseTopology(topologyName.empty() ? "flat" : topologyName, o.size);
    if (!topology.ok()) {
        std::fprintf(stderr, "%s\n", topology.message().c_str());
        return 2;
    }
    auto made = makeCpuTransport(o);
    if (!made.ok()) {
        std::fprintf(stderr, "%s\n", made.message().c_str());
        return 1;
    }
    Transport& t = *made.value();
    LinkParams link;  // auto's, fitted on these ranks
    if (algorithm.value() == Algorithm::Auto) {
        auto fitted = calibrateLinkParams(t, topology.value());
        if (!fitted.ok()) {
            std::fprintf(stderr, "rank %d: %s\n", o.rank, fitted.message().c_str());
            return 1;
        }
        link = fitted.value();
    }
    auto reduce = [&](int channel, float* data, std::size_t count) -> Status {
        Algorithm a = algorithm.value();
        if (a == Algorithm::Auto) a = chooseAlgorithm(o.size, topology.value(), count * sizeof(float), link);
        if (a == Algorithm::Native) return t.allreduceOn(channel, data, count);
        PointToPoint* p2p = t.pointToPoint(channel);
        if (!p2p) return Status::error(std::string("the ") + t.name() + " transport has no point-to-point layer");
        return runAllreduce(a, *p2p, data, count, {topology.value(), 0});
    };
    // Each channel from its own thread, as the runtime drives them; values (rank+1)*(i%97+1)+iteration stay
    // integers far below 2^24, so every sum is exact in float.
    std::vector<std::string> errors(o.channels);
    std::vector<std::thread> threads;
    for (int c = 0; c < o.channels; ++c) {
        threads.emplace_back([&, c] {
            for (long it = 0; iterations == 0 || it < iterations; ++it) {
                for (std::size_t count : counts) {
                    std::vector<float> data(count);
                    for (std::size_t i = 0; i < count; ++i) data[i] = float((o.rank + 1) * (i % 97 + 1) + it % 64);
                    if (Status st = reduce(c, data.data(), count); !st.ok()) {
                        errors[c] = st.message();
                        return;
                    }
                    if (it == 0 && c == 0 && count == counts.front()) {
                        std::printf("ready %s\n", t.name());
                        std::fflush(stdout);
                    }
                    const long rankSum = long(o.size) * (o.size + 1) / 2;
                    for (std::size_t i = 0; i < count; ++i) {
                        const float want = float(rankSum * long(i % 97 + 1) + o.size * (it % 64));
                        if (data[i] != want) {
                            errors[c] = "element " + std::to_string(i) + " of " + std::to_string(count) +
                                        " in iteration " + std::to_string(it) + " is " + std::to_string(data[i]) +
                                        ", expected " + std::to_string(want);
                            return;
                        }
                    }
                }
            }
        });
    }
    for (auto& th : threads) th.join();
    for (const std::string& e : errors)
        if (!e.empty()) {
            std::fprintf(stderr, "rank %d: %s\n", o.rank, e.c_str());
            return 1;
        }
    return 0;
}
