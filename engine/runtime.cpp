#include "engine/runtime.h"

#include "engine/sim/workload.h"
#include "engine/thread_cpu.h"
#include "engine/unit_ledger.h"

#include "engine/plan.h"
#include "engine/transport/latency_hint.h"
#include "pacer/config.h"

#if PACER_HAVE_CUDA
#include <nvtx3/nvToolsExt.h>
#endif

#include <algorithm>
#include <cstdio>
#include <ctime>

namespace pacer::engine {
namespace {

// Dynamic mode's control block: one readiness flag per tensor, then two of rank 0's clock readings in 16-bit
// chunks (each chunk is an exact float, and the others contribute 0, so the sum is rank 0's reading exactly): as it
// entered this collective, and as it left the control collective before this one.
constexpr int kClockChunks = 4;
static_assert(2 * kClockChunks == kControlClockFloats, "the control block's size is one rule (engine/sim/workload.h)");
// How many of the latest exit gaps estimate the clock offset (Runtime::exitGaps_).
constexpr std::size_t kExitGaps = 16;

// The compute thread waits for reductions that the comm thread carries out, each transport call with the same
// timeout. When a peer hangs (SIGSTOP), the comm thread's call times out and names that peer from the heartbeats
// (up to 1.5 s more); the compute thread's wait must outlast it, or it fails first with an error naming nobody.
constexpr std::chrono::seconds kCommDiagnosisGrace{5};

void encodeClock(Nanos now, float* out) {
    auto v = static_cast<std::uint64_t>(now);
    for (int i = 0; i < kClockChunks; ++i, v >>= 16) out[i] = static_cast<float>(v & 0xFFFF);
}

Nanos decodeClock(const float* in) {
    std::uint64_t v = 0;
    for (int i = kClockChunks - 1; i >= 0; --i) v = (v << 16) | static_cast<std::uint64_t>(in[i]);
    return static_cast<Nanos>(v);
}

// An NVTX range per segment on GPU, so that Nsight and our CUPTI tracer show which tensor and segment ran.
class SegmentRange {
public:
    SegmentRange(bool on, const CommUnit& unit) {
#if PACER_HAVE_CUDA
        if (!on) return;
        const Piece& p = unit.pieces.front();
        char name[128];
        std::snprintf(name, sizeof name, "pacer.comm tensor=%d seg=%d pieces=%zu bytes=%zu prio=%d", p.tensor, p.segment,
                      unit.pieces.size(), unit.bytes(), unit.priority);
        nvtxRangePushA(name);
        pushed_ = true;
#endif
    }
    ~SegmentRange() {
#if PACER_HAVE_CUDA
        if (pushed_) nvtxRangePop();
#endif
    }

private:
    bool pushed_ = false;
};

}  // namespace

Runtime::Runtime(Transport& transport, std::unique_ptr<Policy> policy, std::vector<TensorInfo> tensors,
                 std::vector<float*> gradients, RuntimeOptions options, TraceSink* sink)
    : transport_(transport), policy_(std::move(policy)), tensors_(std::move(tensors)),
      gradients_(std::move(gradients)), options_(std::move(options)), sink_(sink) {
    const std::size_t n = tensors_.size();
    readyGen_.assign(n, 0);
    reducedGen_.assign(n, 0);
    events_.assign(n, nullptr);
    reducedElements_.assign(n, 0);
    if (!policy_ && options_.mode == OrderMode::Dynamic) {
        error_ = Status::error("dynamic order mode needs a policy");
    } else if (gradients_.size() != n) {
        error_ = Status::error(std::to_string(gradients_.size()) + " gradient buffers for " + std::to_string(n) + " tensors");
    } else if (std::find(gradients_.begin(), gradients_.end(), nullptr) != gradients_.end()) {
        error_ = Status::error("a gradient buffer is null");
    } else if (options_.timeout.count() <= 0) {
        error_ = Status::error("the runtime timeout must be positive");
    } else if (options_.channels < 1 || options_.channels > transport_.channels()) {
        error_ = Status::error("the runtime asks for " + std::to_string(options_.channels) +
                               " channels; the transport has " + std::to_string(transport_.channels()));
    } else if (options_.channels > 1 && options_.mode != OrderMode::Plan) {
        // Dynamic mode's agreement rides on each unit's collective, one decision after another.
        error_ = Status::error("more than one channel needs plan order mode");
    } else if (options_.algorithm != Algorithm::Native && !transport_.pointToPoint(0)) {
        error_ = Status::error("the '" + algorithmName(options_.algorithm) +
                               "' all-reduce needs a point-to-point layer, which this transport lacks");
    } else if (Status t = validate(options_.topology, transport_.size()); !t.ok()) {
        error_ = t;
    } else if (options_.algorithm == Algorithm::Torus && options_.topology.kind != Topology::Kind::Torus) {
        error_ = Status::error("the torus all-reduce needs a torus topology, not " + options_.topology.describe());
    } else if (options_.mode == OrderMode::Plan) {
        error_ = validatePlan(options_.plan, tensors_);
    }
    for (std::size_t i = 0; i < n && error_.ok(); ++i)
        if (tensors_[i].id != static_cast<int>(i)) error_ = Status::error("tensor ids must be 0..n-1 in order");
    if (error_.ok()) error_ = reserveStaging();
    if (error_.ok())
        for (int c = 0; c < options_.channels; ++c) threads_.emplace_back([this, c] { commLoop(c); });
}

// Sets up what each channel packs its units into at its largest size now, while the runtime starts: grown on
// first use it is allocated and page-faulted in the middle of an iteration. A runtime started after the warm-up
// (plan order, self-tuned pace) met its fused units for the first time in its first iteration: zeroing 160 MiB
// of new pages per rank took about a second of CPU there (42 M MLP over Gloo, perf).
Status Runtime::reserveStaging() {
    std::vector<std::size_t> largest(static_cast<std::size_t>(options_.channels), 0);
    if (options_.mode == OrderMode::Plan) {
        // Units of one piece are reduced in place; only fused ones are packed.
        for (std::size_t k = 0; k < options_.plan.size(); ++k)
            if (options_.plan[k].pieces.size() > 1) {
                std::size_t& l = largest[k % largest.size()];
                l = std::max(l, options_.plan[k].elements());
            }
    } else if (const std::size_t unit = policy_->largestUnitElements(); unit > 0) {
        // Riding readiness makes every unit two spans, packed together (runDynamicIteration).
        largest[0] = unit + (readinessRides() ? tensors_.size() + kControlClockFloats : 0);
    }
    // The transport packs for the native all-reduce (shared memory gathers in place and needs nothing); our own
    // algorithms pack into the transport's scratch themselves (execute).
    for (int c = 0; c < options_.channels; ++c) {
        const std::size_t count = largest[static_cast<std::size_t>(c)];
        if (count == 0) continue;
        PACER_RETURN_IF_ERROR(options_.algorithm == Algorithm::Native ? transport_.reserveSpans(c, count)
                                                                       : transport_.scratch(count, c).status());
    }
    return Status::success();
}

bool Runtime::readinessRides() const {
    return readinessRidesOnUnits(false, !options_.gpu && !transport_.deviceMemory());
}

Runtime::~Runtime() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
        // A collective in flight would otherwise hold the thread until its peers time out.
        if (inIteration_) transport_.abort();
    }
    changed_.notify_all();
    reduced_.notify_all();
    for (std::thread& t : threads_)
        if (t.joinable()) t.join();
}

