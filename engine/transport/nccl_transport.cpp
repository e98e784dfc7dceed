// NCCL on CUDA, one rank per GPU. Plain C++ against the CUDA runtime API: no .cu file is needed.
//
// The communicator is non-blocking (ncclConfig_t::blocking = 0), so every wait is a poll that can give up:
// init, each ncclAllReduce and each broadcast poll ncclCommGetAsyncError and cudaStreamQuery until done or
// until the timeout, and then ncclCommAbort frees the ranks that still wait. The unique id goes from rank 0
// to the others through the FileStore in the rendezvous directory.
//
// The point-to-point layer (engine/transport/point_to_point.h) posts each round as ncclSend/ncclRecv in one group
// (NCCL matches a pair's messages in issue order, and every algorithm issues its ops in tag order on both sides)
// and adds received blocks with cublasSaxpy on the communication stream. The communicator, all-reduce and broadcast
// ran with one rank on an H200 (scripts/gpu-check, 2026-12-04); the point-to-point layer needs two GPUs and has not
// run on any yet.
#include "pacer/config.h"

#include "engine/transport/transport.h"

#if PACER_HAVE_NCCL
#include "engine/transport/heartbeat.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>
#include <nccl.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>
#include <filesystem>
#include <mutex>
#include <thread>
#endif

