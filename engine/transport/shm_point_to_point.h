// The shared-memory transport's point-to-point layer (engine/transport/point_to_point.h), over the outboxes of its
// segment (shm_segment.h); the transport (shm_transport.cpp) makes one per channel and judges its peers for it.
//
// The collective algorithms of engine/collectives run on it: every rank has an outbox per channel, 16 slots in
// the segment, each a label and 128 KiB of data. A sender posts each piece of a message (at most 128 KiB) in a free
// slot of its own outbox, labelled with the receiver, the collective, the round, the tag and the piece's index and
// where the piece is in the sender's memory, and rings the receiver's doorbell; the receiver reads the piece from
// the sender's memory, adding it straight into its vector (or copying it in), frees the slot and rings back. One
// copy per byte, no thread but the caller's (over loopback TCP each byte crosses the kernel twice and wakes Gloo's
// event loop): a plain copy between thread ranks of one process, process_vm_readv (one copy by the kernel) between
// processes. Where a rank cannot read its peers' memory (a container that forbids process_vm_readv; every rank
// probes every other at rendezvous and all learn the answer), the sender copies the piece into the slot's data
// and the receiver reads it from there: two copies, still no kernel. A direct send is through once its receiver
// has freed the slot, a copied one once it is in the slot. Labels, not slot positions, match pieces, so a piece for a later round may wait in
// an outbox until its receiver gets there. One loop per round both posts the sends (each piece when the emulated
// link of its port has carried it) and takes the receives, so a sender whose outbox is full keeps serving its
// peers and no round can deadlock. A doorbell is a futex word with a count of sleepers: the ringer makes the
// system call only when someone sleeps. A waiting round looks only at the peers it waits on: a rank that did its
// part of a collective and exited is no problem for ranks still exchanging with others.
#pragma once

#include "engine/transport/link_emulator.h"
#include "engine/transport/point_to_point.h"
#include "engine/transport/shm_segment.h"

#include <chrono>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace pacer::engine::shm {

// What a round needs of the transport it belongs to: how its peers stand, and its way of running a collective, so
// that a failed round fails the transport and tells the peers, as its own all-reduce does.
class RoundHost {
public:
    virtual ~RoundHost() = default;
    // The peer that gave up first and why, or empty.
    virtual std::string peerGaveUp() const = 0;
    // Why a wait must end now, or empty: a peer gave up, the process of a peer it waits on (`waitsOn(rank)`) is
    // gone, or the deadline passed. `done` looks once more whether the wait is over after all.
    virtual std::string whyStop(Clock::time_point deadline, const std::function<bool()>& done,
                                const std::function<bool(int)>& waitsOn) const = 0;
    virtual Status runRound(const std::string& what, std::size_t bytes, const std::function<Status()>& round) = 0;
};

// One channel's point-to-point layer.
class SharedMemoryPointToPoint final : public PointToPoint {
public:
    // `direct`: receivers read the senders' memory (no rank found another unreadable at rendezvous).
    SharedMemoryPointToPoint(const Segment& segment, int channel, int rank, int size, std::chrono::milliseconds timeout,
                             bool direct, LinkEmulator& link, RoundHost& host)
        : segment_(segment), channel_(channel), rank_(rank), size_(size), timeout_(timeout), direct_(direct),
          link_(link), host_(host) {}
    int rank() const override { return rank_; }
    int size() const override { return size_; }
    void beginCollective() override { ++collective_; }
    Status exchange(int round, std::span<const P2POp> sends, std::span<const P2POp> receives) override;

private:
    Status roundTrip(std::uint32_t round, std::span<const P2POp> sends, std::span<const P2POp> receives);
    Status readPeer(int peer, std::uint64_t address, float* to, std::size_t count, bool add);

    Segment segment_;
    int channel_, rank_, size_;
    std::chrono::milliseconds timeout_;
    bool direct_;
    LinkEmulator& link_;
    RoundHost& host_;
    std::uint64_t collective_ = 0;
    std::vector<float> bounce_;  // a piece read from another process, to be added
};

}  // namespace pacer::engine::shm
