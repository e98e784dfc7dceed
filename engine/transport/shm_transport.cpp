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
// Slot stores: a chunk's copy in and its sums are written with ordinary or with streaming stores, whichever moves
// chunks between these cores faster now (on a VM the host moves the vCPUs so that which one that is changes while a
// run goes on); channel rank 0 measures and publishes the way in the control line (shm_slot_stores.h).
//
// Barriers: an arrival counter per channel in the segment; a rank adds one and, if others are missing, spins
// briefly, then sleeps on a futex on the counter (the last arriver wakes everyone). Every sleep is a slice of
// at most 50 ms, after which the waiter checks the deadline (the transport's timeout), the abort word (a peer
// gave up: fail at once, as Gloo's closed connections do) and its peers' processes (one that exited or became a
// zombie is named at once); a stopped or hung peer is named by its stale heartbeat at the timeout. Never a hang.
//
// Point-to-point (the collective algorithms of engine/collectives): outboxes in the same segment, one per rank and
// channel (shm_point_to_point.h). This file maps the segment (shm_segment.h), runs the rendezvous, and judges the
// peers for both: the barriers here and the point-to-point rounds wait on them alike.
//
// Rendezvous: rank 0 creates the segment under a unique name and publishes the name in <dir>/pacer-shm; the
// others open it, register their pid and wait until all have; then rank 0 unlinks the name, so nothing is left
// in /dev/shm whatever happens later.

#include "engine/transport/heartbeat.h"
#include "engine/transport/link_emulator.h"
#include "engine/transport/shm_point_to_point.h"
#include "engine/transport/shm_segment.h"
#include "engine/transport/shm_slot_stores.h"
#include "engine/transport/transport.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
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
#include <mutex>
#include <span>
#include <thread>

namespace pacer::engine {
namespace {

using namespace shm;

constexpr std::uint32_t kMagic = 0x50534d32;  // "PSM2": with outboxes
// The word each rank's peers read at rendezvous to learn whether they can read its memory.
const std::uint64_t kProbeWord = 0x5041434552524541;
constexpr auto kPollRendezvous = std::chrono::milliseconds(2);

std::size_t segmentBytes(int ranks, int channels) { return SegmentLayout(ranks, channels).bytes; }

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

class SharedMemoryTransport final : public Transport, private RoundHost {
public:
    SharedMemoryTransport(const TransportOptions& o, Mapping mapping, std::unique_ptr<Heartbeat> heartbeat)
        : options_(o), mapping_(std::move(mapping)), segment_{mapping_.bytes(), o.size, SegmentLayout(o.size, o.channels)},
          heartbeat_(std::move(heartbeat)), link_(o.link_gbps, o.link_latency_us, o.size), barriers_(o.channels, 0),
          chunks_(o.channels, 0), storeChoices_(o.channels, SlotStoreChoice(o.shm_slot_stores)),
          nextStreaming_(o.channels, o.shm_slot_stores == SlotStores::Streaming) {
        const bool direct = mapping_ && header().unreadable.load() == 0;
        for (int c = 0; c < o.channels; ++c)
            p2p_.push_back(std::make_unique<SharedMemoryPointToPoint>(segment_, c, o.rank, o.size, o.timeout, direct,
                                                                      link_, static_cast<RoundHost&>(*this)));
    }

    int rank() const override { return options_.rank; }
    int size() const override { return options_.size; }
    int channels() const override { return options_.channels; }
    const char* name() const override { return "shm"; }

    Status allreduceOn(int channel, float* data, std::size_t count) override {
        return allreduceSpansOn(channel, {{data, count}});
    }

