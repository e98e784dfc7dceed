// Gloo over TCP with a FileStore rendezvous: the CPU transport, as PyTorch uses Gloo on CPU.
#include "engine/transport/gloo_address_store.h"
#include "engine/transport/heartbeat.h"
#include "engine/transport/latency_hint.h"
#include "engine/transport/link_emulator.h"
#include "engine/transport/transport.h"

#include <gloo/allreduce.h>
#include <gloo/broadcast.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/tcp/device.h>
#include <gloo/transport/unbound_buffer.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <filesystem>
#include <mutex>
#include <stop_token>
#include <thread>
#include <vector>

namespace pacer::engine {
namespace {

constexpr std::size_t kInPlaceSpanFloats = 1 << 18;  // 1 MiB: see GlooTransport::inPlaceSpanFloats

class GlooTransport;

// Point-to-point rounds over one channel's context, with unbound buffers (engine/transport/point_to_point.h). A
// message piece's slot is (collective, round, tag, piece) under a prefix of its own, so it never meets
// gloo::allreduce's slots.
class GlooPointToPoint final : public PointToPoint {
public:
    GlooPointToPoint(GlooTransport& owner, int channel) : owner_(owner), channel_(channel) {}
    int rank() const override;
    int size() const override;
    void beginCollective() override { ++collective_; }
    Status exchange(int round, std::span<const P2POp> sends, std::span<const P2POp> receives) override;

private:
    // 8 bits that no Gloo collective uses, then 20 bits of collective, 20 of round, 8 of tag and 8 of piece.
    std::uint64_t slot(int round, int tag, int piece) const {
        return (std::uint64_t{0x7e} << 56) | ((collective_ & 0xfffffull) << 36) |
               (static_cast<std::uint64_t>(round & 0xfffff) << 16) | (static_cast<std::uint64_t>(tag & 0xff) << 8) |
               static_cast<std::uint64_t>(piece & 0xff);
    }

    GlooTransport& owner_;
    int channel_;
    std::uint64_t collective_ = 0;
};

class GlooTransport final : public Transport {
public:
    GlooTransport(const TransportOptions& o, std::vector<std::shared_ptr<gloo::Context>> contexts,
                  std::unique_ptr<Heartbeat> heartbeat)
        : options_(o), contexts_(std::move(contexts)), tags_(contexts_.size(), 1), heartbeat_(std::move(heartbeat)),
          link_(o.link_gbps, o.link_latency_us, o.size) {
        for (int c = 0; c < channels(); ++c) p2p_.push_back(std::make_unique<GlooPointToPoint>(*this, c));
    }

    ~GlooTransport() override = default;

    int rank() const override { return options_.rank; }
    int size() const override { return options_.size; }

    int channels() const override { return static_cast<int>(contexts_.size()); }
    const char* name() const override { return "gloo"; }

    Status allreduceOn(int channel, float* data, std::size_t count) override {
        if (channel < 0 || channel >= channels())
            return Status::error("all-reduce on channel " + std::to_string(channel) + " of " + std::to_string(channels()));
        if (options_.size == 1 || count == 0) return failed_ ? failure() : Status::success();
        const std::size_t bytes = count * sizeof(float);
        return run("all-reduce", bytes, [&](auto start) { return link_.reserveAllreduce(start, bytes); }, [&] {
            gloo::AllreduceOptions opts(contexts_[channel]);
            opts.setOutput(data, count);
            opts.setReduceFunction([](void* out, const void* a, const void* b, size_t n) {
                auto* o = static_cast<float*>(out);
                const auto* x = static_cast<const float*>(a);
                const auto* y = static_cast<const float*>(b);
                for (size_t i = 0; i < n; ++i) o[i] = x[i] + y[i];
            });
            opts.setTag(tags_[channel]++);
            opts.setTimeout(options_.timeout);
            gloo::allreduce(opts);
        });
    }

    // Dynamic order packs every unit with its control block (a few KiB): at 4-32 MiB that cost 15-40% against
    // gloo::allreduce of the same bytes (bench allreduce --algorithm dynamic --segment-bytes 256MiB, 2 ranks, two
    // rounds, this 2-core host: 0.60-0.89 packed, 0.76-1.04 with spans from 1 MiB in place). At 1-2 MiB the two
    // were within the noise; below that a second call costs more than the copies.
    std::size_t inPlaceSpanFloats() const override { return kInPlaceSpanFloats; }