Nanos Runtime::clockNs() const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

Status Runtime::status() const {
    std::lock_guard lock(mutex_);
    return error_;
}

void Runtime::fail(Status error) {
    {
        std::lock_guard lock(mutex_);
        if (error_.ok()) error_ = std::move(error);
    }
    transport_.abort();  // peers blocked on us fail fast instead of waiting for their timeout
    changed_.notify_all();
    reduced_.notify_all();
}

Status Runtime::beginIteration(int iteration) {
    {
        std::lock_guard lock(mutex_);
        if (!error_.ok()) return error_;
        ++begun_;
        iterationIds_.push_back(iteration);
    }
    changed_.notify_all();
    return Status::success();
}

void Runtime::gradientReady(int tensor, void* cudaEvent) { gradientsReady({&tensor, 1}, {&cudaEvent, 1}); }

void Runtime::gradientsReady(std::span<const int> tensors, std::span<void* const> cudaEvents) {
    std::unique_lock lock(mutex_);
    if (!error_.ok()) return;
    std::string bad;
    if (!cudaEvents.empty() && cudaEvents.size() != tensors.size())
        bad = "gradientsReady: " + std::to_string(cudaEvents.size()) + " events for " + std::to_string(tensors.size()) +
              " tensors";
    for (std::size_t i = 0; i < tensors.size() && bad.empty(); ++i) {
        const int tensor = tensors[i];
        const auto before = tensors.first(i);  // a tensor named twice in one call is announced twice too
        if (tensor < 0 || tensor >= static_cast<int>(tensors_.size()))
            bad = "gradientReady: tensor " + std::to_string(tensor) + " does not exist";
        else if (begun_ == 0)
            bad = "gradientReady for tensor " + std::to_string(tensor) + " before beginIteration";
        else if (readyGen_[tensor] >= begun_ || std::find(before.begin(), before.end(), tensor) != before.end())
            bad = "gradientReady for tensor " + std::to_string(tensor) + " twice in one iteration";
    }
    if (!bad.empty()) {
        lock.unlock();
        fail(Status::error("rank " + std::to_string(transport_.rank()) + ": " + bad));
        return;
    }
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        readyGen_[tensors[i]] = begun_;
        events_[tensors[i]] = cudaEvents.empty() ? nullptr : cudaEvents[i];
    }
    lock.unlock();
    changed_.notify_all();
}

