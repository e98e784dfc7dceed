// The collective transport the runtime drives: sum all-reduce of float32 in place, and broadcast.
//
// Gloo (CPU, TCP, FileStore rendezvous) and NCCL (GPU, unique id through the same store) implement it. A transport
// may offer several channels: collectives on different channels may be in flight at once (each from its own
// thread), while the collectives of one channel run one at a time, in the same order on every rank. Every
// call has the timeout of TransportOptions; a failed or timed-out call returns a Status that names the peer
// rank that stopped (found through per-rank heartbeat files in the rendezvous directory), and after any
// failure the transport stays failed: later calls return at once. abort() unblocks a call in progress from
// another thread. Link emulation caps each rank's link so that a 2-core machine behaves like a cluster network.
#pragma once

#include "engine/status.h"
#include "engine/transport/point_to_point.h"

#include <chrono>
#include <cstddef>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace pacer::engine {

// Which transport carries CPU ranks. Auto: shared memory where every rank runs on this host (one copy in, one
// out, as NCCL and Open MPI do between local ranks), Gloo over TCP otherwise (loopback TCP copies every byte
// through the kernel twice and wakes an event-loop thread per message).
enum class CpuTransport { Auto, Gloo, SharedMemory };

// How shared memory's all-reduce writes the slots peers read: Auto measures ordinary and streaming stores while it
// runs and keeps the faster (engine/transport/shm_slot_stores.h); tests and benchmarks fix one.
enum class SlotStores { Auto, Cached, Streaming };

struct TransportOptions {
    int rank = 0;
    int size = 1;
    std::string rendezvous_dir;                 // shared directory for the FileStore and the heartbeat files
    std::chrono::milliseconds timeout{60000};   // every wait: rendezvous, each collective
    double link_gbps = 0;                       // 0 = no emulation
    double link_latency_us = 0;                 // per message step of the ring; 0 = none
    std::string host = "127.0.0.1";             // address this rank listens on (Gloo TCP)
    std::string iface;                          // or this network interface's address, when set (e.g. "eth0")
    // Collectives that may be in flight at once (Gloo: one connection set each, over one event loop, as
    // PyTorch's ProcessGroupGloo runs two by default). Each collective pays a fixed cost of thread wake-ups
    // and handshakes; with two or more in flight, one's fixed cost hides behind another's transfer.
    int channels = 1;
    CpuTransport cpu_transport = CpuTransport::Auto;  // makeCpuTransport's choice
    // Shared memory's point-to-point layer: receivers read senders' memory directly where every rank can (threads of
    // one process; process_vm_readv between processes), one copy per byte. false: always through the segment's
    // outbox slots (a copy in and one out), as where a rank cannot; tests run both.
    bool shm_direct_reads = true;
    SlotStores shm_slot_stores = SlotStores::Auto;
};

// Part of a fused unit: `count` floats at `data` in the transport's memory space.
struct FloatSpan {
    float* data;
    std::size_t count;
};

