// The choice between the CPU transports: shared memory where every rank is on this host, Gloo elsewhere.
#include "engine/transport/transport.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace pacer::engine {
namespace {

// What makes two ranks co-located: the same host name and the same boot (containers on different machines may
// share a host name; the kernel's boot id tells them apart).
std::string hostIdentity() {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    std::ifstream boot("/proc/sys/kernel/random/boot_id");
    std::string bootId;
    std::getline(boot, bootId);
    return std::string(host) + " " + bootId;
}

// Publishes this rank's host in the rendezvous directory and reads every rank's; true when all are this one.
Result<bool> allOnThisHost(const TransportOptions& o) {
    // Private (0700) and refused when an earlier run left its files here, before this rank's host is written.
    PACER_RETURN_IF_ERROR(makeRendezvousDir(o.rendezvous_dir, o.rank));
    const std::string mine = hostIdentity();
    const auto pathOf = [&](int r) { return o.rendezvous_dir + "/pacer-host-" + std::to_string(r); };
    const std::string tmp = pathOf(o.rank) + ".tmp";
    if (!(std::ofstream(tmp) << mine << '\n') || std::rename(tmp.c_str(), pathOf(o.rank).c_str()) != 0)
        return Status::error("cannot write " + pathOf(o.rank));
    const auto deadline = std::chrono::steady_clock::now() + o.timeout;
    bool same = true;
    for (int r = 0; r < o.size; ++r) {
        std::string theirs;
        for (;;) {
            std::ifstream in(pathOf(r));
            if (std::getline(in, theirs)) break;
            if (std::chrono::steady_clock::now() >= deadline)
                return Status::error("rank " + std::to_string(o.rank) + ": rank " + std::to_string(r) +
                                     " never joined the rendezvous in " + o.rendezvous_dir + " within " +
                                     std::to_string(o.timeout.count()) + " ms");
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
        same = same && theirs == mine;
    }
    return same;
}

}  // namespace

const char* cpuTransportName(CpuTransport kind) {
    switch (kind) {
    case CpuTransport::Gloo: return "gloo";
    case CpuTransport::SharedMemory: return "shm";
    case CpuTransport::Auto: break;
    }
    return "auto";
}

Result<CpuTransport> parseCpuTransport(const std::string& name) {
    for (CpuTransport k : {CpuTransport::Auto, CpuTransport::Gloo, CpuTransport::SharedMemory})
        if (name == cpuTransportName(k)) return k;
    return Status::error("unknown transport '" + name + "' (auto, gloo, shm)");
}

Result<std::unique_ptr<Transport>> makeCpuTransport(const TransportOptions& o) {
    PACER_RETURN_IF_ERROR(validate(o));
    switch (o.cpu_transport) {
    case CpuTransport::Gloo: return makeGlooTransport(o);
    case CpuTransport::SharedMemory: return makeSharedMemoryTransport(o);
    case CpuTransport::Auto: break;
    }
    auto local = allOnThisHost(o);
    if (!local.ok()) return local.status();
    return local.value() ? makeSharedMemoryTransport(o) : makeGlooTransport(o);
}

}  // namespace pacer::engine
