// One rank of the transport process tests: integer-valued all-reduces of one size, each sum checked exactly,
// through the CPU transport named on the command line.
//   collective_process RANK RANKS RENDEZVOUS_DIR gloo|shm|auto COUNT ITERATIONS CHANNELS [TIMEOUT_MS]
// ITERATIONS 0 runs until a collective fails (fault tests kill a peer meanwhile). Prints "ready" after the first
// collective with the transport's name ("ready shm"). Exit 0: every sum exact; 1: a wrong sum or a transport error (one line on stderr); 2: bad arguments.
#include "engine/transport/transport.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

using namespace pacer::engine;

int main(int argc, char** argv) {
    if (argc != 8 && argc != 9) {
        std::fprintf(stderr, "usage: collective_process RANK RANKS DIR gloo|shm|auto COUNT ITERATIONS CHANNELS [TIMEOUT_MS]\n");
        return 2;
    }
    TransportOptions o;
    o.rank = std::atoi(argv[1]);
    o.size = std::atoi(argv[2]);
    o.rendezvous_dir = argv[3];
    o.timeout = std::chrono::milliseconds(argc == 9 ? std::atol(argv[8]) : 20000);
    o.channels = std::atoi(argv[7]);
    const auto kind = parseCpuTransport(argv[4]);
    if (!kind.ok()) {
        std::fprintf(stderr, "%s\n", kind.message().c_str());
        return 2;
    }
    o.cpu_transport = kind.value();
    const std::size_t count = std::strtoull(argv[5], nullptr, 10);
    const long iterations = std::atol(argv[6]);
    auto made = makeCpuTransport(o);
    if (!made.ok()) {
        std::fprintf(stderr, "%s\n", made.message().c_str());
        return 1;
    }
    Transport& t = *made.value();
    // Each channel from its own thread, as the runtime drives them; values (rank+1)*(i%97+1)+iteration stay
    // integers far below 2^24, so every sum is exact in float.
    std::vector<std::string> errors(o.channels);
    std::vector<std::thread> threads;
    for (int c = 0; c < o.channels; ++c) {
        threads.emplace_back([&, c] {
            std::vector<float> data(count);
            for (long it = 0; iterations == 0 || it < iterations; ++it) {
                for (std::size_t i = 0; i < count; ++i) data[i] = float((o.rank + 1) * (i % 97 + 1) + it % 64);
                if (Status st = t.allreduceOn(c, data.data(), count); !st.ok()) {
                    errors[c] = st.message();
                    return;
                }
                if (it == 0 && c == 0) {
                    std::printf("ready %s\n", t.name());
                    std::fflush(stdout);
                }
                const long rankSum = long(o.size) * (o.size + 1) / 2;
                for (std::size_t i = 0; i < count; ++i) {
                    const float want = float(rankSum * long(i % 97 + 1) + o.size * (it % 64));
                    if (data[i] != want) {
                        errors[c] = "element " + std::to_string(i) + " of iteration " + std::to_string(it) + " is " +
                                    std::to_string(data[i]) + ", expected " + std::to_string(want);
                        return;
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
