// Gloo over TCP with a FileStore rendezvous: the CPU transport, as PyTorch uses Gloo on CPU.
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

#include <atomic>
#include <filesystem>
#include <mutex>

namespace pacer::engine {
namespace {

class GlooTransport final : public Transport {
public:
    GlooTransport(const TransportOptions& o, std::shared_ptr<gloo::Context> context, std::unique_ptr<Heartbeat> heartbeat)
        : options_(o), context_(std::move(context)), heartbeat_(std::move(heartbeat)),
          link_(o.link_gbps, o.link_latency_us, o.size) {}

    ~GlooTransport() override = default;

    int rank() const override { return options_.rank; }
    int size() const override { return options_.size; }

    Status allreduce(float* data, std::size_t count) override {
        if (options_.size == 1 || count == 0) return failed_ ? failure() : Status::success();
        return run("all-reduce", count * sizeof(float), link_.allreduceTime(count * sizeof(float)), [&] {
            gloo::AllreduceOptions opts(context_);
            opts.setOutput(data, count);
            opts.setReduceFunction([](void* out, const void* a, const void* b, size_t n) {
                auto* o = static_cast<float*>(out);
                const auto* x = static_cast<const float*>(a);
                const auto* y = static_cast<const float*>(b);
                for (size_t i = 0; i < n; ++i) o[i] = x[i] + y[i];
            });
            opts.setTag(nextTag());
            opts.setTimeout(options_.timeout);
            gloo::allreduce(opts);
        });
    }

    Status broadcast(void* data, std::size_t bytes, int root) override {
        if (root < 0 || root >= options_.size)
            return Status::error("broadcast root " + std::to_string(root) + " is not a rank");
        if (options_.size == 1 || bytes == 0) return failed_ ? failure() : Status::success();
        return run("broadcast", bytes, link_.broadcastTime(bytes), [&] {
            gloo::BroadcastOptions opts(context_);
            auto* bytesPtr = static_cast<char*>(data);
            if (options_.rank == root) opts.setInput(bytesPtr, bytes);
            opts.setOutput(bytesPtr, bytes);
            opts.setRoot(root);
            opts.setTag(nextTag());
            opts.setTimeout(options_.timeout);
            gloo::broadcast(opts);
        });
    }

    void abort() override {
        bool expected = false;
        if (!failed_.compare_exchange_strong(expected, true)) return;
        {
            std::lock_guard lock(mutex_);
            if (error_.empty()) error_ = "rank " + std::to_string(options_.rank) + ": transport aborted";
        }
        try {
            context_->closeConnections();  // wakes a collective blocked on another thread with an I/O error
        } catch (const std::exception&) {
        }
    }

private:
    uint32_t nextTag() { return tag_++; }

    Status failure() const {
        std::lock_guard lock(mutex_);
        return Status::error(error_);
    }

    template <typename Op>
    Status run(const char* what, std::size_t bytes, std::chrono::nanoseconds emulated, Op&& op) {
        if (failed_) return failure();
        const auto start = std::chrono::steady_clock::now();
        try {
            op();
        } catch (const std::exception& e) {
            const bool wasAborted = failed_.exchange(true);
            std::lock_guard lock(mutex_);
            if (!wasAborted || error_.empty()) {
                error_ = "rank " + std::to_string(options_.rank) + ": " + what + " of " + std::to_string(bytes) +
                         " bytes failed: " + heartbeat_->diagnose() + " [gloo: " + e.what() + "]";
            }
            return Status::error(error_);
        }
        link_.paceSince(start, emulated);
        return Status::success();
    }

    TransportOptions options_;
    std::shared_ptr<gloo::Context> context_;
    std::unique_ptr<Heartbeat> heartbeat_;
    LinkEmulator link_;
    uint32_t tag_ = 1;
    std::atomic<bool> failed_{false};
    mutable std::mutex mutex_;
    std::string error_;
};

}  // namespace

Result<std::unique_ptr<Transport>> makeGlooTransport(const TransportOptions& o) {
    PACER_RETURN_IF_ERROR(validate(o));
    std::error_code ec;
    std::filesystem::create_directories(o.rendezvous_dir, ec);
    if (ec) return Status::error("cannot create rendezvous directory " + o.rendezvous_dir + ": " + ec.message());
    auto heartbeat = std::make_unique<Heartbeat>(o.rendezvous_dir, o.rank, o.size);
    try {
        gloo::transport::tcp::attr attr;
        attr.hostname = o.host;
        // The device's event-loop thread (started here or while connecting) receives every message and wakes the
        // waiting caller: on a CPU rank it is part of the stand-in NIC, so it gets short scheduler slices
        // (engine/transport/latency_hint.h).
        const std::set<pid_t> before = processThreads();
        auto device = gloo::transport::tcp::CreateDevice(attr);
        gloo::rendezvous::FileStore fileStore(o.rendezvous_dir);
        gloo::rendezvous::PrefixStore store("pacer-gloo", fileStore);
        auto context = std::make_shared<gloo::rendezvous::Context>(o.rank, o.size);
        context->setTimeout(o.timeout);
        if (o.size > 1) context->connectFullMesh(store, device);
        for (pid_t tid : processThreads())
            if (!before.count(tid)) (void)requestShortSlice(tid);
        return std::make_unique<GlooTransport>(o, std::move(context), std::move(heartbeat));
    } catch (const std::exception& e) {
        return Status::error("rank " + std::to_string(o.rank) + ": Gloo rendezvous in " + o.rendezvous_dir +
                             " failed within " + std::to_string(o.timeout.count()) + " ms: " + heartbeat->diagnose(
                                 std::chrono::milliseconds(0)) + " [gloo: " + e.what() + "]");
    }
}

}  // namespace pacer::engine
