// CPU ranks of one host over POSIX shared memory: the collective path NCCL and Open MPI take between local ranks.
//
// Why: over loopback TCP (Gloo) every byte is copied into the kernel and out again, each message wakes Gloo's
// event-loop thread and then the caller, and the reduction runs after the bytes arrived. Here each rank copies
// its data once into its slot of a shared segment, reduces its own share of every rank's slot (reduce-scatter),
// and copies the other ranks' reduced shares out (allgather): two copies and one pass of adds per byte, and no
// thread but the caller's.
//
// Layout: a header (ranks' pids, an abort word), then per channel a control line (an arrival counter) and two
// sets of one slot per rank. A collective walks its buffer in slot-sized chunks, alternating the sets, with two
// barriers per chunk (after the copy in: every slot is full; after the reduction: every share is summed). The
// next chunk writes the other set, and the chunk after it writes this set only after everyone passed a barrier
// that follows their last read of it, so there is no third barrier.
//
// Barriers: an arrival counter per channel in the segment; a rank adds one and, if others are missing, spins
// briefly, then sleeps on a futex on the counter (the last arriver wakes everyone). Every sleep is a slice of
// at most 50 ms, after which the waiter checks the deadline (the transport's timeout), the abort word (a peer
// gave up: fail at once, as Gloo's closed connections do) and its peers' processes (one that exited or became a
// zombie is named at once); a stopped or hung peer is named by its stale heartbeat at the timeout. Never a hang.
//
// Point-to-point (the collective algorithms of engine/collectives): every rank has an outbox per channel, 16 slots in
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
//
// Rendezvous: rank 0 creates the segment under a unique name and publishes the name in <dir>/pacer-shm; the
// others open it, register their pid and wait until all have; then rank 0 unlinks the name, so nothing is left
// in /dev/shm whatever happens later.
#include "engine/transport/heartbeat.h"
#include "engine/transport/link_emulator.h"
#include "engine/transport/transport.h"

#include <fcntl.h>
#include <signal.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <span>
#include <thread>

namespace pacer::engine {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::uint32_t kMagic = 0x50534d32;  // "PSM2": with outboxes
constexpr int kMaxRanks = 64;
// 1 MiB per rank and set: a 25 MiB DDP bucket is 25 chunks (50 barriers of a few µs), while 16 channels of 8
// ranks still fit in 512 MiB of /dev/shm with the outboxes.
constexpr std::size_t kSlotFloats = std::size_t(1) << 18;
// Point-to-point outbox per rank and channel: 16 pieces of at most 128 KiB in flight, enough for every port of a
// 3-D torus to have two or more on their way while the receiver adds the ones before.
constexpr int kOutboxSlots = 16;
constexpr std::size_t kPieceFloats = std::size_t(1) << 15;
constexpr auto kPeerCheck = std::chrono::milliseconds(20);  // how often a waiting round looks for dead peers
// The word each rank's peers read at rendezvous to learn whether they can read its memory.
const std::uint64_t kProbeWord = 0x5041434552524541;
constexpr auto kSpin = std::chrono::microseconds(30);   // spin before sleeping: a peer arriving soon costs no wake-up
constexpr auto kSleepSlice = std::chrono::milliseconds(50);
constexpr auto kPollRendezvous = std::chrono::milliseconds(2);

struct alignas(64) Header {
    std::uint32_t magic;
    std::uint32_t ranks;
    std::uint32_t channels;
    std::uint32_t slot_floats;
    std::int32_t creator_pid;
    std::atomic<std::uint32_t> attached;
    std::atomic<std::int32_t> aborted_by;  // 0; -1 while the first rank to give up writes its reason; 1 + that rank
    char abort_reason[512];                 // why it gave up (it may have named a dead peer first)
    std::atomic<std::int32_t> pids[kMaxRanks];
    // Whether every rank can read every other rank's memory (process_vm_readv; threads of one process always can):
    // each publishes the address of a known word, reads its peers' and counts itself as probed.
    std::uint64_t probe_address[kMaxRanks];
    std::atomic<std::uint32_t> probed;
    std::atomic<std::uint32_t> unreadable;  // set by a rank that could not read a peer's word
};
struct alignas(64) ChannelControl {
    std::atomic<std::uint32_t> arrivals;  // also the futex word
};
// A rank's point-to-point doorbell on one channel: rung when a piece for it lands or a slot of its outbox is freed.
struct alignas(64) Doorbell {
    std::atomic<std::uint32_t> rings;     // the futex word
    std::atomic<std::uint32_t> sleepers;  // waiters in FUTEX_WAIT (a ringer skips the system call when 0)
};
// The label of one outbox slot. `owner` is 0 while the slot is free, and 1 + the receiving rank from when the sender
// has written the piece and the rest of the label (a release store) until that rank has taken it: only the
// receiver reads the rest, and only the receiver frees the slot, so no one reads a label being rewritten.
struct alignas(64) OutboxSlot {
    std::atomic<std::uint32_t> owner;
    std::uint32_t round, tag, piece, count;
    std::uint64_t collective;
    std::uint64_t address;  // direct reads: where the piece is in the sender's memory (the slot's data is unused)
};
static_assert(std::atomic<std::uint32_t>::is_always_lock_free && sizeof(std::atomic<std::uint32_t>) == 4);

// Where each part of the segment starts: header, channel counters, doorbells and slot labels, then (page-aligned)
// the all-reduce slots and the outboxes' data.
struct SegmentLayout {
    std::size_t doorbells, labels, slots, outboxes, bytes;
    SegmentLayout(int ranks, int channels) {
        const std::size_t perChannel = std::size_t(channels) * ranks;
        doorbells = sizeof(Header) + sizeof(ChannelControl) * channels;
        labels = doorbells + sizeof(Doorbell) * perChannel;
        slots = (labels + sizeof(OutboxSlot) * perChannel * kOutboxSlots + 4095) / 4096 * 4096;
        outboxes = slots + perChannel * 2 * kSlotFloats * sizeof(float);
        bytes = outboxes + perChannel * kOutboxSlots * kPieceFloats * sizeof(float);
    }
};

std::size_t segmentBytes(int ranks, int channels) { return SegmentLayout(ranks, channels).bytes; }

long futex(std::atomic<std::uint32_t>* word, int op, std::uint32_t value, const timespec* timeout) {
    return syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), op, value, timeout, nullptr, 0);
}

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    std::this_thread::yield();
#endif
}

