#include "profiler/kineto_ddp.h"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <string_view>
#include <unordered_map>

namespace pacer::profiler {

namespace {

constexpr std::string_view kAccumulateGrad = "torch::autograd::AccumulateGrad";
constexpr std::string_view kCommsRecord = "record_param_comms";

bool startsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

bool isAllReduceKernel(const RawEvent& e) {
    return e.cat == "kernel" && (startsWith(e.name, "ncclKernel_AllReduce") || startsWith(e.name, "ncclDevKernel_AllReduce"));
}
bool isNcclKernel(const RawEvent& e) { return e.cat == "kernel" && startsWith(e.name, "nccl"); }
bool onHost(const RawEvent& e) { return e.cat != "kernel" && e.cat != "gpu_user_annotation" && e.cat != "gpu_memcpy" && e.cat != "gpu_memset"; }
bool isAllReduceCollective(std::string_view c) { return c == "allreduce" || c == "all_reduce"; }

// What a trace lacks, said as how to record it with the tool that wrote it.
struct Advice {
    const char* noSteps;
    const char* noGradients;
    const char* noCollectives;
    const char* noSizes;
};

const Advice& adviceFor(DdpTraceSource source) {
    static const Advice kineto{
        "no ProfilerStep#N ranges (record with torch.profiler.profile(schedule=...) and call prof.step() every iteration)",
        "no torch::autograd::AccumulateGrad ops, so no gradient tensors (profile the training step, backward included)",
        "no all-reduce (record_param_comms, c10d::allreduce_, nccl:all_reduce or gloo:all_reduce): not a DDP job's trace",
        "the all-reduces carry no message sizes and the gradients no shapes (record with "
        "torch.profiler.profile(record_shapes=True), or with a PyTorch that records record_param_comms)"};
    static const Advice nsys{
        "no iteration ranges: neither ProfilerStep#N nor NVTX ranges named 'step N' or 'iteration N' (wrap each "
        "training step in torch.cuda.nvtx.range(f\"step {i}\"))",
        "no torch::autograd::AccumulateGrad NVTX ranges, so no gradient tensors (record with nsys profile "
        "--trace=cuda,nvtx and run the training steps inside torch.autograd.profiler.emit_nvtx(record_shapes=True))",
        "no all-reduce (NCCL's ncclAllReduce NVTX range, or emit_nvtx's c10d::allreduce_ or nccl:all_reduce): not a "
        "DDP job's export, or recorded without --trace=nvtx",
        "the all-reduces carry no message sizes and the gradients no shapes (run the training steps inside "
        "torch.autograd.profiler.emit_nvtx(record_shapes=True), or use an NCCL whose ncclAllReduce NVTX range carries "
        "its 'Message size [bytes]' payload)"};
    return source == DdpTraceSource::NsysNvtx ? nsys : kineto;
}

// Bytes per element of Kineto's dtype names (c10's ScalarType names); 0 for one replay cannot size.
int dtypeBytes(std::string_view t) {
    if (t == "Float" || t == "Int" || t == "ComplexHalf") return 4;
    if (t == "Double" || t == "Long" || t == "ComplexFloat") return 8;
    if (t == "Half" || t == "BFloat16" || t == "Short") return 2;
    if (t == "Byte" || t == "Char" || t == "Bool" || startsWith(t, "Float8")) return 1;
    return 0;
}

// Larger than any gradient bucket (or gradient) a GPU holds: a size beyond it is a corrupt trace. Sizes are held
// at most one past it, so products and sums of them stay inside int64 (they overflowed on crafted traces: UB, and
// a wrapped message size read as "no message sizes").
constexpr std::int64_t kMaxBucketBytes = std::int64_t{1} << 40;  // 1 TiB
constexpr std::int64_t kTooLarge = kMaxBucketBytes + 1;

// A message's bytes from its element count and dtype: -1 when unknown, kTooLarge when beyond any bucket.
std::int64_t messageBytes(std::int64_t elements, std::string_view dtype) {
    const int size = dtypeBytes(dtype);
    if (elements < 0 || size <= 0) return -1;
    return elements > kMaxBucketBytes / size ? kTooLarge : elements * size;
}

// A shape's element count: -1 without a shape, kTooLarge / 4 + 1 when beyond any gradient.
std::int64_t shapeElements(const RawEvent& grad) {
    if (!grad.hasInputDims) return -1;
    std::int64_t elements = 1;
    for (std::int64_t d : grad.firstInputDims) {
        if (d != 0 && elements > kMaxBucketBytes / 4 / d) return kMaxBucketBytes / 4 + 1;
        elements *= d;
    }
    return elements;
}

struct Step {
    int number = -1;
    std::int64_t start = 0, end = 0;
};

struct Collective {
    std::int64_t launch = 0;         // the host op that issued it
    std::int64_t bytes = -1;         // from its message, when recorded
    std::int64_t start = 0, end = 0;  // when it ran: its NCCL kernel, its gloo range, or the launch op
};

// One step of one rank, in the device's time.
struct StepObservation {
    Step step;
    std::int64_t backwardStart = 0;
    std::vector<std::int64_t> ready;          // per gradient, in ready order
    std::vector<std::int64_t> gradElements;   // per gradient, -1 when the trace has no shape
    std::vector<int> bucketSizes;             // gradients per bucket, in launch order
    std::vector<Collective> collectives;      // per bucket
    std::int64_t optimizerStart = -1, optimizerEnd = -1;
};

// When the compute launched up to a host time has finished on the GPU: the latest end of the non-NCCL kernels
// whose launch call started by then (kernels matched to their launches through correlation ids). CPU jobs have no
// kernels: the host time itself.
class DeviceClock {
public:
    explicit DeviceClock(const std::vector<RawEvent>& events) {
        std::unordered_map<std::int64_t, std::int64_t> kernelEnd;  // correlation -> end
        for (const RawEvent& e : events)
            if (e.cat == "kernel" && !isNcclKernel(e) && e.correlation != 0) {
                auto& end = kernelEnd[e.correlation];
                end = std::max(end, e.ts + e.dur);
            }
        for (const RawEvent& e : events)
            if (e.cat == "cuda_runtime" && e.correlation != 0)
                if (auto it = kernelEnd.find(e.correlation); it != kernelEnd.end()) launches_.emplace_back(e.ts, it->second);
        std::sort(launches_.begin(), launches_.end());
        for (std::size_t i = 1; i < launches_.size(); ++i)
            launches_[i].second = std::max(launches_[i].second, launches_[i - 1].second);
    }
    std::int64_t readyAt(std::int64_t hostTime) const {
        auto it = std::upper_bound(launches_.begin(), launches_.end(), std::make_pair(hostTime, INT64_MAX));
        return it == launches_.begin() ? hostTime : std::max(hostTime, std::prev(it)->second);
    }

private:
    std::vector<std::pair<std::int64_t, std::int64_t>> launches_;  // (launch time, running max of kernel ends)
};

template <typename Pred>
std::vector<const RawEvent*> select(const std::vector<RawEvent>& events, Pred&& pred) {
    std::vector<const RawEvent*> out;
    for (const RawEvent& e : events)
        if (e.ph == 'X' && pred(e)) out.push_back(&e);
    std::sort(out.begin(), out.end(), [](const RawEvent* a, const RawEvent* b) { return a->ts < b->ts; });
    return out;
}

// The all-reduces of one rank: launches, their sizes and when each ran.
std::vector<Collective> collectivesOf(const std::vector<RawEvent>& events) {
    auto launches = select(events, [](const RawEvent& e) { return e.name == kCommsRecord && isAllReduceCollective(e.collective); });
    // NCCL's own NVTX range (Nsight Systems exports only) first: it is the one that carries the message size.
    if (launches.empty())
        for (std::string_view name : {"ncclAllReduce", "c10d::allreduce_", "nccl:all_reduce", "gloo:all_reduce"}) {
            launches = select(events, [&](const RawEvent& e) { return e.name == name && onHost(e); });
            if (!launches.empty()) break;
        }
    auto device = select(events, isAllReduceKernel);
    if (device.empty())
        device = select(events, [](const RawEvent& e) { return e.name == "gloo:all_reduce" && onHost(e); });
    std::vector<Collective> out;
    std::size_t next = 0;
    for (const RawEvent* l : launches) {
        Collective c;
        c.launch = l->ts;
        c.bytes = messageBytes(l->msgElements, l->dtype);
        c.start = l->ts;
        c.end = l->ts + l->dur;
        // The first device-side all-reduce not before the launch: NCCL's stream and Gloo's queue keep launch order.
        while (next < device.size() && device[next]->ts + device[next]->dur < l->ts) ++next;
        if (next < device.size() && device[next] != l) {
            c.start = device[next]->ts;
            c.end = device[next]->ts + device[next]->dur;
            if (c.bytes < 0) c.bytes = messageBytes(device[next]->msgElements, device[next]->dtype);
            ++next;
        }
        out.push_back(c);
    }
    return out;
}

std::vector<Step> stepsOf(const std::vector<RawEvent>& events) {
    std::vector<Step> steps;
    for (const RawEvent* e : select(events, [](const RawEvent& e) { return startsWith(e.name, "ProfilerStep#") && onHost(e); })) {
        Step s;
        const std::string_view digits = e->name.substr(e->name.find('#') + 1);
        if (std::from_chars(digits.data(), digits.data() + digits.size(), s.number).ec != std::errc()) continue;
        s.start = e->ts;
        s.end = e->ts + e->dur;
        steps.push_back(s);
    }
    return steps;
}

// Everything one rank's trace says about its steps. Steps that are cut off (no launch after their last gradient)
// are left out.
Result<std::vector<StepObservation>> observeRank(const KinetoRank& rank, const Advice& advice) {
    const std::vector<RawEvent>& events = *rank.events;
    const std::string where = "rank " + std::to_string(rank.rank) + ": ";
    const std::vector<Step> steps = stepsOf(events);
    if (steps.empty()) return errorStatus(where + advice.noSteps);
    const auto grads = select(events, [](const RawEvent& e) { return e.name == kAccumulateGrad; });
    if (grads.empty()) return errorStatus(where + advice.noGradients);
    const std::vector<Collective> collectives = collectivesOf(events);
    if (collectives.empty()) return errorStatus(where + advice.noCollectives);
    const auto backwardOps = select(events, [](const RawEvent& e) { return startsWith(e.name, "autograd::engine::evaluate_function: "); });
    const auto optimizerOps = select(events, [](const RawEvent& e) { return startsWith(e.name, "Optimizer.step#"); });
    const DeviceClock device(events);

    std::vector<StepObservation> out;
    // Every list is in time order: each step reads its own part of them by binary search (a scan from the start per
    // step was quadratic, minutes on a crafted trace of many short steps).
    auto from = [](const auto& sorted, std::int64_t t, auto timeOf) {
        return std::lower_bound(sorted.begin(), sorted.end(), t, [&](const auto& x, std::int64_t u) { return timeOf(x) < u; });
    };
    auto opTime = [](const RawEvent* e) { return e->ts; };
    for (const Step& step : steps) {
        StepObservation o;
        o.step = step;
        std::vector<const RawEvent*> stepGrads;
        for (auto it = from(grads, step.start, opTime); it != grads.end() && (*it)->ts < step.end; ++it) stepGrads.push_back(*it);
        if (stepGrads.empty()) continue;
        std::int64_t backwardHost = stepGrads.front()->ts;
        if (auto b = from(backwardOps, step.start, opTime); b != backwardOps.end() && (*b)->ts < step.end)
            backwardHost = std::min(backwardHost, (*b)->ts);
        o.backwardStart = device.readyAt(backwardHost);
        // A bucket: the gradients accumulated since the previous launch. A launch with none is not DDP's.
        std::size_t g = 0;
        for (auto c = from(collectives, stepGrads.front()->ts, [](const Collective& x) { return x.launch; });
             c != collectives.end() && c->launch < step.end; ++c) {
            const std::size_t first = g;
            while (g < stepGrads.size() && stepGrads[g]->ts < c->launch) ++g;
            if (g == first) continue;
            o.bucketSizes.push_back(static_cast<int>(g - first));
            o.collectives.push_back(*c);
        }
        if (g != stepGrads.size() || o.collectives.empty()) continue;  // the step ends before its last bucket's launch
        std::int64_t previous = o.backwardStart;
        for (const RawEvent* grad : stepGrads) {
            previous = std::max(previous, device.readyAt(grad->ts + grad->dur));
            o.ready.push_back(previous);
            o.gradElements.push_back(shapeElements(*grad));
        }
        if (auto op = from(optimizerOps, stepGrads.back()->ts, opTime); op != optimizerOps.end() && (*op)->ts < step.end) {
            o.optimizerStart = (*op)->ts;
            o.optimizerEnd = (*op)->ts + (*op)->dur;
        }
        out.push_back(std::move(o));
    }
    if (out.empty()) return errorStatus(where + "no ProfilerStep#N holds a whole backward with its all-reduces");
    // The steady bucket layout is the last step's (DDP rebuilds its buckets after the first iteration).
    const std::vector<int> layout = out.back().bucketSizes;
    out.erase(std::remove_if(out.begin(), out.end(), [&](const StepObservation& o) { return o.bucketSizes != layout; }), out.end());
    return out;
}

}  // namespace

bool kinetoArgsWanted(std::string_view name) {
    return name == kAccumulateGrad || name == kCommsRecord || startsWith(name, "ncclKernel_AllReduce") ||
           startsWith(name, "ncclDevKernel_AllReduce");
}

Result<DdpReplayInput> extractKinetoDdp(const std::vector<KinetoRank>& ranks, int firstTrackId, DdpTraceSource source) {
    const Advice& advice = adviceFor(source);
    if (ranks.empty()) return errorStatus(advice.noGradients);
    std::vector<std::vector<StepObservation>> observed;
    for (const KinetoRank& r : ranks) {
        PROFILER_ASSIGN_OR_RETURN(auto steps, observeRank(r, advice));
        if (!observed.empty() && steps.front().bucketSizes != observed.front().front().bucketSizes)
            return errorStatus("rank " + std::to_string(r.rank) + " has " + std::to_string(steps.front().ready.size()) +
                               " gradients in " + std::to_string(steps.front().bucketSizes.size()) + " buckets, rank " +
                               std::to_string(ranks.front().rank) + " " + std::to_string(observed.front().front().ready.size()) +
                               " in " + std::to_string(observed.front().front().bucketSizes.size()));
        observed.push_back(std::move(steps));
    }

    // Sizes, from the first rank's last step: shapes when every gradient has one and they add up to each bucket's
    // message; otherwise each bucket's bytes shared evenly by its gradients.
    const StepObservation& ref = observed.front().back();
    const int n = static_cast<int>(ref.ready.size());
    DdpReplayInput in;
    in.exactSizes = std::all_of(ref.gradElements.begin(), ref.gradElements.end(), [](std::int64_t e) { return e > 0; });
    std::vector<std::int64_t> bytes(static_cast<std::size_t>(n), 0);  // per gradient in ready order
    std::vector<std::int64_t> bucketBytes;
    for (std::size_t b = 0, g = 0; b < ref.bucketSizes.size(); ++b) {
        const std::size_t first = g, count = static_cast<std::size_t>(ref.bucketSizes[b]);
        std::int64_t fromShapes = 0;
        for (std::size_t k = first; k < first + count; ++k) fromShapes = std::min(kTooLarge, fromShapes + ref.gradElements[k] * 4);
        std::int64_t total = ref.collectives[b].bytes;
        if (total < 0) {
            if (!in.exactSizes)
                return errorStatus(advice.noSizes);
            total = fromShapes;
        }
        if (total > kMaxBucketBytes)
            return errorStatus("bucket " + std::to_string(b) + " is larger than 1 TiB by the trace's message sizes or shapes: "
                               "they are corrupt");
        if (in.exactSizes && fromShapes != total) in.exactSizes = false;  // another dtype or layout: keep the sums
        for (std::size_t k = first; k < first + count; ++k)
            bytes[k] = in.exactSizes ? ref.gradElements[k] * 4 : (total / static_cast<std::int64_t>(count) + 3) / 4 * 4;
        if (!in.exactSizes) {  // the bucket's sum stays exact: the first gradient takes the rest
            std::int64_t shared = 0;
            for (std::size_t k = first + 1; k < first + count; ++k) shared += bytes[k];
            bytes[first] = total - shared;
            if (bytes[first] <= 0) return errorStatus("bucket " + std::to_string(b) + " of " + std::to_string(total) + " bytes cannot hold its " + std::to_string(count) + " gradients");
        }
        bucketBytes.push_back(total);
        g += count;
    }
    // Tensor ids in forward order: the gradient ready k-th (backward runs last layer first) is tensor n-1-k.
    auto idOf = [n](std::size_t k) { return n - 1 - static_cast<int>(k); };
    auto nameOf = [&](int id) { return "grad " + std::to_string(id); };
    for (int id = 0; id < n; ++id) {
        const std::size_t k = static_cast<std::size_t>(n - 1 - id);
        // Tensors count 4-byte elements (engine::TensorInfo); an odd byte count of another dtype rounds up.
        in.tensors.push_back(TensorRecord{id, nameOf(id), id, (bytes[k] + 3) / 4});
    }
    for (std::size_t b = 0, g = 0; b < ref.bucketSizes.size(); ++b) {
        std::vector<int> ids;
        for (int k = 0; k < ref.bucketSizes[b]; ++k) ids.push_back(idOf(g + static_cast<std::size_t>(k)));
        std::sort(ids.begin(), ids.end());
        in.buckets.push_back(std::move(ids));
        g += static_cast<std::size_t>(ref.bucketSizes[b]);
    }

    for (std::size_t r = 0; r < ranks.size(); ++r) {
        const int rank = ranks[r].rank;
        const int compute = firstTrackId + static_cast<int>(2 * r), comm = compute + 1;
        in.tracks.push_back(Track{compute, rank, TrackKind::Compute, "rank " + std::to_string(rank) + " compute" + std::string(kReplayInputTrackSuffix)});
        in.tracks.push_back(Track{comm, rank, TrackKind::Comm, "rank " + std::to_string(rank) + " comm" + std::string(kReplayInputTrackSuffix)});
        for (const StepObservation& o : observed[r]) {
            auto add = [&](EventKind kind, int track, std::int64_t start, std::int64_t end, int layer, std::string name) {
                TraceEvent e;
                e.kind = kind;
                e.track = track;
                e.start = start;
                e.end = std::max(start, end);
                e.iteration = o.step.number;
                e.layer = layer;
                e.name = std::move(name);
                in.events.push_back(std::move(e));
                return &in.events.back();
            };
            add(EventKind::Iteration, compute, o.step.start, o.step.end, -1, "ProfilerStep#" + std::to_string(o.step.number));
            // Forward: the time before backward, shared in proportion to the layers' backward times.
            const std::int64_t backwardTotal = o.ready.back() - o.backwardStart;
            const std::int64_t forwardTotal = std::max<std::int64_t>(0, o.backwardStart - o.step.start);
            std::int64_t t = o.step.start;
            for (int id = 0; id < n; ++id) {
                const std::size_t k = static_cast<std::size_t>(n - 1 - id);
                const std::int64_t own = o.ready[k] - (k == 0 ? o.backwardStart : o.ready[k - 1]);
                const std::int64_t share = backwardTotal > 0 ? forwardTotal * own / backwardTotal : forwardTotal / n;
                const std::int64_t end = id == n - 1 ? o.step.start + forwardTotal : t + share;
                add(EventKind::Forward, compute, t, end, id, nameOf(id));
                t = end;
            }
            for (std::size_t k = 0; k < o.ready.size(); ++k)
                add(EventKind::Backward, compute, k == 0 ? o.backwardStart : o.ready[k - 1], o.ready[k], idOf(k), nameOf(idOf(k)));
            if (o.optimizerStart >= 0) {
                if (o.optimizerStart > o.ready.back()) add(EventKind::Wait, compute, o.ready.back(), o.optimizerStart, -1, "wait for buckets");
                add(EventKind::Optimizer, compute, std::max(o.optimizerStart, o.ready.back()), o.optimizerEnd, -1, "optimizer step");
            }
            for (std::size_t b = 0, g = 0; b < o.collectives.size(); ++b) {
                const Collective& c = o.collectives[b];
                TraceEvent* e = add(EventKind::AllReduce, comm, c.start, c.end, -1,
                                    "allreduce bucket " + std::to_string(b));
                e->tensor = idOf(g);
                e->layer = idOf(g + static_cast<std::size_t>(o.bucketSizes[b]) - 1);  // its last gradient's
                e->segment = 0;
                e->bytes = bucketBytes[b];
                e->priority = static_cast<int>(b);
                g += static_cast<std::size_t>(o.bucketSizes[b]);
            }
        }
        in.iterations = std::max(in.iterations, static_cast<int>(observed[r].size()));
    }
    std::stable_sort(in.events.begin(), in.events.end(), [](const TraceEvent& a, const TraceEvent& b) {
        return a.track != b.track ? a.track < b.track : a.start < b.start;
    });
    return in;
}

void attachDdpReplayInput(Result<DdpReplayInput> ddp, const std::string& format, int worldSize, const std::string& missing,
                          RunTrace& trace, RunInfo& info) {
    nlohmann::json imported = {{"format", format}};
    if (!missing.empty()) {
        imported["replay_missing"] = missing;
    } else if (!ddp.ok()) {
        imported["replay_missing"] = ddp.status().message();
    } else {
        DdpReplayInput in = std::move(ddp).value();
        imported["replay"] = "ddp";
        imported["buckets"] = in.buckets;
        imported["exact_sizes"] = in.exactSizes;
        trace.tensors = std::move(in.tensors);
        trace.tracks.insert(trace.tracks.end(), in.tracks.begin(), in.tracks.end());
        trace.events.insert(trace.events.end(), std::make_move_iterator(in.events.begin()), std::make_move_iterator(in.events.end()));
        info.policy = "ddp";
        info.ranks = std::max(info.ranks, worldSize);
        info.iterations = std::max(info.iterations, in.iterations);
    }
    info.experiment_json = nlohmann::json{{"imported", imported}}.dump();
}

}  // namespace pacer::profiler