namespace pacer::engine {

#if PACER_HAVE_NCCL
namespace {

std::string cudaText(cudaError_t e) { return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e); }

#define PACER_CUDA_CHECK(expr)                                                                              \
    do {                                                                                                    \
        const cudaError_t pacer_cuda_ = (expr);                                                             \
        if (pacer_cuda_ != cudaSuccess) return detail::checkFailed(__FILE__, __LINE__, #expr " failed: " + cudaText(pacer_cuda_)); \
    } while (0)

class NcclTransport;

class NcclPointToPoint final : public PointToPoint {
public:
    explicit NcclPointToPoint(NcclTransport& owner) : owner_(owner) {}
    ~NcclPointToPoint() override;
    int rank() const override;
    int size() const override;
    void beginCollective() override {}  // NCCL matches by order, not by slot
    Status exchange(int round, std::span<const P2POp> sends, std::span<const P2POp> receives) override;
    Status reduceSum(float* dst, const float* src, std::size_t count) override;
    Result<float*> scratch(int index, std::size_t count) override;

private:
    NcclTransport& owner_;
    cublasHandle_t blas_ = nullptr;
    std::vector<std::pair<float*, std::size_t>> scratch_;  // device buffers by index
};

class NcclTransport final : public Transport {
public:
    NcclTransport(const TransportOptions& o, int device, cudaStream_t stream, bool ownsStream)
        : options_(o), device_(device), stream_(stream), ownsStream_(ownsStream),
          heartbeat_(std::make_unique<Heartbeat>(o.rendezvous_dir, o.rank, o.size)) {}

    ~NcclTransport() override {
        if (comm_) {
            if (failed_) ncclCommAbort(comm_);
            else ncclCommDestroy(comm_);
        }
        if (scratchDevice_) cudaFree(scratchDevice_);
        if (controlDevice_) cudaFree(controlDevice_);
        if (ownsStream_ && stream_) cudaStreamDestroy(stream_);
    }

    Status init(const ncclUniqueId& id) {
        ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
        config.blocking = 0;
        PACER_CUDA_CHECK(cudaSetDevice(device_));
        const ncclResult_t r = ncclCommInitRankConfig(&comm_, options_.size, id, options_.rank, &config);
        if (r != ncclSuccess && r != ncclInProgress) return fail("ncclCommInitRankConfig", r);
        return waitComm("communicator init");
    }

    int rank() const override { return options_.rank; }
    int size() const override { return options_.size; }
    const char* name() const override { return "nccl"; }
    bool deviceMemory() const override { return true; }

    // One channel: collectives on one communicator are serialized on its stream anyway, and NCCL already spreads
    // each one over its own channels (SMs and links).
    Status allreduceOn(int channel, float* data, std::size_t count) override {
        if (channel != 0) return Status::error("the NCCL transport has one channel, not " + std::to_string(channel + 1));
        if (failed_) return failure();
        if (count == 0) return Status::success();
        // NCCL reduces device memory only. The runtime's dynamic-order control block (readiness flags and rank 0's
        // clock) is built on the host each round: it is staged through a device buffer of its own here, instead of
        // handing NCCL a host pointer.
        cudaPointerAttributes where{};
        const bool onDevice = cudaPointerGetAttributes(&where, data) == cudaSuccess &&
                              (where.type == cudaMemoryTypeDevice || where.type == cudaMemoryTypeManaged);
        (void)cudaGetLastError();  // a host pointer may leave an error behind on older runtimes
        float* target = data;
        if (!onDevice) {
            PACER_RETURN_IF_ERROR(ensureControlBuffer(count));
            PACER_CUDA_CHECK(cudaMemcpyAsync(controlDevice_, data, count * sizeof(float), cudaMemcpyHostToDevice, stream_));
            target = controlDevice_;
        }
        const ncclResult_t r = ncclAllReduce(target, target, count, ncclFloat32, ncclSum, comm_, stream_);
        if (r != ncclSuccess && r != ncclInProgress) return fail("ncclAllReduce", r);
        if (!onDevice)
            PACER_CUDA_CHECK(cudaMemcpyAsync(data, controlDevice_, count * sizeof(float), cudaMemcpyDeviceToHost, stream_));
        return waitStream("all-reduce of " + std::to_string(count * sizeof(float)) + " bytes");
    }

    Status broadcast(void* data, std::size_t bytes, int root) override {
        if (failed_) return failure();
        if (bytes == 0) return Status::success();
        // The runtime broadcasts small host-side control blocks; stage them through device scratch space.
        auto dev = scratch((bytes + sizeof(float) - 1) / sizeof(float), 0);
        if (!dev.ok()) return dev.status();
        PACER_CUDA_CHECK(cudaMemcpyAsync(*dev, data, bytes, cudaMemcpyHostToDevice, stream_));
        const ncclResult_t r = ncclBroadcast(*dev, *dev, bytes, ncclUint8, root, comm_, stream_);
        if (r != ncclSuccess && r != ncclInProgress) return fail("ncclBroadcast", r);
        PACER_CUDA_CHECK(cudaMemcpyAsync(data, *dev, bytes, cudaMemcpyDeviceToHost, stream_));
        return waitStream("broadcast of " + std::to_string(bytes) + " bytes");
    }

    // From any thread (the runtime's fail()): only the flag and the message; the comm thread, polling, sees the
    // flag and aborts the communicator itself.
    void abort() override {
        setError("rank " + std::to_string(options_.rank) + ": transport aborted");
        failed_ = true;
    }

    Status copy(float* dst, const float* src, std::size_t count) override {
        if (count == 0) return Status::success();
        PACER_CUDA_CHECK(cudaMemcpyAsync(dst, src, count * sizeof(float), cudaMemcpyDeviceToDevice, stream_));
        return Status::success();
    }

    Status synchronize() override { return waitStream("copy"); }

    PointToPoint* pointToPoint(int channel) override { return channel == 0 ? &p2p_ : nullptr; }

    Status waitEvent(void* cudaEvent) override {
        if (cudaEvent) PACER_CUDA_CHECK(cudaStreamWaitEvent(stream_, static_cast<cudaEvent_t>(cudaEvent), 0));
        return Status::success();
    }

    Result<float*> scratch(std::size_t count, int channel) override {
        if (channel != 0) return Status::error("the NCCL transport has one channel");
        if (count > scratchDeviceCount_) {
            if (scratchDevice_) cudaFree(scratchDevice_);
            scratchDevice_ = nullptr;
            scratchDeviceCount_ = 0;
            const cudaError_t e = cudaMalloc(reinterpret_cast<void**>(&scratchDevice_), count * sizeof(float));
            if (e != cudaSuccess) return Status::error("cudaMalloc of the fused buffer failed: " + cudaText(e));
            scratchDeviceCount_ = count;
        }
        return scratchDevice_;
    }

private:
    friend class NcclPointToPoint;

    Status ensureControlBuffer(std::size_t count) {
        if (count <= controlDeviceCount_) return Status::success();
        if (controlDevice_) cudaFree(controlDevice_);
        controlDevice_ = nullptr;
        controlDeviceCount_ = 0;
        const cudaError_t e = cudaMalloc(reinterpret_cast<void**>(&controlDevice_), count * sizeof(float));
        if (e != cudaSuccess) return Status::error("cudaMalloc of the control block failed: " + cudaText(e));
        controlDeviceCount_ = count;
        return Status::success();
    }

    // error_ is read and written from the comm thread and from abort() on another: always under the lock, the
    // message set before the flag, the first message kept.
    void setError(const std::string& message) {
        std::lock_guard lock(errorMutex_);
        if (error_.empty()) error_ = message;
    }
    Status failure() const {
        std::lock_guard lock(errorMutex_);
        return Status::error(error_);
    }

    // On the comm thread: the message, then the flag, then the communicator is aborted.
    Status failWith(const std::string& message) {
        setError(message);
        failed_ = true;
        if (comm_) ncclCommAbort(comm_), comm_ = nullptr;
        return failure();
    }

    Status fail(const std::string& what, ncclResult_t r) {
        return failWith("rank " + std::to_string(options_.rank) + ": " + what + " failed: " + ncclGetErrorString(r) +
                        "; " + heartbeat_->diagnose());
    }

    Status timedOut(const std::string& what) {
        return failWith("rank " + std::to_string(options_.rank) + ": " + what + " did not finish within " +
                        std::to_string(options_.timeout.count()) + " ms: " + heartbeat_->diagnose());
    }

    Status waitComm(const std::string& what) {
        const auto deadline = std::chrono::steady_clock::now() + options_.timeout;
        for (;;) {
            ncclResult_t state = ncclSuccess;
            ncclCommGetAsyncError(comm_, &state);
            if (state == ncclSuccess) return Status::success();
            if (state != ncclInProgress) return fail(what, state);
            if (failed_) return failure();
            if (std::chrono::steady_clock::now() > deadline) return timedOut(what);
            std::this_thread::sleep_for(std::chrono::microseconds(50));
        }
    }

    Status waitStream(const std::string& what) {
        PACER_RETURN_IF_ERROR(waitComm(what));
        const auto deadline = std::chrono::steady_clock::now() + options_.timeout;
        for (;;) {
            const cudaError_t e = cudaStreamQuery(stream_);
            if (e == cudaSuccess) return Status::success();
            if (e != cudaErrorNotReady) {
                setError("rank " + std::to_string(options_.rank) + ": " + what + ": " + cudaText(e));
                failed_ = true;
                return failure();
            }
            ncclResult_t state = ncclSuccess;
            ncclCommGetAsyncError(comm_, &state);
            if (state != ncclSuccess && state != ncclInProgress) return fail(what, state);
            if (failed_) {
                if (comm_) ncclCommAbort(comm_), comm_ = nullptr;
                return failure();
            }
            if (std::chrono::steady_clock::now() > deadline) return timedOut(what);
            std::this_thread::sleep_for(std::chrono::microseconds(20));
        }
    }

    TransportOptions options_;
    int device_;
    cudaStream_t stream_;
    bool ownsStream_;
    std::unique_ptr<Heartbeat> heartbeat_;
    ncclComm_t comm_ = nullptr;
    std::atomic<bool> failed_{false};
    mutable std::mutex errorMutex_;
    std::string error_;
    float* scratchDevice_ = nullptr;
    std::size_t scratchDeviceCount_ = 0;
    float* controlDevice_ = nullptr;  // host-built control blocks, staged for NCCL
    std::size_t controlDeviceCount_ = 0;
    NcclPointToPoint p2p_{*this};
};

NcclPointToPoint::~NcclPointToPoint() {
    for (auto& [buffer, count] : scratch_)
        if (buffer) cudaFree(buffer);
    if (blas_) cublasDestroy(blas_);
}

int NcclPointToPoint::rank() const { return owner_.rank(); }
int NcclPointToPoint::size() const { return owner_.size(); }

Status NcclPointToPoint::exchange(int round, std::span<const P2POp> sends, std::span<const P2POp> receives) {
    if (owner_.failed_) return owner_.failure();
    if (sends.empty() && receives.empty()) return Status::success();
    ncclResult_t r = ncclGroupStart();
    for (const P2POp& op : receives)
        if (r == ncclSuccess) r = ncclRecv(op.data, op.count, ncclFloat32, op.peer, owner_.comm_, owner_.stream_);
    for (const P2POp& op : sends)
        if (r == ncclSuccess) r = ncclSend(op.data, op.count, ncclFloat32, op.peer, owner_.comm_, owner_.stream_);
    const ncclResult_t end = ncclGroupEnd();
    if (r == ncclSuccess) r = end;
    if (r != ncclSuccess && r != ncclInProgress) return owner_.fail("point-to-point round " + std::to_string(round), r);
    PACER_RETURN_IF_ERROR(owner_.waitStream("point-to-point round " + std::to_string(round)));
    return addReceived(receives);  // on the communication stream, ordered before the next round's sends
}

Status NcclPointToPoint::reduceSum(float* dst, const float* src, std::size_t count) {
    if (count == 0) return Status::success();
    if (!blas_) {
        if (cublasCreate(&blas_) != CUBLAS_STATUS_SUCCESS) return Status::error("cublasCreate failed");
        if (cublasSetStream(blas_, owner_.stream_) != CUBLAS_STATUS_SUCCESS) return Status::error("cublasSetStream failed");
    }
    const float one = 1.0f;
    // cuBLAS takes int counts: large blocks go in slices.
    constexpr std::size_t kSlice = std::size_t{1} << 30;
    for (std::size_t at = 0; at < count; at += kSlice) {
        const int n = static_cast<int>(std::min(kSlice, count - at));
        if (cublasSaxpy(blas_, n, &one, src + at, 1, dst + at, 1) != CUBLAS_STATUS_SUCCESS)
            return Status::error("cublasSaxpy failed while adding a received block");
    }
    return Status::success();  // ordered on the stream before the next round's sends
}

Result<float*> NcclPointToPoint::scratch(int index, std::size_t count) {
    if (index < 0) return Status::error("scratch buffer index cannot be negative");
    if (scratch_.size() <= static_cast<std::size_t>(index)) scratch_.resize(index + 1, {nullptr, 0});
    auto& [buffer, have] = scratch_[index];
    if (count > have || !buffer) {
        if (buffer) cudaFree(buffer);
        buffer = nullptr;
        have = 0;
        const cudaError_t e = cudaMalloc(reinterpret_cast<void**>(&buffer), std::max<std::size_t>(count, 1) * sizeof(float));
        if (e != cudaSuccess) return Status::error("cudaMalloc of a receive buffer failed: " + cudaText(e));
        have = std::max<std::size_t>(count, 1);
    }
    return buffer;
}

}  // namespace

Result<std::unique_ptr<Transport>> makeNcclTransport(const TransportOptions& o, int cudaDevice, void* commStream) {
    PACER_RETURN_IF_ERROR(validate(o));
    if (o.channels != 1)
        return Status::error("the NCCL transport has one channel (NCCL parallelizes each collective itself), not " +
                             std::to_string(o.channels));
    int devices = 0;
    const cudaError_t e = cudaGetDeviceCount(&devices);
    if (e != cudaSuccess || devices == 0)
        return Status::error("no GPU: the NCCL transport needs a CUDA device (" +
                             (e != cudaSuccess ? cudaText(e) : std::string("0 devices")) + ")");
    if (cudaDevice < 0 || cudaDevice >= devices)
        return Status::error("CUDA device " + std::to_string(cudaDevice) + " does not exist (" +
                             std::to_string(devices) + " found)");
    PACER_RETURN_IF_ERROR(makeRendezvousDir(o.rendezvous_dir, o.rank));
    ncclUniqueId id{};
    try {
        gloo::rendezvous::FileStore fileStore(o.rendezvous_dir);
        gloo::rendezvous::PrefixStore store("pacer-nccl", fileStore);
        if (o.rank == 0) {
            const ncclResult_t r = ncclGetUniqueId(&id);
            if (r != ncclSuccess) return Status::error(std::string("ncclGetUniqueId failed: ") + ncclGetErrorString(r));
            store.set("unique-id", std::vector<char>(reinterpret_cast<char*>(&id), reinterpret_cast<char*>(&id) + sizeof id));
        } else {
            store.wait({"unique-id"}, o.timeout);
            const auto bytes = store.get("unique-id");
            if (bytes.size() != sizeof id) return Status::error("the NCCL unique id in the store has the wrong size");
            std::memcpy(&id, bytes.data(), sizeof id);
        }
    } catch (const std::exception& ex) {
        return Status::error("rank " + std::to_string(o.rank) + ": NCCL id exchange through " + o.rendezvous_dir +
                             " failed within " + std::to_string(o.timeout.count()) + " ms: " + ex.what());
    }
    if (cudaSetDevice(cudaDevice) != cudaSuccess) return Status::error("cudaSetDevice failed");
    cudaStream_t stream = static_cast<cudaStream_t>(commStream);
    const bool owns = stream == nullptr;
    if (owns && cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess)
        return Status::error("cannot create the communication stream");
    auto transport = std::make_unique<NcclTransport>(o, cudaDevice, stream, owns);
    PACER_RETURN_IF_ERROR(transport->init(id));
    return std::unique_ptr<Transport>(std::move(transport));
}

#else

Result<std::unique_ptr<Transport>> makeNcclTransport(const TransportOptions&, int, void*) {
    return Status::error("this build has no NCCL transport (CUDA or NCCL was not found at configure time)");
}

#endif

}  // namespace pacer::engine