// A peer that exited (or was killed and not yet reaped by its parent) is dead whatever its heartbeat says.
bool processGone(pid_t pid) {
    if (pid <= 0) return false;
    if (kill(pid, 0) != 0 && errno == ESRCH) return true;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return false;  // no /proc: rely on kill and the heartbeat
    const auto paren = line.rfind(')');
    return paren != std::string::npos && paren + 2 < line.size() && (line[paren + 2] == 'Z' || line[paren + 2] == 'X');
}

// The hash in the segment's name: several runs on one host never share a name.
std::string segmentName(const std::string& dir) {
    const auto now = Clock::now().time_since_epoch().count();
    return "/pacer-" + std::to_string(getpid()) + "-" + std::to_string(std::hash<std::string>{}(dir) ^ now);
}

class Mapping {
public:
    Mapping() = default;
    Mapping(void* base, std::size_t bytes) : base_(base), bytes_(bytes) {}
    Mapping(Mapping&& o) noexcept : base_(std::exchange(o.base_, nullptr)), bytes_(o.bytes_) {}
    Mapping& operator=(Mapping&& o) noexcept {
        std::swap(base_, o.base_);
        std::swap(bytes_, o.bytes_);
        return *this;
    }
    ~Mapping() {
        if (base_) munmap(base_, bytes_);
    }
    char* bytes() const { return static_cast<char*>(base_); }
    explicit operator bool() const { return base_ != nullptr; }

private:
    void* base_ = nullptr;
    std::size_t bytes_ = 0;
};

Result<Mapping> mapSegment(int fd, std::size_t bytes) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) return Status::error(std::string("cannot map the shared-memory segment: ") + std::strerror(errno));
    return Mapping(p, bytes);
}

class SharedMemoryTransport;

// The point-to-point layer of one channel (engine/transport/point_to_point.h); the transport does the work.
class SharedMemoryPointToPoint final : public PointToPoint {
public:
    SharedMemoryPointToPoint(SharedMemoryTransport& owner, int channel) : owner_(owner), channel_(channel) {}
    int rank() const override;
    int size() const override;
    void beginCollective() override { ++collective_; }
    Status exchange(int round, std::span<const P2POp> sends, std::span<const P2POp> receives) override;

private:
    SharedMemoryTransport& owner_;
    int channel_;
    std::uint64_t collective_ = 0;
};

// Floats per piece of a message of `count` floats: a quarter of it, 16 KiB to one outbox slot; both ends compute it
// from the count alone. Pieces let the sender's copies, the receiver's adds and the emulated wire time overlap.
std::size_t pieceFloats(std::size_t count) {
    return std::clamp<std::size_t>((count + 3) / 4, std::size_t(4) << 10, kPieceFloats);
}

class SharedMemoryTransport final : public Transport {
public:
    SharedMemoryTransport(const TransportOptions& o, Mapping mapping, std::unique_ptr<Heartbeat> heartbeat)
        : options_(o), layout_(o.size, o.channels), mapping_(std::move(mapping)), heartbeat_(std::move(heartbeat)),
          link_(o.link_gbps, o.link_latency_us, o.size), barriers_(o.channels, 0), chunks_(o.channels, 0),
          direct_(mapping_ && header().unreadable.load() == 0), bounce_(o.channels) {
        for (int c = 0; c < o.channels; ++c) p2p_.push_back(std::make_unique<SharedMemoryPointToPoint>(*this, c));
    }

    int rank() const override { return options_.rank; }
    int size() const override { return options_.size; }
    int channels() const override { return options_.channels; }
    const char* name() const override { return "shm"; }

    Status allreduceOn(int channel, float* data, std::size_t count) override {
        return allreduceSpansOn(channel, {{data, count}});
    }