Status Runtime::notReducedInTime(int tensor) const {
    return Status::error("rank " + std::to_string(transport_.rank()) + ": tensor " + std::to_string(tensor) +
                         " was not reduced within " +
                         std::to_string((options_.timeout + kCommDiagnosisGrace) / std::chrono::milliseconds(1)) +
                         " ms");
}

Status Runtime::waitReduced(int tensor) {
    std::unique_lock lock(mutex_);
    if (tensor < 0 || tensor >= static_cast<int>(tensors_.size()))
        return Status::error("waitReduced: tensor " + std::to_string(tensor) + " does not exist");
    const int gen = readyGen_[tensor];
    const bool barrier = policy_ && policy_->updateWaitsForAll();
    const bool done = reduced_.wait_for(lock, options_.timeout + kCommDiagnosisGrace, [&] {
        return !error_.ok() || (barrier ? completed_ >= gen : reducedGen_[tensor] >= gen);
    });
    if (!error_.ok()) return error_;
    return done ? Status::success() : notReducedInTime(tensor);
}

bool Runtime::isReduced(int tensor) const {
    std::lock_guard lock(mutex_);
    if (tensor < 0 || tensor >= static_cast<int>(tensors_.size())) return false;
    return reducedGen_[tensor] >= readyGen_[tensor];
}

Status Runtime::waitReducedOrAny(int tensor, std::span<const int> others) {
    std::unique_lock lock(mutex_);
    const auto exists = [&](int t) { return t >= 0 && t < static_cast<int>(tensors_.size()); };
    if (!exists(tensor) || !std::all_of(others.begin(), others.end(), exists))
        return Status::error("waitReducedOrAny: a tensor does not exist");
    const auto reduced = [&](int t) { return reducedGen_[t] >= readyGen_[t]; };
    const bool done = reduced_.wait_for(lock, options_.timeout + kCommDiagnosisGrace, [&] {
        return !error_.ok() || reduced(tensor) || std::any_of(others.begin(), others.end(), reduced);
    });
    if (!error_.ok()) return error_;
    return done ? Status::success() : notReducedInTime(tensor);
}