    Status broadcast(void* data, std::size_t bytes, int root) override {
        if (root < 0 || root >= options_.size)
            return Status::error("broadcast root " + std::to_string(root) + " is not a rank");
        if (options_.size == 1 || bytes == 0) return failed_ ? failure() : Status::success();
        return run("broadcast", bytes, [&](auto start) { return link_.reserveBroadcast(start, bytes); }, [&] {
            gloo::BroadcastOptions opts(contexts_[0]);  // channel 0: broadcasts are the runtime's own, never concurrent
            // In place on every rank, the root included: given an input, even the same memory as the output, Gloo
            // copies it onto the output while its event-loop thread may still be writing it to a peer's socket (a
            // data race that ThreadSanitizer reports on every broadcast).
            opts.setOutput(static_cast<char*>(data), bytes);
            opts.setRoot(root);
            opts.setTag(tags_[0]++);
            opts.setTimeout(options_.timeout);
            gloo::broadcast(opts);
        });
    }

    PointToPoint* pointToPoint(int channel) override {
        return channel >= 0 && channel < channels() ? p2p_[channel].get() : nullptr;
    }

    void abort() override {
        // The message first, then the flag: whoever sees failed_ must find the message in place.
        setError("rank " + std::to_string(options_.rank) + ": transport aborted");
        if (failed_.exchange(true)) return;
        for (auto& context : contexts_) {
            try {
                context->closeConnections();  // wakes a collective blocked on another thread with an I/O error
            } catch (const std::exception&) {
            }
        }
    }

private:
    friend class GlooPointToPoint;

    Status failure() const {
        std::lock_guard lock(mutex_);
        return Status::error(error_);
    }

    // The first failure's message stands; later ones (peers aborting in its wake) would only hide the cause.
    void setError(const std::string& message) {
        std::lock_guard lock(mutex_);
        if (error_.empty()) error_ = message;
    }

    // Runs one collective; `emulatedEnd(start)` reserves its time on the emulated link.
    template <typename Reserve, typename Op>
    Status run(const char* what, std::size_t bytes, Reserve&& emulatedEnd, Op&& op) {
        if (failed_) return failure();
        const auto done = emulatedEnd(std::chrono::steady_clock::now());
        try {
            op();
        } catch (const std::exception& e) {
            // Aborted by the runtime (another channel failed first): that failure is the message. Otherwise name
            // the culprit (the heartbeat check may wait a moment, outside the lock), then raise the flag.
            if (!failed_) {
                setError("rank " + std::to_string(options_.rank) + ": " + what + " of " + std::to_string(bytes) +
                         " bytes failed: " + heartbeat_->diagnose() + " [gloo: " + e.what() + "]");
                failed_ = true;
            }
            return failure();
        }
        link_.paceUntil(done);
        return Status::success();
    }