    // The spans are one vector: chunks gather from them into the slot and scatter back, with no fused buffer.
    Status allreduceSpansOn(int channel, const std::vector<FloatSpan>& spans) override {
        if (channel < 0 || channel >= channels())
            return Status::error("all-reduce on channel " + std::to_string(channel) + " of " + std::to_string(channels()));
        std::size_t count = 0;
        for (const FloatSpan& s : spans) count += s.count;
        if (options_.size == 1 || count == 0) return failed_ ? failure() : Status::success();
        const std::size_t bytes = count * sizeof(float);
        return run("all-reduce", bytes, link_.reserveAllreduce(Clock::now(), bytes), [&]() -> Status {
            const int n = options_.size, me = options_.rank;
            const auto toSlot = [](float* s, float* d, std::size_t k) { std::memcpy(d, s, k * sizeof(float)); };
            const auto fromSlot = [](float* s, float* d, std::size_t k) { std::memcpy(s, d, k * sizeof(float)); };
            for (std::size_t offset = 0; offset < count; offset += kSlotFloats) {
                const std::size_t m = std::min(kSlotFloats, count - offset);
                const int set = static_cast<int>(chunks_[channel]++ & 1);
                float* mine = slot(channel, set, me);
                visit(spans, offset, m, mine, toSlot);
                PACER_RETURN_IF_ERROR(barrier(channel));
                // Reduce-scatter: this rank sums share `me` of every slot into its own slot, in rank order; the
                // pass over the last peer also writes the sums out (one pass fewer over the share).
                const auto [lo, hi] = share(me, m);
                const int last = me == n - 1 ? n - 2 : n - 1;
                for (int r = 0; r < n; ++r)
                    if (r != me && r != last) addInto(mine + lo, slot(channel, set, r) + lo, hi - lo);
                const float* lastSlot = slot(channel, set, last);
                visit(spans, offset + lo, hi - lo, mine + lo, [&](float* out, float* sum, std::size_t k) {
                    addInto(sum, lastSlot + (sum - mine), k, out);
                });
                PACER_RETURN_IF_ERROR(barrier(channel));
                // Allgather: every other share from the rank that summed it.
                for (int r = 0; r < n; ++r) {
                    if (r == me) continue;
                    const auto [rlo, rhi] = share(r, m);
                    visit(spans, offset + rlo, rhi - rlo, slot(channel, set, r) + rlo, fromSlot);
                }
            }
            return Status::success();
        });
    }

    Status broadcast(void* data, std::size_t bytes, int root) override {
        if (root < 0 || root >= options_.size)
            return Status::error("broadcast root " + std::to_string(root) + " is not a rank");
        if (options_.size == 1 || bytes == 0) return failed_ ? failure() : Status::success();
        // Channel 0: broadcasts are the runtime's own, never concurrent with channel 0's all-reduces.
        return run("broadcast", bytes, link_.reserveBroadcast(Clock::now(), bytes), [&]() -> Status {
            const std::size_t slotBytes = kSlotFloats * sizeof(float);
            auto* p = static_cast<char*>(data);
            for (std::size_t offset = 0; offset < bytes; offset += slotBytes) {
                const std::size_t m = std::min(slotBytes, bytes - offset);
                const int set = static_cast<int>(chunks_[0]++ & 1);
                auto* src = reinterpret_cast<char*>(slot(0, set, root));
                if (options_.rank == root) std::memcpy(src, p + offset, m);
                PACER_RETURN_IF_ERROR(barrier(0));
                if (options_.rank != root) std::memcpy(p + offset, src, m);
            }
            return Status::success();
        });
    }

    PointToPoint* pointToPoint(int channel) override {
        return channel >= 0 && channel < channels() ? p2p_[channel].get() : nullptr;
    }

    void abort() override {
        // The message first, then the flag: whoever sees failed_ must find the message in place.
        setError("rank " + std::to_string(options_.rank) + ": transport aborted");
        if (failed_.exchange(true)) return;
        signalAbort(failure().message());
    }

    // One point-to-point round of `collective` on `channel` (SharedMemoryPointToPoint::exchange).
    Status exchangeOn(int channel, std::uint64_t collective, int round, std::span<const P2POp> sends,
                      std::span<const P2POp> receives) {
        std::size_t bytes = 0;
        for (const P2POp& op : sends) bytes += op.count * sizeof(float);
        for (const P2POp& op : receives) bytes += op.count * sizeof(float);
        for (std::span<const P2POp> ops : {sends, receives})
            for (const P2POp& op : ops)
                if (op.peer < 0 || op.peer >= options_.size || op.peer == options_.rank || op.tag < 0 || op.tag > 255)
                    return Status::error("point-to-point message to or from " + std::to_string(op.peer) + " with tag " +
                                         std::to_string(op.tag) + " on rank " + std::to_string(options_.rank) + " of " +
                                         std::to_string(options_.size));
        if (options_.size == 1 || bytes == 0) return failed_ ? failure() : Status::success();
        const std::string what = "point-to-point round " + std::to_string(round);
        // The sends are paced piece by piece on their ports' emulated links; the round has no end of its own to wait for.
        return run(what.c_str(), bytes, Clock::time_point{},
                   [&] { return roundTrip(channel, collective, static_cast<std::uint32_t>(round), sends, receives); });
    }

private:
    Header& header() const { return *reinterpret_cast<Header*>(mapping_.bytes()); }
    ChannelControl& control(int channel) const {
        return reinterpret_cast<ChannelControl*>(mapping_.bytes() + sizeof(Header))[channel];
    }
    float* slot(int channel, int set, int rank) const {
        auto* base = reinterpret_cast<float*>(mapping_.bytes() + layout_.slots);
        return base + ((std::size_t(channel) * 2 + set) * options_.size + rank) * kSlotFloats;
    }
    Doorbell& doorbell(int channel, int rank) const {
        return reinterpret_cast<Doorbell*>(mapping_.bytes() + layout_.doorbells)[channel * options_.size + rank];
    }
    OutboxSlot& label(int channel, int rank, int index) const {
        auto* labels = reinterpret_cast<OutboxSlot*>(mapping_.bytes() + layout_.labels);
        return labels[(std::size_t(channel) * options_.size + rank) * kOutboxSlots + index];
    }
    float* outbox(int channel, int rank, int index) const {
        auto* base = reinterpret_cast<float*>(mapping_.bytes() + layout_.outboxes);
        return base + ((std::size_t(channel) * options_.size + rank) * kOutboxSlots + index) * kPieceFloats;
    }
    // Wakes `rank` if it sleeps on its doorbell. The count before the check and the check after (both sequentially
    // consistent, as the sleeper's) mean either the ringer sees the sleeper or the sleeper sees the ring.
    void ring(int channel, int rank) const {
        Doorbell& bell = doorbell(channel, rank);
        bell.rings.fetch_add(1);
        if (bell.sleepers.load() > 0) futex(&bell.rings, FUTEX_WAKE, INT32_MAX, nullptr);
    }