Status Runtime::waitAll() {
    std::unique_lock lock(mutex_);
    const int gen = begun_;
    const bool done = reduced_.wait_for(lock, options_.timeout + kCommDiagnosisGrace,
                                        [&] { return !error_.ok() || completed_ >= gen; });
    if (!error_.ok()) return error_;
    if (!done)
        return Status::error("rank " + std::to_string(transport_.rank()) + ": iteration not reduced within " +
                             std::to_string((options_.timeout + kCommDiagnosisGrace) / std::chrono::milliseconds(1)) + " ms");
    return Status::success();
}

namespace {

// The calling thread's CPU time so far, and what it spent since its previous call (its first call: nothing). Called at each iteration's start, so that an iteration's first collective counts from there.
Nanos threadCpuSincePrevious() {
    thread_local Nanos previous = -1;
    const Nanos now = threadCpuNs();
    const Nanos spent = previous < 0 ? 0 : now - previous;
    previous = now;
    return spent;
}

}  // namespace

void Runtime::commLoop(int channel) {
    // On CPU ranks this thread stands in for a NIC: its wake-ups must not wait for a compute thread's slice.
    if (!options_.gpu) (void)requestShortSlice();
    (void)requestPreciseTimers();
    for (int gen = 1;; ++gen) {
        {
            std::unique_lock lock(mutex_);
            // Idle between iterations: no timeout here, the caller decides when training continues. A channel
            // that finished early waits for the others too: the next generation's progress starts from zero.
            changed_.wait(lock, [&] { return stop_ || !error_.ok() || (begun_ >= gen && completed_ >= gen - 1); });
            if (stop_ || !error_.ok()) return;
            inIteration_ = true;
        }
        (void)threadCpuSincePrevious();  // what the thread did between iterations is not a collective's
        Status s = options_.mode == OrderMode::Plan ? runPlanIteration(gen, channel) : runDynamicIteration(gen);
        if (!s.ok()) {
            fail(std::move(s));
            return;
        }
        {
            std::lock_guard lock(mutex_);
            if (++channelsDone_ < options_.channels) continue;
            channelsDone_ = 0;
            inIteration_ = false;
            completed_ = gen;
            iterationIds_.pop_front();
            std::fill(reducedElements_.begin(), reducedElements_.end(), 0);
        }
        reduced_.notify_all();
        changed_.notify_all();  // the channels waiting for this generation to end
    }
}

Status Runtime::waitLocallyReady(const CommUnit& unit, int gen) {
    std::unique_lock lock(mutex_);
    for (const Piece& p : unit.pieces) {
        const bool ready = changed_.wait_for(lock, options_.timeout,
                                             [&] { return stop_ || !error_.ok() || readyGen_[p.tensor] >= gen; });
        if (stop_) return Status::error("runtime stopped during an iteration");
        if (!error_.ok()) return error_;
        if (!ready)
            return Status::error("rank " + std::to_string(transport_.rank()) + ": the gradient of tensor " +
                                 std::to_string(p.tensor) + " was not ready within " +
                                 std::to_string(options_.timeout.count()) + " ms");
    }
    return Status::success();
}

Status Runtime::runPlanIteration(int gen, int channel) {
    for (std::size_t k = channel; k < options_.plan.size(); k += options_.channels) {
        const CommUnit& unit = options_.plan[k];
        PACER_RETURN_IF_ERROR(waitLocallyReady(unit, gen));
        PACER_RETURN_IF_ERROR(execute(unit, gen, channel));
    }
    return Status::success();
}

