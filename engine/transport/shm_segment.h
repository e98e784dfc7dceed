// The shared-memory segment of engine/transport/shm_transport.cpp, as its two users see it: the transport's
// all-reduce slots and barriers (shm_transport.cpp) and the point-to-point outboxes (shm_point_to_point.cpp).
// Internal to the engine's transport layer; the layout and the reasons for it are described in those two files.
#pragma once

#include <linux/futex.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>
#include <thread>

namespace pacer::engine::shm {

using Clock = std::chrono::steady_clock;

constexpr int kMaxRanks = 64;
// 1 MiB per rank and set: a 25 MiB DDP bucket is 25 chunks (50 barriers of a few µs), while 16 channels of 8
// ranks still fit in 512 MiB of /dev/shm with the outboxes.
constexpr std::size_t kSlotFloats = std::size_t(1) << 18;
// Point-to-point outbox per rank and channel: 16 pieces of at most 128 KiB in flight, enough for every port of a
// 3-D torus to have two or more on their way while the receiver adds the ones before.
constexpr int kOutboxSlots = 16;
constexpr std::size_t kPieceFloats = std::size_t(1) << 15;
constexpr auto kPeerCheck = std::chrono::milliseconds(20);  // how often a waiting round looks for dead peers
constexpr auto kSpin = std::chrono::microseconds(30);   // spin before sleeping: a peer arriving soon costs no wake-up
constexpr auto kSleepSlice = std::chrono::milliseconds(50);

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
    // 1 while the channel's chunks are written with streaming stores (shm_slot_stores.h): written by rank 0 between
    // a chunk's two barriers, read by every rank as the next chunk starts.
    std::atomic<std::uint32_t> streaming;
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

inline long futex(std::atomic<std::uint32_t>* word, int op, std::uint32_t value, const timespec* timeout) {
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
inline bool processGone(pid_t pid) {
    if (pid <= 0) return false;
    if (kill(pid, 0) != 0 && errno == ESRCH) return true;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return false;  // no /proc: rely on kill and the heartbeat
    const auto paren = line.rfind(')');
    return paren != std::string::npos && paren + 2 < line.size() && (line[paren + 2] == 'Z' || line[paren + 2] == 'X');
}

inline void addInto(float* __restrict sum, const float* __restrict in, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) sum[i] += in[i];
}
// The same, also storing each sum in `copy`.
inline void addInto(float* __restrict sum, const float* __restrict in, std::size_t n, float* __restrict copy) {
    for (std::size_t i = 0; i < n; ++i) copy[i] = sum[i] += in[i];
}

// The parts of one mapped segment (nothing mapped for a single rank).
struct Segment {
    char* base = nullptr;
    int ranks = 1;
    SegmentLayout layout{1, 1};

    Header& header() const { return *reinterpret_cast<Header*>(base); }
    ChannelControl& control(int channel) const { return reinterpret_cast<ChannelControl*>(base + sizeof(Header))[channel]; }
    float* slot(int channel, int set, int rank) const {
        auto* first = reinterpret_cast<float*>(base + layout.slots);
        return first + ((std::size_t(channel) * 2 + set) * ranks + rank) * kSlotFloats;
    }
    Doorbell& doorbell(int channel, int rank) const {
        return reinterpret_cast<Doorbell*>(base + layout.doorbells)[channel * ranks + rank];
    }
    OutboxSlot& label(int channel, int rank, int index) const {
        auto* labels = reinterpret_cast<OutboxSlot*>(base + layout.labels);
        return labels[(std::size_t(channel) * ranks + rank) * kOutboxSlots + index];
    }
    float* outbox(int channel, int rank, int index) const {
        auto* first = reinterpret_cast<float*>(base + layout.outboxes);
        return first + ((std::size_t(channel) * ranks + rank) * kOutboxSlots + index) * kPieceFloats;
    }
    // Wakes `rank` if it sleeps on its doorbell. The count before the check and the check after (both sequentially
    // consistent, as the sleeper's) mean either the ringer sees the sleeper or the sleeper sees the ring.
    void ring(int channel, int rank) const {
        Doorbell& bell = doorbell(channel, rank);
        bell.rings.fetch_add(1);
        if (bell.sleepers.load() > 0) futex(&bell.rings, FUTEX_WAKE, INT32_MAX, nullptr);
    }
};

}  // namespace pacer::engine::shm