    struct OutPiece {
        const P2POp* op;
        std::size_t at, count;
        std::uint32_t index;
        Clock::time_point release;  // when the emulated link of its port lets it go
    };
    struct InMessage {
        const P2POp* op;
        std::size_t piece;  // floats per piece
        bool deferred;            // adds into memory a send of this round reads: copied out, added at the end
    };

    Status roundTrip(int channel, std::uint64_t collective, std::uint32_t round, std::span<const P2POp> sends,
                     std::span<const P2POp> receives) {
        const int me = options_.rank;
        const auto start = Clock::now(), deadline = start + options_.timeout;
        // Sends: per port a queue of pieces, cut piece-major (every message's first piece, then the second, ...) so
        // that every port and peer gets data from the start.
        std::vector<std::vector<OutPiece>> ports;
        std::size_t sendsLeft = 0;
        for (std::size_t k = 0, more = 1; more; ++k) {
            more = 0;
            for (const P2POp& op : sends) {
                const std::size_t per = pieceFloats(op.count), at = k * per;
                if (at >= op.count) continue;
                const std::size_t count = std::min(per, op.count - at);
                if (ports.size() <= static_cast<std::size_t>(op.port)) ports.resize(op.port + 1);
                ports[op.port].push_back({&op, at, count, static_cast<std::uint32_t>(k),
                                          link_.releasePiece(start, op.port, count * sizeof(float))});
                ++sendsLeft;
                more = 1;
            }
        }
        std::vector<std::size_t> nextOut(ports.size(), 0);
        // Receives, and how many pieces each peer still owes this round.
        std::vector<InMessage> in;
        std::vector<std::size_t> owed(options_.size, 0);
        std::size_t receivesLeft = 0;
        for (const P2POp& op : receives) {
            if (op.count == 0) continue;
            const std::size_t per = pieceFloats(op.count), pieces = (op.count + per - 1) / per;
            const bool deferred = op.add_to && std::any_of(sends.begin(), sends.end(), [&](const P2POp& s) {
                return op.add_to < s.data + s.count && s.data < op.add_to + op.count;
            });
            in.push_back({&op, per, deferred});
            owed[op.peer] += pieces;
            receivesLeft += pieces;
        }
        Doorbell& bell = doorbell(channel, me);
        int freeHint = 0;
        // Writes every released send piece that finds a free slot; returns whether it wrote one.
        const auto writeSends = [&](Clock::time_point now, Clock::time_point& nextRelease) {
            bool wrote = false;
            for (std::size_t p = 0; p < ports.size(); ++p) {
                for (; nextOut[p] < ports[p].size(); ++nextOut[p]) {
                    const OutPiece& piece = ports[p][nextOut[p]];
                    if (piece.release > now) {
                        nextRelease = std::min(nextRelease, piece.release);
                        break;
                    }
                    int s = 0;
                    for (; s < kOutboxSlots; ++s)
                        if (label(channel, me, (freeHint + s) % kOutboxSlots).owner.load(std::memory_order_acquire) == 0) break;
                    if (s == kOutboxSlots) return wrote;  // outbox full: the receivers free slots and ring
                    const int index = (freeHint + s) % kOutboxSlots;
                    freeHint = index + 1;
                    OutboxSlot& l = label(channel, me, index);
                    if (direct_) l.address = reinterpret_cast<std::uintptr_t>(piece.op->data + piece.at);
                    else std::memcpy(outbox(channel, me, index), piece.op->data + piece.at, piece.count * sizeof(float));
                    l.collective = collective;
                    l.round = round;
                    l.tag = static_cast<std::uint32_t>(piece.op->tag);
                    l.piece = piece.index;
                    l.count = static_cast<std::uint32_t>(piece.count);
                    l.owner.store(1 + static_cast<std::uint32_t>(piece.op->peer), std::memory_order_release);
                    ring(channel, piece.op->peer);
                    --sendsLeft;
                    wrote = true;
                }
            }
            return wrote;
        };
        // Takes every piece of this round that waits for this rank in its peers' outboxes.
        const auto takeReceives = [&]() -> Result<bool> {
            bool took = false;
            for (int peer = 0; peer < options_.size; ++peer) {
                for (int s = 0; s < kOutboxSlots && owed[peer] > 0; ++s) {
                    OutboxSlot& l = label(channel, peer, s);
                    if (l.owner.load(std::memory_order_acquire) != 1 + static_cast<std::uint32_t>(me) ||
                        l.collective != collective || l.round != round)
                        continue;  // free, for another rank, or for a later round of ours
                    auto m = std::find_if(in.begin(), in.end(), [&](const InMessage& x) {
                        return x.op->peer == peer && static_cast<std::uint32_t>(x.op->tag) == l.tag;
                    });
                    const std::size_t at = std::size_t(l.piece) * (m == in.end() ? 0 : m->piece);
                    if (m == in.end() || at >= m->op->count || l.count != std::min(m->piece, m->op->count - at))
                        return Status::error("rank " + std::to_string(peer) + " sent a piece (round " +
                                             std::to_string(round) + ", tag " + std::to_string(l.tag) + ", piece " +
                                             std::to_string(l.piece) + ") that this rank's round does not expect");
                    const bool add = m->op->add_to && !m->deferred;
                    float* to = add ? m->op->add_to + at : m->op->data + at;
                    if (direct_) PACER_RETURN_IF_ERROR(readPeer(channel, peer, l.address, to, l.count, add));
                    else if (add) addInto(to, outbox(channel, peer, s), l.count);
                    else std::memcpy(to, outbox(channel, peer, s), l.count * sizeof(float));
                    l.owner.store(0, std::memory_order_release);
                    ring(channel, peer);
                    --owed[peer];
                    --receivesLeft;
                    took = true;
                }
            }
            return took;
        };
        // Direct reads: a send is through only once its receiver has read it (the slot is free again).
        const auto outboxBusy = [&] {
            for (int s = 0; s < kOutboxSlots; ++s)
                if (label(channel, me, s).owner.load(std::memory_order_acquire) != 0) return true;
            return false;
        };
        auto lastProgress = start, lastCheck = start;
        while (sendsLeft > 0 || receivesLeft > 0 || (direct_ && outboxBusy())) {
            const std::uint32_t seen = bell.rings.load();
            const auto now = Clock::now();
            auto nextRelease = Clock::time_point::max();
            const bool wrote = writeSends(now, nextRelease);
            auto took = takeReceives();
            if (!took.ok()) return took.status();
            if (wrote || took.value()) {
                lastProgress = now;
                continue;
            }
            if (now - lastProgress < kSpin) {
                cpuRelax();
                continue;
            }
            if (std::string gaveUp = peerGaveUp(); !gaveUp.empty()) return Status::error(gaveUp);
            if (now - lastCheck >= kPeerCheck) {
                lastCheck = now;
                // A peer that wrote its last pieces and exited is no problem: they are still in the segment.
                // The peers this round waits on: those that owe it pieces, those it has still to send to, and those
                // whose pieces fill its outbox.
                const auto waitsOn = [&](int peer) {
                    if (owed[peer] > 0) return true;
                    for (std::size_t p = 0; p < ports.size(); ++p)
                        for (std::size_t i = nextOut[p]; i < ports[p].size(); ++i)
                            if (ports[p][i].op->peer == peer) return true;
                    for (int s = 0; s < kOutboxSlots; ++s)
                        if (label(channel, me, s).owner.load(std::memory_order_acquire) == 1 + static_cast<std::uint32_t>(peer))
                            return true;
                    return false;
                };
                const std::string why = whyStop(
                    deadline,
                    [&] {
                        auto more = takeReceives();
                        return !more.ok() || more.value();
                    },
                    waitsOn);
                if (!why.empty()) return Status::error(why);
            }
            const auto wake = std::min({nextRelease, now + kSleepSlice, deadline});
            if (wake <= now) continue;
            bell.sleepers.fetch_add(1);
            if (bell.rings.load() == seen) {
                const auto slice = wake - now;
                timespec ts{static_cast<time_t>(slice / std::chrono::seconds(1)),
                            static_cast<long>((slice % std::chrono::seconds(1)) / std::chrono::nanoseconds(1))};
                futex(&bell.rings, FUTEX_WAIT, seen, &ts);
            }
            bell.sleepers.fetch_sub(1);
        }
        for (const InMessage& m : in)
            if (m.deferred) addInto(m.op->add_to, m.op->data, m.op->count);
        return Status::success();
    }
    // Rank r's share of an m-float chunk; the remainder goes to the first ranks, so any m works.
    std::pair<std::size_t, std::size_t> share(int r, std::size_t m) const {
        const std::size_t n = options_.size, base = m / n, extra = m % n;
        const std::size_t lo = r * base + std::min<std::size_t>(r, extra);
        return {lo, lo + base + (std::size_t(r) < extra ? 1 : 0)};
    }
    // Calls move(spanPart, slotPart, k) over the elements [begin, begin + n) of the spans taken as one vector,
    // slotPart walking `slotData` alongside.
    template <typename Move>
    static void visit(const std::vector<FloatSpan>& spans, std::size_t begin, std::size_t n, float* slotData, Move&& move) {
        std::size_t at = 0;  // logical index of the current span's first element
        for (const FloatSpan& s : spans) {
            if (n == 0) return;
            if (begin < at + s.count) {
                const std::size_t skip = begin - at, k = std::min(n, s.count - skip);
                move(s.data + skip, slotData, k);
                slotData += k;
                begin += k;
                n -= k;
            }
            at += s.count;
        }
    }
    static void addInto(float* __restrict sum, const float* __restrict in, std::size_t n) {
        for (std::size_t i = 0; i < n; ++i) sum[i] += in[i];
    }
    // The same, also storing each sum in `copy`.
    static void addInto(float* __restrict sum, const float* __restrict in, std::size_t n, float* __restrict copy) {
        for (std::size_t i = 0; i < n; ++i) copy[i] = sum[i] += in[i];
    }