    // The spans are one vector: chunks gather from them into the slot and scatter back, with no fused buffer.
    Status reserveSpans(int, std::size_t) override { return Status::success(); }  // no packing: nothing to set up

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
            const auto toSlotStreaming = [](float* s, float* d, std::size_t k) { copyStreaming(d, s, k); };
            const auto fromSlot = [](float* s, float* d, std::size_t k) { std::memcpy(s, d, k * sizeof(float)); };
            std::atomic<std::uint32_t>& published = control(channel).streaming;
            for (std::size_t offset = 0; offset < count; offset += kSlotFloats) {
                const std::size_t m = std::min(kSlotFloats, count - offset);
                const int set = static_cast<int>(chunks_[channel]++ & 1);
                float* mine = slot(channel, set, me);
                // The way the slots peers read are written: the same on every rank (shm_slot_stores.h).
                const bool chosen = published.load(std::memory_order_relaxed) != 0;
                const bool streaming = storeChoices_[channel].streamingFor(m, chosen);
                // The rank's own passes are timed, not its waits for peers (which say when they came, not how
                // fast the chunk's way moves bytes).
                auto passStart = Clock::now();
                if (streaming) visit(spans, offset, m, mine, toSlotStreaming);
                else visit(spans, offset, m, mine, toSlot);
                Clock::duration passes = Clock::now() - passStart;
                PACER_RETURN_IF_ERROR(barrier(channel));
                passStart = Clock::now();
                // Every rank has read this chunk's way; the next chunk's becomes visible with the next barrier.
                if (me == 0) published.store(nextStreaming_[channel], std::memory_order_relaxed);
                // Reduce-scatter: this rank sums share `me` of every slot into its own slot, in rank order; the
                // pass over the last peer also writes the sums out (one pass fewer over the share).
                const auto [lo, hi] = share(me, m);
                const int last = me == n - 1 ? n - 2 : n - 1;
                for (int r = 0; r < n; ++r)
                    if (r != me && r != last) addInto(mine + lo, slot(channel, set, r) + lo, hi - lo);
                const float* lastSlot = slot(channel, set, last);
                visit(spans, offset + lo, hi - lo, mine + lo, [&](float* out, float* sum, std::size_t k) {
                    if (streaming) addIntoStreaming(sum, lastSlot + (sum - mine), k, out);
                    else addInto(sum, lastSlot + (sum - mine), k, out);
                });
                passes += Clock::now() - passStart;
                PACER_RETURN_IF_ERROR(barrier(channel));
                passStart = Clock::now();
                // Allgather: every other share from the rank that summed it.
                for (int r = 0; r < n; ++r) {
                    if (r == me) continue;
                    const auto [rlo, rhi] = share(r, m);
                    visit(spans, offset + rlo, rhi - rlo, slot(channel, set, r) + rlo, fromSlot);
                }
                passes += Clock::now() - passStart;
                if (me == 0)
                    nextStreaming_[channel] = storeChoices_[channel].record(
                        streaming, m, std::chrono::duration_cast<std::chrono::nanoseconds>(passes), chosen);
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

    std::vector<std::pair<std::string, double>> hostFigures() const override {
        std::uint64_t measured = 0, streaming = 0;
        for (const SlotStoreChoice& c : storeChoices_) {
            measured += c.measuredChunks();
            streaming += c.streamingChunks();
        }
        if (measured == 0) return {};
        return {{"shm_chunks_measured", double(measured)},
                {"shm_streaming_share", double(streaming) / double(measured)},
                {"shm_stores_fixed", storeChoices_.front().fixed() ? 1.0 : 0.0}};
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
private:
    Header& header() const { return segment_.header(); }
    ChannelControl& control(int channel) const { return segment_.control(channel); }
    float* slot(int channel, int set, int rank) const { return segment_.slot(channel, set, rank); }

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
            for (int r = 0; r < options_.size; ++r) segment_.ring(c, r);
        }
    }

    // A peer whose process is gone, or empty. A stale heartbeat is no reason to give up early: on a loaded
    // machine a live rank's heartbeat thread can miss its turn for over a second (seen at load 20 on 2 cores),
    // so a stopped or hung peer is found at the timeout, as over Gloo, and named by the heartbeat then.
    // Only the peers `waitsOn` names count: a rank that did all its part of a point-to-point collective and exited
    // is no problem for ranks still working on theirs with others.
    std::string peerProblem(const std::function<bool(int)>& waitsOn) const {
        for (int r = 0; r < options_.size; ++r)
            if (r != options_.rank && waitsOn(r) && processGone(header().pids[r].load(std::memory_order_relaxed)))
                return "rank " + std::to_string(r) + " exited (process " +
                       std::to_string(header().pids[r].load(std::memory_order_relaxed)) + " is gone)";
        return {};
    }

    // The peer that gave up first and why, or empty.
    std::string peerGaveUp() const override {
        const std::int32_t by = header().aborted_by.load(std::memory_order_acquire);
        return by > 0 ? "rank " + std::to_string(by - 1) + " gave up (" + header().abort_reason + ")" : std::string();
    }

    // Why a wait must end now, or empty: a peer gave up, the process of a peer it waits on (`waitsOn(rank)`) is
    // gone, or the deadline passed. `done` looks once more whether the wait is over after all (a peer that did its
    // part and then exited is no problem).
    std::string whyStop(Clock::time_point deadline, const std::function<bool()>& done,
                        const std::function<bool(int)>& waitsOn) const override {
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

    // A point-to-point round (SharedMemoryPointToPoint::exchange), failing the transport as a collective does.
    Status runRound(const std::string& what, std::size_t bytes, const std::function<Status()>& round) override {
        return run(what.c_str(), bytes, Clock::time_point{}, round);
    }

    TransportOptions options_;
    Mapping mapping_;
    Segment segment_;
    std::unique_ptr<Heartbeat> heartbeat_;
    LinkEmulator link_;
    std::vector<std::uint64_t> barriers_;  // per channel: barriers passed (each channel is one thread's at a time)
    std::vector<std::uint64_t> chunks_;    // per channel: chunks moved, whose parity picks the slot set
    std::vector<SlotStoreChoice> storeChoices_;  // per channel: how its chunks are written
    // Per channel, rank 0: the way to publish during the next chunk (bytes, not vector<bool>: the channels' threads
    // write their own elements at once).
    std::vector<std::uint8_t> nextStreaming_;
    std::vector<std::unique_ptr<SharedMemoryPointToPoint>> p2p_;  // per channel
    std::atomic<bool> failed_{false};
    mutable std::mutex mutex_;
    std::string error_;
};

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