Status Runtime::runDynamicIteration(int gen) {
    const int n = static_cast<int>(tensors_.size());
    const int ranks = transport_.size();
    std::vector<float> control(n + kControlClockFloats);
    UnitLedger ledger(tensors_);  // what the policy was told is ready everywhere, and what it has sent
    std::vector<bool> announced(n, false);
    std::optional<CommUnit> pendingDone;
    // Whether every rank enters the next round at once (there may be more work) or first waits for news. Not at
    // the start: the iteration begins as backward begins, before any gradient exists, and a round then would
    // only agree that nothing is ready and delay the round that finds the first gradient.
    bool enterAtOnce = false;
    // On host memory the readiness flags of the next decision ride on each unit's own collective (appended to its
    // buffer), so a stream of units costs one collective each instead of two: each collective is several thread
    // wake-ups, which on a loaded machine is most of a small unit's time. Then `agreed` says control already
    // holds the agreement of the next round.
    const bool piggyback = readinessRides();
    bool agreed = false;
    using Clock = std::chrono::steady_clock;
    Clock::time_point wake = Clock::time_point::max();  // when the policy's held-back work is due
    auto flagReadiness = [&] {  // under mutex_
        for (int t = 0; t < n; ++t) {
            const bool ready = readyGen_[t] >= gen;
            control[t] = ready ? 1.0f : 0.0f;
            if (ready) announced[t] = true;
        }
    };
    auto stampClock = [&](Nanos at) {
        if (transport_.rank() == 0) {
            encodeClock(at, control.data() + n);
            encodeClock(lastControlExit_, control.data() + n + kClockChunks);
        } else {
            std::fill(control.begin() + n, control.end(), 0.0f);
        }
    };
    for (bool first = true;; first = false) {
        std::optional<RoundEvent> round;  // the stand-alone agreement round of this decision, if it needed one
        if (!agreed) {
            std::unique_lock lock(mutex_);
            if (!enterAtOnce) {
                // Nothing to send until this rank has news (a gradient) or the policy's held-back work is due. A
                // rank with nothing left to wait for joins the next round at once, since the news must come from a
                // peer; but while the policy holds work back until a known time, everyone waits for that time:
                // news before it would change nothing (Horovod's cycle hears everything at its next tick), and
                // each round it would start is a collective whose CPU the compute threads pay for.
                const bool holding = wake != Clock::time_point::max();
                auto hasNews = [&] {
                    if (stop_ || !error_.ok()) return true;
                    if (holding) return false;
                    bool all = true;
                    for (int t = 0; t < n; ++t) {
                        const bool ready = readyGen_[t] >= gen;
                        if (ready && !announced[t]) return true;
                        all = all && ready;
                    }
                    return all;
                };
                const auto deadline = std::min(wake, Clock::now() + options_.timeout);
                const bool news = changed_.wait_until(lock, deadline, hasNews);
                if (stop_) return Status::error("runtime stopped during an iteration");
                if (!error_.ok()) return error_;
                if (!news && Clock::now() < wake)
                    return Status::error("rank " + std::to_string(transport_.rank()) +
                                         ": no gradient became ready within " +
                                         std::to_string(options_.timeout.count()) + " ms");
            }
            flagReadiness();
            lock.unlock();
            round = RoundEvent{currentIteration(gen), clockNs(), 0,
                               static_cast<std::int64_t>(control.size() * sizeof(float)), false};
            stampClock(round->start);
            PACER_RETURN_IF_ERROR(transport_.allreduce(control.data(), control.size()));
            round->end = clockNs();
            round->cpu = threadCpuSincePrevious();
        }
        agreed = false;
        const Nanos left = clockNs();
        const Nanos now = decodeClock(control.data() + n);
        // The policy's clock is rank 0's, stamped as it entered the round. Its wake times are turned into this
        // rank's clock by the offset between the two. Every rank leaves a collective when the last one's data has
        // come, so the ranks' exits of one collective are one moment on every clock, and this rank's exit minus rank
        // 0's (which the next control collective carries) is the offset, whichever rank came late: the median of
        // the latest kExitGaps. Until one is known, the bound from this round: this rank's clock minus rank 0's
        // stamp, the least over this iteration's rounds and the last one's. That bound also holds how long rank 0
        // waited for the others, every round where it comes first: on the small MLP at 10 Gb/s, where rank 1's
        // compute ran 0.2 ms behind rank 0's, rank 1 entered each Horovod tick's round 0.1-0.2 ms after rank 0 (with
        // the exits: within the emulated round's 0.06 ms, the link emulator letting the early rank leave first).
        const Nanos rank0Left = decodeClock(control.data() + n + kClockChunks);  // of the one before this one
        if (transport_.rank() != 0 && rank0Left > 0 && lastControlExit_ > 0) {
            exitGaps_.push_back(lastControlExit_ - rank0Left);
            if (exitGaps_.size() > kExitGaps) exitGaps_.pop_front();
        }
        lastControlExit_ = left;
        if (first) rank0ToLocal_ = {rank0ToLocal_[1], std::numeric_limits<Nanos>::max()};
        rank0ToLocal_[1] = std::min(rank0ToLocal_[1], left - now);
        // Read only where a wake time is converted (the policy holds work back), not at every decision.
        auto toLocal = [&]() -> Nanos {
            if (transport_.rank() == 0) return 0;
            if (exitGaps_.empty()) return std::min(rank0ToLocal_[0], rank0ToLocal_[1]);
            std::array<Nanos, kExitGaps> gaps{};
            const auto end = std::copy(exitGaps_.begin(), exitGaps_.end(), gaps.begin());
            const auto mid = gaps.begin() + (end - gaps.begin()) / 2;
            std::nth_element(gaps.begin(), mid, end);
            return *mid;
        };
        if (first) policy_->beginIteration(now);
        if (pendingDone) policy_->onUnitDone(*pendingDone, now);
        pendingDone.reset();
        // Newly ready everywhere: in backward order, the order gradients are produced, so FIFO sees the same.
        for (int t = n - 1; t >= 0; --t) {
            if (!ledger.wasHeard(t) && static_cast<int>(control[t] + 0.5f) == ranks) {
                ledger.heard(t);
                policy_->onGradientReady(t, now);
            }
        }
        if (policy_->finished()) {
            if (round && sink_) sink_->onRound(*round);
            return Status::success();
        }
        std::optional<CommUnit> unit = policy_->next(now);
        if (round && sink_) {
            round->chose_unit = unit.has_value();
            sink_->onRound(*round);
        }
        wake = Clock::time_point::max();
        if (!unit) {
            enterAtOnce = false;
            // The policy's time on this rank's clock. Not counted from now: the round took a while (a peer's news
            // came later), and counting from its end put every Horovod tick that much behind the cycle it keeps
            // (0.25 ms a tick, a tenth of the small MLP's iteration, on 2 CPU ranks here).
            if (const Nanos w = policy_->wakeTime(); w != kNever)
                wake = Clock::time_point(std::chrono::nanoseconds(std::max(w, now) + toLocal()));
            continue;
        }
        PACER_RETURN_IF_ERROR(ledger.admit(policy_->name(), *unit));
        if (piggyback) {
            {
                std::lock_guard lock(mutex_);
                flagReadiness();
            }
            stampClock(clockNs());
            PACER_RETURN_IF_ERROR(execute(*unit, gen, 0, &control));
            agreed = true;
        } else {
            PACER_RETURN_IF_ERROR(execute(*unit, gen, 0));
        }
        pendingDone = std::move(unit);
        enterAtOnce = true;
    }
}