    // Tells the peers that this rank gave up and wakes every sleeper, theirs and ours.
    void signalAbort(const std::string& reason) {
        if (!mapping_) return;  // one rank: no segment, no peers
        Header& h = header();
        std::int32_t none = 0;
        if (h.aborted_by.compare_exchange_strong(none, -1)) {
            std::snprintf(h.abort_reason, sizeof h.abort_reason, "%s", reason.c_str());
            h.aborted_by.store(options_.rank + 1, std::memory_order_release);
        }
        for (int c = 0; c < options_.channels; ++c) {
            futex(&control(c).arrivals, FUTEX_WAKE, INT32_MAX, nullptr);
            for (int r = 0; r < options_.size; ++r) ring(c, r);
        }
    }

    // A peer whose process is gone, or empty. A stale heartbeat is no reason to give up early: on a loaded
    // machine a live rank's heartbeat thread can miss its turn for over a second (seen at load 20 on 2 cores),
    // so a stopped or hung peer is found at the timeout, as over Gloo, and named by the heartbeat then.
    // Only the peers `waitsOn` names count: a rank that did all its part of a point-to-point collective and exited
    // is no problem for ranks still working on theirs with others.
    template <typename WaitsOn>
    std::string peerProblem(WaitsOn&& waitsOn) const {
        for (int r = 0; r < options_.size; ++r)
            if (r != options_.rank && waitsOn(r) && processGone(header().pids[r].load(std::memory_order_relaxed)))
                return "rank " + std::to_string(r) + " exited (process " +
                       std::to_string(header().pids[r].load(std::memory_order_relaxed)) + " is gone)";
        return {};
    }

