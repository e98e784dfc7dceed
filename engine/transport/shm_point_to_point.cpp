#include "engine/transport/shm_point_to_point.h"

#include <sys/uio.h>

#include <algorithm>
#include <cstring>

namespace pacer::engine::shm {
namespace {

// Floats per piece of a message of `count` floats: a quarter of it, 16 KiB to one outbox slot; both ends compute it
// from the count alone. Pieces let the sender's copies, the receiver's adds and the emulated wire time overlap.
std::size_t pieceFloats(std::size_t count) {
    return std::clamp<std::size_t>((count + 3) / 4, std::size_t(4) << 10, kPieceFloats);
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

}  // namespace

Status SharedMemoryPointToPoint::exchange(int round, std::span<const P2POp> sends, std::span<const P2POp> receives) {
    std::size_t bytes = 0;
    for (const P2POp& op : sends) bytes += op.count * sizeof(float);
    for (const P2POp& op : receives) bytes += op.count * sizeof(float);
    for (std::span<const P2POp> ops : {sends, receives})
        for (const P2POp& op : ops)
            if (op.peer < 0 || op.peer >= size_ || op.peer == rank_ || op.tag < 0 || op.tag > 255)
                return Status::error("point-to-point message to or from " + std::to_string(op.peer) + " with tag " +
                                     std::to_string(op.tag) + " on rank " + std::to_string(rank_) + " of " +
                                     std::to_string(size_));
    const std::string what = "point-to-point round " + std::to_string(round);
    // The sends are paced piece by piece on their ports' emulated links; the round has no end of its own to wait for.
    // Nothing to move (one rank, empty messages) still reports a transport that failed before.
    return host_.runRound(what, bytes, [&] {
        if (size_ == 1 || bytes == 0) return Status::success();
        return roundTrip(static_cast<std::uint32_t>(round), sends, receives);
    });
}

Status SharedMemoryPointToPoint::roundTrip(std::uint32_t round, std::span<const P2POp> sends,
                                           std::span<const P2POp> receives) {
    const int me = rank_;
    const int channel = channel_;
    const std::uint64_t collective = collective_;
    const auto start = Clock::now(), deadline = start + timeout_;
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
    std::vector<std::size_t> owed(size_, 0);
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
    Doorbell& bell = segment_.doorbell(channel, me);
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
                    if (segment_.label(channel, me, (freeHint + s) % kOutboxSlots).owner.load(std::memory_order_acquire) == 0) break;
                if (s == kOutboxSlots) return wrote;  // outbox full: the receivers free slots and ring
                const int index = (freeHint + s) % kOutboxSlots;
                freeHint = index + 1;
                OutboxSlot& l = segment_.label(channel, me, index);
                if (direct_) l.address = reinterpret_cast<std::uintptr_t>(piece.op->data + piece.at);
                else std::memcpy(segment_.outbox(channel, me, index), piece.op->data + piece.at, piece.count * sizeof(float));
                l.collective = collective;
                l.round = round;
                l.tag = static_cast<std::uint32_t>(piece.op->tag);
                l.piece = piece.index;
                l.count = static_cast<std::uint32_t>(piece.count);
                l.owner.store(1 + static_cast<std::uint32_t>(piece.op->peer), std::memory_order_release);
                segment_.ring(channel, piece.op->peer);
                --sendsLeft;
                wrote = true;
            }
        }
        return wrote;
    };
    // Takes every piece of this round that waits for this rank in its peers' outboxes.
    const auto takeReceives = [&]() -> Result<bool> {
        bool took = false;
        for (int peer = 0; peer < size_; ++peer) {
            for (int s = 0; s < kOutboxSlots && owed[peer] > 0; ++s) {
                OutboxSlot& l = segment_.label(channel, peer, s);
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
                if (direct_) PACER_RETURN_IF_ERROR(readPeer(peer, l.address, to, l.count, add));
                else if (add) addInto(to, segment_.outbox(channel, peer, s), l.count);
                else std::memcpy(to, segment_.outbox(channel, peer, s), l.count * sizeof(float));
                l.owner.store(0, std::memory_order_release);
                segment_.ring(channel, peer);
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
            if (segment_.label(channel, me, s).owner.load(std::memory_order_acquire) != 0) return true;
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
        if (std::string gaveUp = host_.peerGaveUp(); !gaveUp.empty()) return Status::error(gaveUp);
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
                    if (segment_.label(channel, me, s).owner.load(std::memory_order_acquire) == 1 + static_cast<std::uint32_t>(peer))
                        return true;
                return false;
            };
            const std::string why = host_.whyStop(
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

Status SharedMemoryPointToPoint::readPeer(int peer, std::uint64_t address, float* to, std::size_t count, bool add) {
    const pid_t pid = segment_.header().pids[peer].load(std::memory_order_relaxed);
    if (pid == getpid()) {
        const auto* from = reinterpret_cast<const float*>(static_cast<std::uintptr_t>(address));
        if (add) addInto(to, from, count);
        else std::memcpy(to, from, count * sizeof(float));
        return Status::success();
    }
    std::vector<float>& bounce = bounce_;
    if (add && bounce.size() < count) bounce.resize(kPieceFloats);
    char* into = reinterpret_cast<char*>(add ? bounce.data() : to);
    for (std::size_t done = 0, bytes = count * sizeof(float); done < bytes;) {
        iovec local{into + done, bytes - done}, remote{reinterpret_cast<void*>(address + done), bytes - done};
        const ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
        if (n <= 0) {
            const int error = errno;
            // A peer that gave up first exits right after: its reason names the cause, ours would name it.
            if (std::string gaveUp = host_.peerGaveUp(); !gaveUp.empty()) return Status::error(gaveUp);
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

}  // namespace pacer::engine::shm