Status Runtime::reduce(int channel, float* data, std::size_t count) {
    if (options_.algorithm == Algorithm::Native) return transport_.allreduceOn(channel, data, count);
    // Auto decides on the unit's bytes alone, so every rank decides alike.
    const Algorithm algorithm =
        options_.algorithm == Algorithm::Auto
            ? chooseAlgorithm(transport_.size(), options_.topology, count * sizeof(float), options_.link)
            : options_.algorithm;
    if (algorithm == Algorithm::Native) return transport_.allreduceOn(channel, data, count);  // auto kept it
    PointToPoint* p2p = transport_.pointToPoint(channel);
    if (!p2p) return Status::error("this transport has no point-to-point layer for " + algorithmName(algorithm));
    return runAllreduce(algorithm, *p2p, data, count, {options_.topology, 0});
}

int Runtime::currentIteration(int gen) {
    std::lock_guard lock(mutex_);
    return iterationIds_.empty() ? gen : iterationIds_.front();
}

Status Runtime::execute(const CommUnit& unit, int gen, int channel, std::vector<float>* rider) {
    SegmentRange range(options_.gpu, unit);
    const Nanos start = clockNs();
    if (options_.gpu) {
        for (const Piece& p : unit.pieces) {
            void* event = nullptr;
            {
                std::lock_guard lock(mutex_);
                event = events_[p.tensor];
            }
            PACER_RETURN_IF_ERROR(transport_.waitEvent(event));
        }
    }
    const std::size_t riderCount = rider ? rider->size() : 0;
    if (options_.algorithm == Algorithm::Native) {
        // A fused unit, or one carrying the next round's control block (host memory only), is reduced as one
        // vector; the transport packs it into a fused buffer or gathers it by itself.
        std::vector<FloatSpan> spans;
        spans.reserve(unit.pieces.size() + 1);
        for (const Piece& p : unit.pieces) spans.push_back({gradients_[p.tensor] + p.offset, p.count});
        if (riderCount > 0) spans.push_back({rider->data(), rider->size()});
        PACER_RETURN_IF_ERROR(transport_.allreduceSpansOn(channel, spans));
    } else if (unit.pieces.size() == 1 && riderCount == 0) {
        const Piece& p = unit.pieces.front();
        PACER_RETURN_IF_ERROR(reduce(channel, gradients_[p.tensor] + p.offset, p.count));
    } else {
        // Pacer's own algorithms reduce one contiguous vector: pack the pieces (and the rider) into one buffer,
        // reduce it once, unpack.
        auto buffer = transport_.scratch(unit.elements() + riderCount, channel);
        if (!buffer.ok()) return buffer.status();
        std::size_t at = 0;
        for (const Piece& p : unit.pieces) {
            PACER_RETURN_IF_ERROR(transport_.copy(*buffer + at, gradients_[p.tensor] + p.offset, p.count));
            at += p.count;
        }
        if (riderCount > 0) std::copy(rider->begin(), rider->end(), *buffer + at);
        PACER_RETURN_IF_ERROR(reduce(channel, *buffer, at + riderCount));
        if (riderCount > 0) std::copy(*buffer + at, *buffer + at + riderCount, rider->begin());
        at = 0;
        for (const Piece& p : unit.pieces) {
            PACER_RETURN_IF_ERROR(transport_.copy(gradients_[p.tensor] + p.offset, *buffer + at, p.count));
            at += p.count;
        }
        PACER_RETURN_IF_ERROR(transport_.synchronize());
    }
    const Nanos end = clockNs();
    const int iteration = currentIteration(gen);
    bool tensorDone = false;
    {
        std::lock_guard lock(mutex_);
        for (const Piece& p : unit.pieces) {
            reducedElements_[p.tensor] += p.count;
            if (reducedElements_[p.tensor] >= tensors_[p.tensor].elements) {
                reducedGen_[p.tensor] = gen;
                tensorDone = true;
            }
        }
    }
    // Wake waiters only when a whole tensor is done: waking them per segment costs a context switch each,
    // which on a busy 2-core machine is as long as the segment itself.
    if (tensorDone) reduced_.notify_all();
    if (sink_) sink_->onComm(CommEvent{iteration, unit, start, end, channel, threadCpuSincePrevious()});
    return Status::success();
}

}  // namespace pacer::engine