    // The peer that gave up first and why, or empty.
    std::string peerGaveUp() const {
        const std::int32_t by = header().aborted_by.load(std::memory_order_acquire);
        return by > 0 ? "rank " + std::to_string(by - 1) + " gave up (" + header().abort_reason + ")" : std::string();
    }

    // Reads (or, with `add`, adds) `count` floats at `address` in `peer`'s memory into `to`: a plain copy from a thread
    // rank of this process, otherwise one copy by the kernel (cross-memory attach), adds through a piece-sized buffer.
    Status readPeer(int channel, int peer, std::uint64_t address, float* to, std::size_t count, bool add) {
        const pid_t pid = header().pids[peer].load(std::memory_order_relaxed);
        if (pid == getpid()) {
            const auto* from = reinterpret_cast<const float*>(static_cast<std::uintptr_t>(address));
            if (add) addInto(to, from, count);
            else std::memcpy(to, from, count * sizeof(float));
            return Status::success();
        }
        std::vector<float>& bounce = bounce_[channel];
        if (add && bounce.size() < count) bounce.resize(kPieceFloats);
        char* into = reinterpret_cast<char*>(add ? bounce.data() : to);
        for (std::size_t done = 0, bytes = count * sizeof(float); done < bytes;) {
            iovec local{into + done, bytes - done}, remote{reinterpret_cast<void*>(address + done), bytes - done};
            const ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
            if (n <= 0) {
                const int error = errno;
                // A peer that gave up first exits right after: its reason names the cause, ours would name it.
                if (std::string gaveUp = peerGaveUp(); !gaveUp.empty()) return Status::error(gaveUp);
                if (error == ESRCH || processGone(pid))
                    return Status::error("rank " + std::to_string(peer) + " exited (process " + std::to_string(pid) +
                                         " is gone)");
                return Status::error("cannot read rank " + std::to_string(peer) + "'s piece: " + std::strerror(error));
            }
            done += static_cast<std::size_t>(n);
        }
        if (add) addInto(to, bounce.data(), count);
        return Status::success();
    }

    // Why a wait must end now, or empty: a peer gave up, the process of a peer it waits on (`waitsOn(rank)`) is
    // gone, or the deadline passed. `done` looks once more whether the wait is over after all (a peer that did its
    // part and then exited is no problem).
    template <typename Done, typename WaitsOn>
    std::string whyStop(Clock::time_point deadline, Done&& done, WaitsOn&& waitsOn) const {
        // A peer that gave up first: its reason names the cause (e.g. "rank 2 exited"), and that peer may have
        // exited since, so looking for dead peers first would name it instead of the rank that died.
        if (std::string gaveUp = peerGaveUp(); !gaveUp.empty()) return gaveUp;
        if (std::string problem = peerProblem(waitsOn); !problem.empty()) {
            if (done()) return {};
            // A survivor may have given up (and exited) between our abort check and that look: its reason names
            // the dead rank, where ours would name the survivor.
            if (std::string gaveUp = peerGaveUp(); !gaveUp.empty()) return gaveUp;
            return problem;
        }
        if (Clock::now() >= deadline)
            return "timed out after " + std::to_string(options_.timeout.count()) + " ms: " + heartbeat_->diagnose();
        return {};
    }