    TransportOptions options_;
    std::vector<std::shared_ptr<gloo::Context>> contexts_;  // one per channel, over one device (event loop)
    std::vector<uint32_t> tags_;                             // per channel: each channel is one thread's at a time
    std::unique_ptr<Heartbeat> heartbeat_;
    LinkEmulator link_;
    std::vector<std::unique_ptr<GlooPointToPoint>> p2p_;  // per channel
    std::atomic<bool> failed_{false};
    mutable std::mutex mutex_;
    std::string error_;
};

int GlooPointToPoint::rank() const { return owner_.rank(); }
int GlooPointToPoint::size() const { return owner_.size(); }

namespace {

// Floats per piece of a message of `count` floats: about a quarter of it, 64 KiB to 1 MiB, at most 255 pieces. Both
// ends compute it from the count alone. Pieces let the transfer, the receiver's adds and the emulated wire time
// overlap, as Gloo's own ring pipelines its segments; more of them would cost more wake-ups than they hide.
std::size_t pieceFloats(std::size_t count) {
    constexpr std::size_t kMin = 16 << 10, kMax = 256 << 10, kMostPieces = 255;
    return std::max(std::clamp<std::size_t>((count + 3) / 4, kMin, kMax), (count + kMostPieces - 1) / kMostPieces);
}

struct Piece {
    const P2POp* op = nullptr;
    std::size_t at = 0, count = 0;  // floats within the op
    int index = 0;
    std::unique_ptr<gloo::transport::UnboundBuffer> buffer;
    std::chrono::steady_clock::time_point release;  // when the emulated link lets it go (sends)
};

// Every message cut into pieces, piece-major (the first piece of every message, then the second, ...), so that all
// ports are busy from the start and a receiver can add the first pieces while later ones are on their way.
std::vector<Piece> cutIntoPieces(std::span<const P2POp> ops) {
    std::vector<Piece> pieces;
    for (std::size_t k = 0, more = 1; more; ++k) {
        more = 0;
        for (const P2POp& op : ops) {
            const std::size_t per = pieceFloats(op.count), at = k * per;
            if (at >= op.count) continue;
            pieces.push_back({&op, at, std::min(per, op.count - at), static_cast<int>(k), nullptr, {}});
            more = 1;
        }
    }
    return pieces;
}

}  // namespace

Status GlooPointToPoint::exchange(int round, std::span<const P2POp> sends, std::span<const P2POp> receives) {
    std::size_t bytes = 0;
    for (const P2POp& op : sends) bytes += op.count * sizeof(float);
    for (const P2POp& op : receives) bytes += op.count * sizeof(float);
    if (owner_.options_.size == 1 || bytes == 0) return owner_.failed_ ? owner_.failure() : Status::success();
    const std::string what = "point-to-point round " + std::to_string(round);
    // The emulated link paces the sends piece by piece below, so the round has no emulated end of its own to wait for.
    return owner_.run(what.c_str(), bytes, [](auto start) { return start; }, [&] {
        gloo::Context& context = *owner_.contexts_[channel_];
        LinkEmulator& link = owner_.link_;
        const auto start = std::chrono::steady_clock::now();
        const auto deadline = start + owner_.options_.timeout;
        std::vector<Piece> in = cutIntoPieces(receives), out = cutIntoPieces(sends);
        // Receives first, so that a peer's message finds its buffer posted.
        for (Piece& p : in) {
            p.buffer = context.createUnboundBuffer(p.op->data + p.at, p.count * sizeof(float));
            p.buffer->recv(p.op->peer, slot(round, p.op->tag, p.index));
        }
        for (Piece& p : out) {
            p.buffer = context.createUnboundBuffer(p.op->data + p.at, p.count * sizeof(float));
            p.release = link.releasePiece(start, p.op->port, p.count * sizeof(float));
        }
        auto post = [&](Piece& p) { p.buffer->send(p.op->peer, slot(round, p.op->tag, p.index)); };
        // With an emulated link a thread of its own posts each send piece when its port's wire has carried it, while
        // this one waits for pieces and adds them; both stop early when the round fails.
        std::mutex mutex;
        std::condition_variable_any wake;
        std::exception_ptr sendError;
        std::jthread pacer;
        if (link.active()) {
            pacer = std::jthread([&](std::stop_token stop) {
                try {
                    for (Piece& p : out) {
                        std::unique_lock lock(mutex);
                        wake.wait_until(lock, stop, p.release, [] { return false; });
                        if (stop.stop_requested()) return;
                        lock.unlock();
                        post(p);
                    }
                } catch (...) {
                    sendError = std::current_exception();
                }
            });
        } else {
            for (Piece& p : out) post(p);
        }
        auto left = [&] {
            return std::max(std::chrono::milliseconds(1), std::chrono::duration_cast<std::chrono::milliseconds>(
                                                                  deadline - std::chrono::steady_clock::now()));
        };
        // A receive whose sum lands in memory this round also sends (recursive doubling adds into the vector it
        // sends) is added only once every send is through; the others as their pieces arrive.
        auto addsIntoASend = [&](const P2POp& r) {
            return std::any_of(sends.begin(), sends.end(), [&](const P2POp& s) {
                return r.add_to < s.data + s.count && s.data < r.add_to + r.count;
            });
        };
        std::vector<const Piece*> later;
        auto add = [&](const Piece& p) { (void)reduceSum(p.op->add_to + p.at, p.op->data + p.at, p.count); };  // host
        // Gloo throws on a closed connection or when the wait times out; a false return means an abort.
        for (Piece& p : in) {
            if (!p.buffer->waitRecv(left())) throw std::runtime_error("wait aborted");
            if (!p.op->add_to) continue;
            if (addsIntoASend(*p.op)) later.push_back(&p);
            else add(p);
        }
        if (pacer.joinable()) pacer.join();
        if (sendError) std::rethrow_exception(sendError);
        for (Piece& p : out)
            if (!p.buffer->waitSend(left())) throw std::runtime_error("wait aborted");
        for (const Piece* p : later) add(*p);
    });
}

// The rendezvous store as Gloo sees it: every value is written with the stack bytes in its addresses zeroed
// (gloo_address_store.h); reads and waits go straight through.
class ScrubbedStore : public gloo::rendezvous::Store {
public:
    explicit ScrubbedStore(gloo::rendezvous::Store& inner) : inner_(inner) {}
    void set(const std::string& key, const std::vector<char>& data) override {
        std::vector<char> scrubbed = data;
        scrubGlooAddresses(scrubbed);
        inner_.set(key, scrubbed);
    }
    std::vector<char> get(const std::string& key) override { return inner_.get(key); }
    void wait(const std::vector<std::string>& keys) override { inner_.wait(keys); }
    void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override {
        inner_.wait(keys, timeout);
    }

private:
    gloo::rendezvous::Store& inner_;
};

}  // namespace

Result<std::unique_ptr<Transport>> makeGlooTransport(const TransportOptions& o) {
    PACER_RETURN_IF_ERROR(validate(o));
    PACER_RETURN_IF_ERROR(makeRendezvousDir(o.rendezvous_dir, o.rank));
    auto heartbeat = std::make_unique<Heartbeat>(o.rendezvous_dir, o.rank, o.size);
    // The device's event-loop thread (started here or while connecting) receives every message and wakes the
    // waiting caller: on a CPU rank it is part of the stand-in NIC, so it gets short scheduler slices
    // (engine/transport/latency_hint.h).
    const std::set<pid_t> before = processThreads();
    std::shared_ptr<gloo::transport::Device> device;
    try {
        // Loopback by default; across nodes the launcher names the address (PACER_HOST) or interface (PACER_IFNAME)
        // the peers can reach, as GLOO_SOCKET_IFNAME and NCCL_SOCKET_IFNAME do.
        gloo::transport::tcp::attr attr;
        if (!o.iface.empty()) attr.iface = o.iface;
        else attr.hostname = o.host;
        device = gloo::transport::tcp::CreateDevice(attr);
    } catch (const std::exception& e) {
        return Status::error("rank " + std::to_string(o.rank) + ": cannot listen on " +
                             (o.iface.empty() ? "address " + o.host : "interface " + o.iface) + " [gloo: " + e.what() +
                             "]");
    }
    try {
        gloo::rendezvous::FileStore fileStore(o.rendezvous_dir);
        ScrubbedStore scrubbed(fileStore);
        // Channel 0 keeps the store prefix of a one-channel transport; the others get their own connections.
        std::vector<std::shared_ptr<gloo::Context>> contexts;
        for (int c = 0; c < o.channels; ++c) {
            gloo::rendezvous::PrefixStore store(c == 0 ? "pacer-gloo" : "pacer-gloo-ch" + std::to_string(c), scrubbed);
            auto context = std::make_shared<gloo::rendezvous::Context>(o.rank, o.size);
            context->setTimeout(o.timeout);
            if (o.size > 1) context->connectFullMesh(store, device);
            contexts.push_back(std::move(context));
        }
        for (pid_t tid : processThreads())
            if (!before.count(tid)) (void)requestShortSlice(tid);
        return std::make_unique<GlooTransport>(o, std::move(contexts), std::move(heartbeat));
    } catch (const std::exception& e) {
        return Status::error("rank " + std::to_string(o.rank) + ": Gloo rendezvous in " + o.rendezvous_dir +
                             " failed within " + std::to_string(o.timeout.count()) + " ms: " + heartbeat->diagnose(
                                 std::chrono::milliseconds(0)) + " [gloo: " + e.what() + "]");
    }
}

}  // namespace pacer::engine