class Transport {
public:
    virtual ~Transport() = default;
    virtual int rank() const = 0;
    virtual int size() const = 0;
    // Collectives that may be in flight at once; allreduceOn takes 0..channels()-1.
    virtual int channels() const { return 1; }
    // What carries the collectives ("gloo", "shm", "nccl"): recorded with a run, since the CPU choice is automatic.
    virtual const char* name() const { return "transport"; }
    // Sum all-reduce in place on one channel; host memory (Gloo) or device memory (NCCL).
    virtual Status allreduceOn(int channel, float* data, std::size_t count) = 0;
    Status allreduce(float* data, std::size_t count) { return allreduceOn(0, data, count); }
    // Sum all-reduce of several buffers as one vector (a fused unit, or a unit with the control block riding on
    // it). The default packs them into scratch(), reduces once and unpacks; a transport that gathers and
    // scatters by itself (shared memory) overrides it and saves both copies.
    // Spans of inPlaceSpanFloats() or more are not packed but reduced in place by calls of their own.
    virtual Status allreduceSpansOn(int channel, const std::vector<FloatSpan>& spans);
    // Where a call of its own costs less than packing a span: never by default (NCCL packs with device copies,
    // which are cheap against a collective's launch; not measured on a GPU yet); Gloo's host copies overtake its
    // per-call cost from 1 MiB.
    virtual std::size_t inPlaceSpanFloats() const { return std::numeric_limits<std::size_t>::max(); }
    // Readies what allreduceSpansOn needs for up to `count` floats on a channel, so that the first large fused unit
    // does not allocate (and page-fault) its buffer in the middle of an iteration. The default sets up scratch().
    virtual Status reserveSpans(int channel, std::size_t count) { return scratch(count, channel).status(); }
    virtual Status broadcast(void* data, std::size_t bytes, int root) = 0;
    // The point-to-point layer of one channel, for the collective algorithms of engine/collectives (nullptr where
    // the transport has none). It shares the channel's connections, timeout, failure state and emulated link.
    virtual PointToPoint* pointToPoint(int /*channel*/) { return nullptr; }
    // Unblocks everything, from any thread; used on fatal errors. The transport is failed afterwards.
    virtual void abort() = 0;
    // What the transport found of the host while it ran, as named figures a run records with its metrics (shared
    // memory: its measured chunks and the share written with streaming stores). Call it while no collective runs.
    virtual std::vector<std::pair<std::string, double>> hostFigures() const { return {}; }

    // Where the data lives, so that the runtime can pack fused units: host memory unless overridden.
    virtual bool deviceMemory() const { return false; }
    // dst = src for count floats in the transport's memory space, ordered before the next collective.
    virtual Status copy(float* dst, const float* src, std::size_t count);
    // Waits until the copies issued so far are done (device transports); host copies are done already.
    virtual Status synchronize() { return Status::success(); }
    // Makes the next collective wait for a CUDA event (the gradient's); host transports ignore it.
    virtual Status waitEvent(void* cudaEvent) { return Status::success(); }
    // Scratch space in the transport's memory space for the fused buffers of one channel; valid until the next
    // call for that channel. Host scratch is zeroed as it grows, so its pages are in memory from then on.
    virtual Result<float*> scratch(std::size_t count, int channel = 0);

private:
    Status packAndReduce(int channel, const std::vector<FloatSpan>& spans);  // copy in, reduce once, copy out

    struct HostScratch {
        std::unique_ptr<float[]> data;
        std::size_t count = 0;
    };
    std::mutex scratchMutex_;           // channels ask from their own threads
    std::vector<HostScratch> scratch_;  // per channel
};

Status validate(const TransportOptions& options);

// Creates the rendezvous directory when missing, private to the user (0700): the store holds the ranks' listening
// addresses, and anyone who can write there can take a rank's place. An existing directory is left as it is, but
// one where `rank` has been before (its heartbeat file is there) belongs to an earlier run: that is reported as
// such, instead of the rendezvous failing later on the old run's files ("File already exists").
Status makeRendezvousDir(const std::string& dir, int rank);

Result<std::unique_ptr<Transport>> makeGlooTransport(const TransportOptions& options);

// Ranks of one host over POSIX shared memory (engine/transport/shm_transport.cpp).
Result<std::unique_ptr<Transport>> makeSharedMemoryTransport(const TransportOptions& options);

// The CPU transport that options.cpu_transport names; Auto asks every rank for its host through the rendezvous
// directory and picks shared memory when all are on this one, so every rank makes the same choice.
Result<std::unique_ptr<Transport>> makeCpuTransport(const TransportOptions& options);

// "auto", "gloo", "shm": the names used in experiment files and on command lines.
const char* cpuTransportName(CpuTransport kind);
Result<CpuTransport> parseCpuTransport(const std::string& name);

// NCCL over CUDA, one rank per GPU; commStream is a cudaStream_t (nullptr: the transport makes its own).
// Returns a clear error where NCCL was not built or no GPU is present.
Result<std::unique_ptr<Transport>> makeNcclTransport(const TransportOptions& options, int cudaDevice, void* commStream);

}  // namespace pacer::engine