    Status barrier(int channel) {
        std::atomic<std::uint32_t>& arrivals = control(channel).arrivals;
        const std::uint32_t target = static_cast<std::uint32_t>(++barriers_[channel] * options_.size);
        const auto reached = [&](std::uint32_t v) { return static_cast<std::int32_t>(v - target) >= 0; };
        if (reached(arrivals.fetch_add(1, std::memory_order_acq_rel) + 1)) {
            futex(&arrivals, FUTEX_WAKE, INT32_MAX, nullptr);
            return Status::success();
        }
        const auto start = Clock::now();
        while (Clock::now() - start < kSpin) {
            if (reached(arrivals.load(std::memory_order_acquire))) return Status::success();
            cpuRelax();
        }
        const auto deadline = start + options_.timeout;
        for (;;) {
            const std::uint32_t v = arrivals.load(std::memory_order_acquire);
            if (reached(v)) return Status::success();
            // The last peer to arrive may have arrived and exited since that load: its arrival precedes its exit.
            if (std::string why = whyStop(
                    deadline, [&] { return reached(arrivals.load(std::memory_order_acquire)); }, [](int) { return true; });
                !why.empty())
                return Status::error(why);
            const auto now = Clock::now();
            if (now >= deadline) continue;  // done after all (whyStop found no reason to stop)
            const auto slice = std::min<Clock::duration>(kSleepSlice, deadline - now);
            timespec ts{static_cast<time_t>(slice / std::chrono::seconds(1)),
                        static_cast<long>((slice % std::chrono::seconds(1)) / std::chrono::nanoseconds(1))};
            futex(&arrivals, FUTEX_WAIT, v, &ts);  // returns at once if the counter moved since v was read
        }
    }

    Status failure() const {
        std::lock_guard lock(mutex_);
        return Status::error(error_);
    }

    // The first failure's message stands; later ones (peers aborting in its wake) would only hide the cause.
    void setError(const std::string& message) {
        std::lock_guard lock(mutex_);
        if (error_.empty()) error_ = message;
    }

    // Runs one collective whose emulated link time ends at `emulatedEnd`.
    template <typename Op>
    Status run(const char* what, std::size_t bytes, Clock::time_point emulatedEnd, Op&& op) {
        if (failed_) return failure();
        if (Status st = op(); !st.ok()) {
            // Aborted by the runtime (another channel failed first): that failure is the message. Otherwise this
            // collective's failure is, set under the lock before the flag is raised.
            if (failed_) return failure();
            setError("rank " + std::to_string(options_.rank) + ": " + what + " of " + std::to_string(bytes) +
                     " bytes failed: " + st.message() + " [shared memory]");
            if (failed_.exchange(true)) return failure();
            const Status failed = failure();
            signalAbort(failed.message());  // peers blocked on us fail at once
            return failed;
        }
        link_.paceUntil(emulatedEnd);
        return Status::success();
    }

    TransportOptions options_;
    SegmentLayout layout_;
    Mapping mapping_;
    std::unique_ptr<Heartbeat> heartbeat_;
    LinkEmulator link_;
    std::vector<std::uint64_t> barriers_;  // per channel: barriers passed (each channel is one thread's at a time)
    std::vector<std::uint64_t> chunks_;    // per channel: chunks moved, whose parity picks the slot set
    std::vector<std::unique_ptr<SharedMemoryPointToPoint>> p2p_;  // per channel
    bool direct_;                                  // receivers read the senders' memory (Header::unreadable unset)
    std::vector<std::vector<float>> bounce_;       // per channel: a piece read from another process, to be added
    std::atomic<bool> failed_{false};
    mutable std::mutex mutex_;
    std::string error_;
};

int SharedMemoryPointToPoint::rank() const { return owner_.rank(); }
int SharedMemoryPointToPoint::size() const { return owner_.size(); }
Status SharedMemoryPointToPoint::exchange(int round, std::span<const P2POp> sends, std::span<const P2POp> receives) {
    return owner_.exchangeOn(channel_, collective_, round, sends, receives);
}

// Waits for `ready()` until the deadline, naming what went wrong on the way.
Status waitFor(const std::function<bool()>& ready, Clock::time_point deadline, const Heartbeat& heartbeat,
               const std::function<std::string()>& problem) {
    while (!ready()) {
        if (std::string p = problem(); !p.empty()) return Status::error(p);
        if (Clock::now() >= deadline) return Status::error(heartbeat.diagnose(std::chrono::milliseconds(0)));
        std::this_thread::sleep_for(kPollRendezvous);
    }
    return Status::success();
}

// Rank 0: a fresh segment, published under <dir>/pacer-shm.
Result<Mapping> createSegment(const TransportOptions& o, std::size_t bytes) {
    const std::string name = segmentName(o.rendezvous_dir);
    const int fd = shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0) return Status::error("cannot create shared memory " + name + ": " + std::strerror(errno));
    // Reserve the pages now: a /dev/shm too small fails here with a message, not later with SIGBUS.
    if (ftruncate(fd, static_cast<off_t>(bytes)) != 0 || posix_fallocate(fd, 0, static_cast<off_t>(bytes)) != 0) {
        close(fd);
        shm_unlink(name.c_str());
        return Status::error("cannot reserve " + std::to_string(bytes >> 20) + " MiB of shared memory (/dev/shm full?)");
    }
    auto mapping = mapSegment(fd, bytes);
    if (!mapping.ok()) {
        shm_unlink(name.c_str());
        return mapping.status();
    }
    auto& h = *reinterpret_cast<Header*>(mapping.value().bytes());
    h.ranks = o.size;
    h.channels = o.channels;
    h.slot_floats = kSlotFloats;
    h.creator_pid = getpid();
    std::atomic_thread_fence(std::memory_order_release);
    reinterpret_cast<std::atomic<std::uint32_t>*>(&h.magic)->store(kMagic, std::memory_order_release);
    const std::string file = o.rendezvous_dir + "/pacer-shm", tmp = file + ".tmp";
    if (!(std::ofstream(tmp) << name << '\n') || std::rename(tmp.c_str(), file.c_str()) != 0) {
        shm_unlink(name.c_str());
        return Status::error("cannot publish the shared-memory name in " + file);
    }
    return mapping;
}

// Other ranks: the segment rank 0 published, once it exists and was made by a live rank 0 for this job (a name
// file left by an earlier run in the same directory is read again until the new one appears).
Result<Mapping> openSegment(const TransportOptions& o, std::size_t bytes) {
    std::ifstream in(o.rendezvous_dir + "/pacer-shm");
    std::string name;
    if (!std::getline(in, name) || name.empty()) return Status::error("");
    const int fd = shm_open(name.c_str(), O_RDWR, 0600);
    if (fd < 0) return Status::error("");
    struct stat st{};
    if (fstat(fd, &st) != 0 || static_cast<std::size_t>(st.st_size) != bytes) {
        close(fd);
        return Status::error("");
    }
    auto mapping = mapSegment(fd, bytes);
    if (!mapping.ok()) return mapping.status();
    const auto& h = *reinterpret_cast<const Header*>(mapping.value().bytes());
    const auto magic = reinterpret_cast<const std::atomic<std::uint32_t>*>(&h.magic)->load(std::memory_order_acquire);
    if (magic != kMagic || h.ranks != std::uint32_t(o.size) || h.channels != std::uint32_t(o.channels) ||
        processGone(h.creator_pid))
        return Status::error("");
    return mapping;
}

}  // namespace

Result<std::unique_ptr<Transport>> makeSharedMemoryTransport(const TransportOptions& o) {
    PACER_RETURN_IF_ERROR(validate(o));
    if (o.size > kMaxRanks)
        return Status::error("shared memory joins at most " + std::to_string(kMaxRanks) + " ranks, got " +
                             std::to_string(o.size));
    PACER_RETURN_IF_ERROR(makeRendezvousDir(o.rendezvous_dir, o.rank));
    std::error_code ec;
    auto heartbeat = std::make_unique<Heartbeat>(o.rendezvous_dir, o.rank, o.size);
    const std::size_t bytes = segmentBytes(o.size, o.channels);
    const auto deadline = Clock::now() + o.timeout;
    const auto fail = [&](const std::string& why) {
        return Status::error("rank " + std::to_string(o.rank) + ": shared-memory rendezvous in " + o.rendezvous_dir +
                             " failed within " + std::to_string(o.timeout.count()) + " ms: " + why);
    };
    Mapping mapping;
    if (o.size > 1) {
        if (o.rank == 0) {
            auto created = createSegment(o, bytes);
            if (!created.ok()) return fail(created.message());
            mapping = std::move(created).value();
        } else {
            const Status opened = waitFor(
                [&] {
                    auto m = openSegment(o, bytes);
                    if (m.ok()) mapping = std::move(m).value();
                    return m.ok();
                },
                deadline, *heartbeat, [] { return std::string(); });
            if (!opened.ok()) return fail(opened.message());
        }
        auto& h = *reinterpret_cast<Header*>(mapping.bytes());
        h.pids[o.rank].store(getpid(), std::memory_order_relaxed);
        h.probe_address[o.rank] = reinterpret_cast<std::uintptr_t>(&kProbeWord);
        if (!o.shm_direct_reads) h.unreadable.store(1);
        h.attached.fetch_add(1, std::memory_order_acq_rel);
        // Waits until every rank has counted itself in `counter`.
        const auto everyRank = [&](const std::atomic<std::uint32_t>& counter) {
            return waitFor([&] { return counter.load(std::memory_order_acquire) >= std::uint32_t(o.size); }, deadline,
                           *heartbeat, [&] {
                               for (int r = 0; r < o.size; ++r)
                                   if (processGone(h.pids[r].load(std::memory_order_relaxed)))
                                       return "rank " + std::to_string(r) + " exited during rendezvous";
                               return std::string();
                           });
        };
        const Status all = everyRank(h.attached);
        if (o.rank == 0) {  // every rank has it mapped (or never will): the name is no longer needed
            std::ifstream in(o.rendezvous_dir + "/pacer-shm");
            std::string name;
            if (std::getline(in, name)) shm_unlink(name.c_str());
            std::filesystem::remove(o.rendezvous_dir + "/pacer-shm", ec);
        }
        if (!all.ok()) return fail(all.message());
        // May receivers read their senders' memory? Where any rank cannot (a container that forbids
        // process_vm_readv, ptrace restrictions), every piece goes through the outbox slots instead.
        for (int r = 0; r < o.size; ++r) {
            const pid_t pid = h.pids[r].load(std::memory_order_relaxed);
            if (r == o.rank || pid == getpid()) continue;
            std::uint64_t word = 0;
            iovec local{&word, sizeof word}, remote{reinterpret_cast<void*>(h.probe_address[r]), sizeof word};
            if (process_vm_readv(pid, &local, 1, &remote, 1, 0) != sizeof word || word != kProbeWord)
                h.unreadable.store(1);
        }
        h.probed.fetch_add(1, std::memory_order_acq_rel);
        const Status probed = everyRank(h.probed);
        if (!probed.ok()) return fail(probed.message());
    }
    return std::make_unique<SharedMemoryTransport>(o, std::move(mapping), std::move(heartbeat));
}

}  // namespace pacer::engine
