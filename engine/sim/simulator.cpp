#include "engine/sim/simulator.h"

#include "engine/unit_ledger.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

namespace pacer::engine {
namespace {

// A policy bug must end the simulation with an error, not a hang: no sane schedule needs this many decisions
// per tensor in one iteration (a 1 GiB tensor at 4 KiB segments is 65,536 units).
constexpr std::int64_t kMaxStepsPerTensor = 1 << 20;

// Iterations simulated before the ones asked for where collectives take CPU from compute (see CpuTakenByComm):
// each backward step's estimate halves its distance to the steady share per iteration (1/64 of it is left).
constexpr int kCpuLeadIn = 6;

struct GradientReady {
    Nanos time;
    int tensor;
};

// Tensors grouped by layer, built once per simulation so the iteration loop never allocates.
struct LayerIndex {
    std::vector<int> first;     // size layers + 1: tensors of layer l are ids[first[l] .. first[l+1])
    std::vector<int> ids;       // ascending id within each layer
    std::vector<Nanos> update;  // optimizer step of the whole layer

    explicit LayerIndex(const Workload& w)
        : first(w.layers.size() + 1, 0), ids(w.tensors.size()), update(w.layers.size(), 0) {
        for (const TensorInfo& t : w.tensors) ++first[t.layer + 1];
        for (std::size_t l = 0; l < w.layers.size(); ++l) first[l + 1] += first[l];
        std::vector<int> fill(first.begin(), first.end() - 1);
        for (const TensorInfo& t : w.tensors) {
            ids[fill[t.layer]++] = t.id;
            update[t.layer] += w.updateNanos(t.elements);
        }
    }
    bool empty(int layer) const { return first[layer] == first[layer + 1]; }
};

double toMs(double ns) { return ns / 1e6; }

// Busy time of `a` that overlaps `b`, both sorted disjoint interval lists, clipped to [lo, hi).
double intersection(const std::vector<std::pair<Nanos, Nanos>>& a, const std::vector<std::pair<Nanos, Nanos>>& b,
                    Nanos lo, Nanos hi) {
    double sum = 0;
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const Nanos s = std::max({a[i].first, b[j].first, lo});
        const Nanos e = std::min({a[i].second, b[j].second, hi});
        if (e > s) sum += static_cast<double>(e - s);
        if (a[i].second < b[j].second)
            ++i;
        else
            ++j;
    }
    return sum;
}

double busy(const std::vector<std::pair<Nanos, Nanos>>& a, Nanos lo, Nanos hi) {
    double sum = 0;
    for (const auto& [s, e] : a) {
        const Nanos cs = std::max(s, lo), ce = std::min(e, hi);
        if (ce > cs) sum += static_cast<double>(ce - cs);
    }
    return sum;
}

// CPU ranks with every core busy (Workload::comm_cpu): the collectives' CPU comes out of the compute stream. Each
// unit's CPU is spread evenly over its span (its density: CPU per ns, at most 1), and compute progresses at what the
// units running beside it leave of the core.
//
// A forward or an update runs after the units that overlap it were issued, so what they take is known. An
// iteration's backward steps and tail overlap that iteration's own units, which are issued only after its compute
// is laid out: for those, each step keeps the share of its time the own units took in the iterations before
// (steady state; averaged with the previous estimate so that it settles instead of swinging).
class CpuTakenByComm {
public:
    CpuTakenByComm(const CommCpu& model, int steps) : model_(model), share_(steps, 0.0), spans_(steps) {}
    bool active() const { return model_.any(); }
    std::size_t size() const { return units_.size(); }

    void unitIssued(Nanos start, Nanos end, std::size_t bytes) {
        if (!active() || end <= start) return;
        units_.push_back({start, end, model_.density(bytes, end - start)});
    }
    // A stand-alone agreement round over [start, end), with the CPU the model gives it (CommCpu::round_ns).
    void roundIssued(Nanos start, Nanos end) {
        if (model_.round_ns <= 0 || end <= start) return;
        units_.push_back({start, end, model_.roundDensity(end - start)});
    }
    // Whether rounds have a CPU figure of their own; without one (runs traced before 2026-12-04) a unit's CPU
    // includes the round that chose it, and is spread over both.
    bool roundsApart() const { return model_.round_ns > 0; }
    // `count` units of `bytes` each, back to back from `start`, each lasting `each`: the same density all along, so
    // one use stands for them all.
    void unitsIssued(Nanos start, Nanos each, std::size_t count, std::size_t bytes) {
        if (!active() || each <= 0 || count == 0) return;
        units_.push_back({start, start + static_cast<Nanos>(count) * each, model_.density(bytes, each)});
    }

    // How long a step of `base` ns starting at `t` lasts beside the units issued so far and, for a backward step
    // or the tail (`step` >= 0), this iteration's own units as estimated. Compute progresses at 1 minus the units'
    // summed density (nothing while they take the whole core), so the end is found by a sweep over their edges.
    Nanos stretch(Nanos t, Nanos base, int step = -1) {
        if (!active() || base <= 0) {
            if (step >= 0) spans_[step] = {t, t + std::max<Nanos>(0, base)};
            return base;
        }
        while (live_ < units_.size() && units_[live_].end <= t) ++live_;  // units start in order; ends almost
        edges_.clear();
        for (std::size_t i = live_; i < units_.size(); ++i)
            if (units_[i].end > t) {
                edges_.push_back({std::max(units_[i].start, t), units_[i].density});
                edges_.push_back({units_[i].end, -units_[i].density});
            }
        std::sort(edges_.begin(), edges_.end(), [](const Edge& a, const Edge& b) { return a.at < b.at; });
        double left = static_cast<double>(base), density = step >= 0 ? share_[step] : 0.0;
        double now = static_cast<double>(t);
        for (const Edge& e : edges_) {
            const double span = static_cast<double>(e.at) - now;
            const double rate = std::max(0.0, 1.0 - density);
            if (span > 0 && rate * span >= left) break;  // the step ends before this edge
            if (span > 0) {
                left -= rate * span;
                now = static_cast<double>(e.at);
            }
            density += e.delta;
        }
        const Nanos d = static_cast<Nanos>(std::llround(now + left / std::max(1e-9, 1.0 - density))) - t;
        if (step >= 0) spans_[step] = {t, t + d};
        return d;
    }

    // After an iteration's units (from `first` on) were issued: what they took of each backward step and the tail.
    void ownUnitsIssued(std::size_t first) {
        if (!active()) return;
        for (std::size_t step = 0; step < spans_.size(); ++step) {
            const auto [a, b] = spans_[step];
            if (b <= a) continue;
            double taken = 0;
            for (std::size_t i = first; i < units_.size() && units_[i].start < b; ++i) {
                const Nanos s = std::max(a, units_[i].start), e = std::min(b, units_[i].end);
                if (e > s) taken += units_[i].density * static_cast<double>(e - s);
            }
            const double measured = std::min(kMaxShare, taken / static_cast<double>(b - a));
            share_[step] = 0.5 * (share_[step] + measured);
        }
    }

private:
    static constexpr double kMaxShare = 0.95;  // compute always gets somewhere
    struct Use {
        Nanos start, end;
        double density;  // CPU ns per ns of the span, at most 1
    };
    struct Edge {
        Nanos at;
        double delta;  // a unit's density, added at its start and taken away at its end
    };
    CommCpu model_;
    std::vector<Use> units_;                      // in issue order, which is start order
    std::vector<double> share_;                   // per backward step (by layer) and the tail (last)
    std::vector<std::pair<Nanos, Nanos>> spans_;  // those steps in the current iteration
    std::size_t live_ = 0;                        // units before it ended before the latest step began
    std::vector<Edge> edges_;                     // scratch for stretch()
};

// A run of segments (SimOptions::segment_runs), one channel: a unit ran [start, end) and the policy would send
// `following` more of the same tensor after it, each but the last taking `each`. The simulator decides the unit
// after a unit that started at s and ended at b once it has heard the gradients ready by b (by s where readiness
// rides on the units); the policy goes on with the run while none is heard. How many of the `following` units go
// before the gradient ready at `heardAt` (kNever: none left) is heard.
std::size_t unitsBeforeHeard(Nanos start, Nanos end, Nanos each, Nanos gap, std::size_t following, Nanos heardAt,
                             bool rides) {
    if (heardAt == kNever) return following;
    // The following units come with the comm thread's gap before each: the j-th (j >= 1) starts at
    // end + gap + (j-1) x (each + gap). It goes if heardAt is after the previous unit's end, end + (j-1) x (each + gap)
    // (after its start where readiness rides: start for j = 1, then end + gap + (j-2) x (each + gap)).
    if (heardAt <= (rides ? start : end)) return 0;
    if (rides && heardAt <= end + gap) return 1;
    const Nanos stride = each + gap;
    if (stride <= 0) return following;
    const Nanos from = rides ? end + gap : end;
    const auto after = static_cast<std::size_t>((heardAt - from - 1) / stride) + (rides ? 2 : 1);
    return std::min(following, after);
}

SimEvent roundEvent(int iteration, Nanos start, Nanos end) {
    SimEvent e;
    e.kind = SimEvent::Round;
    e.iteration = iteration;
    e.start = start;
    e.end = end;
    return e;
}

}  // namespace

Status validateWorkload(const Workload& w) {
    if (w.layers.empty()) return Status::error("workload has no layers");
    if (w.tensors.empty()) return Status::error("workload has no gradient tensors");
    if (w.ranks < 1) return Status::error("workload rank count must be at least 1, got " + std::to_string(w.ranks));
    if (w.update_ns_per_element < 0) return Status::error("negative optimizer cost per element");
    if (w.resume_ns < 0 || w.dispatch_ns < 0 || w.release_gap_ns < 0 || w.timer_wake_ns < 0 ||
        w.tick_anchor_lead_ns < 0)
        return Status::error("negative wake-up latency");
    if (!w.dispatch_by_layer_ns.empty() && w.dispatch_by_layer_ns.size() != w.layers.size())
        return Status::error("wake-up latencies for " + std::to_string(w.dispatch_by_layer_ns.size()) +
                             " layers where the workload has " + std::to_string(w.layers.size()));
    if (w.tail_ns < 0) return Status::error("negative compute between iterations");
    if (!(w.comm_cpu.alpha_ns >= 0) || !(w.comm_cpu.ns_per_byte >= 0))
        return Status::error("negative or undefined CPU cost of a collective");
    if (w.channels < 1 || w.channels > 16)
        return Status::error("workload channels must be 1..16, got " + std::to_string(w.channels));
    for (std::size_t i = 0; i < w.tensors.size(); ++i) {
        const TensorInfo& t = w.tensors[i];
        if (t.id != static_cast<int>(i))
            return Status::error("tensor " + std::to_string(i) + " ('" + t.name + "') has id " + std::to_string(t.id) +
                                 "; ids must be 0..n-1 in forward order");
        if (t.layer < 0 || t.layer >= static_cast<int>(w.layers.size()))
            return Status::error("tensor '" + t.name + "' names layer " + std::to_string(t.layer) + " of " +
                                 std::to_string(w.layers.size()));
        if (t.elements == 0) return Status::error("tensor '" + t.name + "' has no elements");
        if (i > 0 && t.layer < w.tensors[i - 1].layer)
            return Status::error("tensor '" + t.name +
                                 "' is out of forward order (its layer precedes the previous tensor's)");
    }
    for (const LayerTimes& l : w.layers)
        if (l.forward < 0 || l.backward < 0) return Status::error("layer '" + l.name + "' has a negative duration");
    return Status::success();
}

namespace {
double computeAloneNs(const Workload& w) {
    double ns = static_cast<double>(w.tail_ns);
    for (const LayerTimes& l : w.layers) ns += static_cast<double>(l.forward + l.backward);
    for (const TensorInfo& t : w.tensors) ns += static_cast<double>(w.updateNanos(t.elements));
    return ns;
}
}  // namespace

double computeAloneMs(const Workload& w) { return toMs(computeAloneNs(w)); }

double lowerBoundMs(const Workload& w, const CostModel& cost) {
    // Compute is serial: forward, backward and every update each iteration.
    const double compute = computeAloneNs(w);
    std::size_t totalBytes = 0;
    for (const TensorInfo& t : w.tensors) totalBytes += t.bytes();
    // The input-side layer j that owns gradients finishes backward near the end of the iteration and the next
    // forward of layer j needs its reduction. Until then the compute stream can only run the backward, update
    // and forward of the layers before j (the slack); the rest of that reduction is idle compute time. Any
    // split of j's bytes into units costs at least alpha + bytes * beta, as the cost is affine with alpha >= 0.
    int j = w.tensors.empty() ? 0 : w.tensors.front().layer;
    // The tail after backward (Workload::tail_ns) runs while that reduction is on the wire, too.
    double slack = static_cast<double>(w.tail_ns), bytesJ = 0;
    for (int l = 0; l < j; ++l) slack += static_cast<double>(w.layers[l].forward + w.layers[l].backward);
    // Where updates fill the waits (Workload::updates_fill_waits), the other layers' updates can run then too.
    if (w.updates_fill_waits)
        for (const TensorInfo& t : w.tensors)
            if (t.layer != j) slack += static_cast<double>(w.updateNanos(t.elements));
    for (const TensorInfo& t : w.tensors)
        if (t.layer == j) bytesJ += static_cast<double>(t.bytes());
    // Half a nanosecond per tensor allows for the per-unit rounding of CostModel::at.
    const double roundingSlack = 0.5 * static_cast<double>(w.tensors.size());
    // With a table of measured sizes the cost is not affine; the line below every measured point and below the
    // extrapolation above them bounds it from below, which is all the argument needs.
    double beta = std::max(0.0, cost.ns_per_byte);
    double alpha = std::max(0.0, cost.alpha_ns);
    if (!cost.measured.empty()) {
        beta = std::max(0.0, std::min(beta, cost.beyondSlope()));
        for (const auto& [x, y] : cost.measured) alpha = std::min(alpha, y - beta * x);
        alpha = std::min(alpha, cost.measured.front().second - cost.ns_per_byte * cost.measured.front().first);
        alpha = std::max(0.0, alpha);
    }
    // Several channels hide the fixed cost of one unit behind another's bytes: only the bytes' share is certain.
    if (w.channels > 1) alpha = 0;
    const double waitJ = std::max(0.0, alpha + bytesJ * beta - slack - roundingSlack);
    // The link carries every byte each iteration; one fused unit is the cheapest way.
    const double comm = std::max(0.0, alpha + static_cast<double>(totalBytes) * beta - roundingSlack);
    // And the link idles on the output side, once per iteration. Take any layer q and the stretch of the next
    // iteration from the start of q's forward to the end of q's backward: the forward of every layer up to q has
    // waited for its reductions, and no gradient of a layer up to q is ready before the stretch ends, so all the
    // link can carry in it is the tensors of the layers after q (this iteration's and the next one's, each
    // instance once over all stretches). The stretch lasts at least the forward and backward of q and the layers
    // after it; whatever of it those bytes cannot fill is idle link time on top of every other byte's. It matters
    // where the output layers compute much and own few bytes: GPT-2's LM head, tied to the embedding, is 27% of its
    // compute with no gradient of its own, where comm alone was a bound 7-10% below what any schedule reaches.
    // The link is busy outside the stretch for at least the bytes up to q.
    double bytesUpToQ = static_cast<double>(totalBytes), stretch = 0, outputSide = 0;
    std::size_t next = w.tensors.size();  // tensors [next, n) belong to the layers after q
    for (std::size_t q = w.layers.size(); q-- > 0;) {
        stretch += static_cast<double>(w.layers[q].forward + w.layers[q].backward);
        for (; next > 0 && w.tensors[next - 1].layer > static_cast<int>(q); --next)
            bytesUpToQ -= static_cast<double>(w.tensors[next - 1].bytes());
        if (bytesUpToQ <= 0) break;  // nothing left outside: comm alone says more
        outputSide = std::max(outputSide, stretch + alpha + bytesUpToQ * beta - roundingSlack);
    }
    return toMs(std::max({compute + waitJ, comm, outputSide}));
}

Result<SimResult> simulate(const Workload& w, Policy& policy, const CostModel& cost, const SimOptions& options) {
    if (Status s = validateWorkload(w); !s.ok()) return s;
    if (options.iterations < 1) return Status::error("simulation needs at least 1 iteration");
    // Where collectives take CPU from compute, each backward step learns what its iteration's own units take from
    // the iterations before it (CpuTakenByComm): a few more iterations run first, and are left out of the result.
    const int leadIn = w.comm_cpu.any() ? kCpuLeadIn : 0;
    const int iterations = options.iterations + leadIn;
    const int warmup = leadIn + options.steadyFrom();

    const int numLayers = static_cast<int>(w.layers.size());
    const int numTensors = static_cast<int>(w.tensors.size());
    const LayerIndex index(w);
    const bool barrier = policy.updateWaitsForAll();

    SimResult result;
    result.iteration_starts.reserve(iterations + 1);
    // Per iteration: a forward, backward and update per layer, a wait per layer at most, and the comm units
    // (a guess: segments usually keep units at a few per tensor; the vector grows if not).
    result.events.reserve(static_cast<std::size_t>(iterations) * (4 * numLayers + 2 * numTensors));
    std::vector<std::pair<Nanos, Nanos>> computeBusy, linkBusy;
    computeBusy.reserve(static_cast<std::size_t>(iterations) * 3 * numLayers);
    linkBusy.reserve(static_cast<std::size_t>(iterations) * 2 * numTensors);

    UnitLedger ledger(w.tensors);  // what the policy has heard is ready, and what it has not yet sent
    std::vector<Nanos> layerReduced(numLayers, 0);   // when layer l's last gradient of the last iteration was reduced
    // The step (its first piece: tensor, segment) whose end set layerReduced[l]; and the steps whose end the last
    // forward waited for, each with how long the compute it woke then ran before it blocked again (or its iteration's
    // compute ended): in the next iteration the unit after each of them waits for the core that long, up to
    // Workload::release_gap_ns (the iteration before stands for the next one, whose forward is simulated after its
    // units are laid out).
    using StepKey = std::pair<int, int>;
    std::vector<StepKey> layerReducedBy(numLayers, {-1, -1});
    std::map<StepKey, Nanos> releasing;  // step -> the woken compute's run
    std::optional<std::pair<StepKey, Nanos>> lastRelease;  // the latest wait's step and when it released the wait
    std::vector<GradientReady> ready;
    ready.reserve(numTensors);

    auto emitCompute = [&](SimEvent::Kind kind, int iteration, int layer, Nanos start, Nanos end) {
        SimEvent e;
        e.kind = kind;
        e.iteration = iteration;
        e.layer = layer;
        e.start = start;
        e.end = end;
        result.events.push_back(std::move(e));
        if (kind != SimEvent::Wait && end > start) computeBusy.emplace_back(start, end);
    };

    // Busy intervals of the link, merged as they come (units start in order; with channels they may overlap).
    auto markLinkBusy = [&](Nanos s, Nanos e) {
        if (e <= s) return;
        if (!linkBusy.empty() && s <= linkBusy.back().second) linkBusy.back().second = std::max(linkBusy.back().second, e);
        else linkBusy.emplace_back(s, e);
    };

    const int channels = w.channels;
    const bool runs = options.segment_runs && channels == 1;  // see SimOptions::segment_runs
    std::vector<Nanos> channelFree(channels, 0);  // when each channel's last unit ends
    Nanos wireFree = 0;     // channels > 1: when the bytes queued on the shared wire have left
    std::vector<std::pair<Nanos, std::size_t>> inFlight;  // (end, index into result.events): not yet reported done
    Nanos computeFree = 0;  // the compute stream's clock
    Nanos linkFree = 0;     // the link's clock: when every unit issued so far has ended
    Nanos allReduced = 0;   // when the last reduction of the previous iteration finished
    std::size_t lastIterationFirstUnit = 0;
    CpuTakenByComm taken(w.comm_cpu, numLayers + 1);  // what collectives take from compute (Workload::comm_cpu)

    // The updates of iteration k-1 applied ahead of their layers' forwards, to fill a wait (Workload::
    // updates_fill_waits); reset as each iteration's forward begins.
    std::vector<bool> updatedEarly(numLayers, false);
    // The compute stream at `t` blocks until layer m's last reduction, woken resume_ns after it; the wait is drawn on
    // `layer`, whose forward it holds up.
    auto waitFor = [&](int k, int layer, int m, Nanos& t) {
        if (lastRelease) releasing.emplace(lastRelease->first, t - lastRelease->second);
        lastRelease = {layerReducedBy[m], layerReduced[m]};
        emitCompute(SimEvent::Wait, k, layer, t, layerReduced[m] + w.resume_ns);
        t = layerReduced[m] + w.resume_ns;
    };
    // Before layer l's forward waits for its reduction, the updates of iteration k-1 that are ready for the layers
    // after it run, nearest first; where none is ready but one will be before l's, the stream waits for that one.
    // Untraced (where the next iteration would begin): no events, the updates' time still counted as compute.
    const bool fills = w.updates_fill_waits && policy.updatesFillWaits() && !barrier;
    auto fillWait = [&](int k, int l, Nanos& t, bool traced) {
        if (!fills) return;
        while (layerReduced[l] > t) {
            int next = -1, soonest = -1;
            for (int m = l + 1; m < numLayers && next < 0; ++m) {
                if (updatedEarly[m] || index.update[m] <= 0) continue;
                if (layerReduced[m] <= t) next = m;
                else if (layerReduced[m] < layerReduced[l] && (soonest < 0 || layerReduced[m] < layerReduced[soonest]))
                    soonest = m;
            }
            if (next < 0 && soonest < 0) return;  // nothing comes before l's reduction: wait for it
            if (next < 0) {
                if (traced) waitFor(k, l, soonest, t);
                else t = layerReduced[soonest] + w.resume_ns;
                continue;
            }
            const Nanos d = taken.stretch(t, index.update[next]);
            if (traced) emitCompute(SimEvent::Update, k - 1, next, t, t + d);
            else computeBusy.emplace_back(t, t + d);
            t += d;
            updatedEarly[next] = true;
        }
    };

    for (int k = 0; k < iterations; ++k) {
        // ---- forward (with the previous iteration's updates in front of the layers they feed) ----
        Nanos t = computeFree;
        std::fill(updatedEarly.begin(), updatedEarly.end(), false);
        if (k > 0 && barrier) {
            if (allReduced > t) {
                emitCompute(SimEvent::Wait, k, 0, t, allReduced + w.resume_ns);
                t = allReduced + w.resume_ns;
            }
            result.iteration_starts.push_back(t);
            for (int l = 0; l < numLayers; ++l)
                if (index.update[l] > 0) {
                    const Nanos d = taken.stretch(t, index.update[l]);
                    emitCompute(SimEvent::Update, k - 1, l, t, t + d);
                    t += d;
                }
        }
        for (int l = 0; l < numLayers; ++l) {
            if (k > 0 && !barrier) {
                fillWait(k, l, t, true);
                if (layerReduced[l] > t) waitFor(k, l, l, t);
                if (l == 0) result.iteration_starts.push_back(t);
                if (index.update[l] > 0 && !updatedEarly[l]) {
                    const Nanos d = taken.stretch(t, index.update[l]);
                    emitCompute(SimEvent::Update, k - 1, l, t, t + d);
                    t += d;
                }
            } else if (k == 0 && l == 0) {
                result.iteration_starts.push_back(t);
            }
            const Nanos d = taken.stretch(t, w.layers[l].forward);
            emitCompute(SimEvent::Forward, k, l, t, t + d);
            t += d;
        }
        // ---- backward: layer l's gradients are ready when its backward ends, in reverse parameter order ----
        ready.clear();
        for (int l = numLayers - 1; l >= 0; --l) {
            const Nanos d = taken.stretch(t, w.layers[l].backward, l);
            emitCompute(SimEvent::Backward, k, l, t, t + d);
            t += d;
            for (int i = index.first[l + 1] - 1; i >= index.first[l]; --i) ready.push_back({t, index.ids[i]});
        }
        const Nanos tail = taken.stretch(t, w.tail_ns, numLayers);
        if (tail > 0) computeBusy.emplace_back(t, t + tail);  // untraced: no event, but busy
        computeFree = t + tail;
        if (lastRelease) releasing.emplace(lastRelease->first, computeFree - lastRelease->second);
        lastRelease.reset();
        const std::size_t firstOwnUnit = taken.size();

        // ---- communication: the policy picks units whenever the link is idle ----
        // Every forward of iteration k waited for the reductions of iteration k-1 and every gradient of k comes
        // after those forwards, so iteration k's units never interleave with k-1's: one policy iteration at a
        // time, as the runtime drives it.
        ledger.beginIteration();
        for (int l = 0; l < numLayers; ++l) layerReduced[l] = 0;
        const std::map<StepKey, Nanos> releasedBefore = std::move(releasing);
        releasing.clear();
        const Nanos releaseGapNs = channels == 1 ? w.release_gap_ns : 0;
        Nanos releaseWait = 0;  // the last step ended a wait of the next forward (releasedBefore): the core's return
        // The runtime begins the policy's iteration at the round that the first gradient's news starts, once the
        // comm thread is awake: on rank 0's clock as it entered that round, which may be before the last rank did
        // (Horovod counts its ticks from there).
        const Nanos firstRound = ready.front().time + w.dispatchAfter(w.tensors[ready.front().tensor].layer);
        policy.beginIteration(firstRound - w.tick_anchor_lead_ns);
        if (k == iterations - 1) lastIterationFirstUnit = result.events.size();
        std::size_t delivered = 0;
        Nanos now = std::max(linkFree, firstRound);
        const std::int64_t maxSteps = kMaxStepsPerTensor * numTensors;
        std::int64_t steps = 0;
        auto deliverUntil = [&](Nanos until) {
            while (delivered < ready.size() && ready[delivered].time <= until) {
                ledger.heard(ready[delivered].tensor);
                policy.onGradientReady(ready[delivered].tensor, ready[delivered].time);
                ++delivered;
            }
        };
        deliverUntil(now);
        std::fill(channelFree.begin(), channelFree.end(), now);
        std::size_t issued = 0;  // units of this iteration so far; unit k goes on channel k % channels
        // Readiness riding on the units: the decision at `now` comes from a stand-alone agreement round (no unit
        // rode before it), which costs CostModel::first_unit_extra_ns of the comm thread's time.
        const bool rides = w.readiness_rides_on_units;
        const Nanos roundNs = rides ? static_cast<Nanos>(std::llround(cost.first_unit_extra_ns)) : 0;
        bool afterRound = rides;
        const Nanos gapNs = channels == 1 ? static_cast<Nanos>(std::llround(cost.unit_gap_ns)) : 0;
        // Reports the units that have ended by `until` to the policy, earliest first.
        auto reportDone = [&](Nanos until) {
            if (inFlight.size() == 1) {  // one channel, the common case: no sorting, no shifting
                if (inFlight.front().first > until) return;
                policy.onUnitDone(result.events[inFlight.front().second].unit, inFlight.front().first);
                inFlight.clear();
                return;
            }
            std::sort(inFlight.begin(), inFlight.end());
            std::size_t n = 0;
            while (n < inFlight.size() && inFlight[n].first <= until) {
                policy.onUnitDone(result.events[inFlight[n].second].unit, inFlight[n].first);
                ++n;
            }
            inFlight.erase(inFlight.begin(), inFlight.begin() + static_cast<std::ptrdiff_t>(n));
        };
        while (!policy.finished()) {
            if (++steps > maxSteps)
                return Status::error("policy '" + std::string(policy.name()) + "' did not finish iteration " +
                                     std::to_string(k) + " within " + std::to_string(maxSteps) + " decisions");
            std::optional<CommUnit> unit = policy.next(now);
            if (!unit) {
                if (afterRound) {
                    // The round found nothing to send; it kept the comm thread busy all the same, and news that came
                    // meanwhile waits for the next round. The policy is asked again at its end (a held-back unit
                    // may be due by then).
                    afterRound = false;
                    if (roundNs > 0) {
                        result.events.push_back(roundEvent(k, now, now + roundNs));
                        taken.roundIssued(now, now + roundNs);
                        now += roundNs;
                        continue;
                    }
                }
                // While the policy holds work back until a known time, the runtime waits for that time and hears
                // every gradient of the meantime in one round then (engine/runtime.cpp), not in a round per gradient.
                const Nanos wake = policy.wakeTime();
                const bool holding = wake != kNever && wake > now;
                if (!holding && delivered < ready.size() && ready[delivered].time <= now) {
                    // Readiness rides on the units: what became ready during the last one is heard only now, in a
                    // stand-alone round (its cost is part of the next unit's, as the runtime traces it).
                    deliverUntil(now);
                    afterRound = rides;
                    continue;
                }
                // Nothing to send now: jump to the next gradient or to when the policy said it would release work.
                const Nanos nextReady = delivered < ready.size() ? ready[delivered].time : kNever;
                const Nanos nextTime = holding ? wake : nextReady;
                Nanos nextDone = kNever;
                for (const auto& f : inFlight) nextDone = std::min(nextDone, f.first);
                if (nextDone != kNever && nextDone <= nextTime) {
                    now = std::max(now, nextDone);  // a unit in flight ends first: the policy hears of it
                    reportDone(now);
                    continue;
                }
                if (nextTime == kNever)
                    return Status::error("policy '" + std::string(policy.name()) + "' stalled in iteration " +
                                         std::to_string(k) +
                                         ": all gradients are ready, it is not finished, and it "
                                         "sends nothing and names no wake time");
                // A gradient's news reaches the idle link only after the communication thread wakes up, and so does
                // a policy's held work when its time comes (the thread sleeps until then).
                const Nanos wakeUp = holding ? (w.timer_wake_ns > 0 ? w.timer_wake_ns : w.dispatch_ns)
                                             : w.dispatchAfter(w.tensors[ready[delivered].tensor].layer);
                now = nextTime + wakeUp;
                deliverUntil(now);
                afterRound = rides;
                continue;
            }
            PACER_RETURN_IF_ERROR(ledger.admit(policy.name(), *unit));
            // Right behind the previous unit on the one channel, the comm thread's gap between the two comes first
            // (after a round the round's cost stands for it). It counts as communication time, as the gaps inside a
            // run of segments do (one span), so that a run and the same units one by one give the same figures.
            const Nanos busyFrom = now;
            if (!afterRound && issued > 0 && now == linkFree) now += std::max(gapNs, releaseWait);
            const Nanos each = cost.at(unit->bytes());
            Nanos total = each;
            Nanos unitStart = now;  // after the round that chose it, if one did
            if (afterRound && roundNs > 0) {
                result.events.push_back(roundEvent(k, now, now + roundNs));
                total += roundNs;
                unitStart += roundNs;
            }
            afterRound = false;
            Nanos end = now + total;
            if (channels > 1) {
                // The unit's bytes go on the wire last, after those queued before them.
                const auto wire = std::min<Nanos>(
                    total, static_cast<Nanos>(std::llround(cost.ns_per_byte * static_cast<double>(unit->bytes()))));
                end = std::max(end, wireFree + wire);
                wireFree = end;
            }
            if (unitStart > now && taken.roundsApart()) {  // a round chose it
                taken.roundIssued(now, unitStart);
                taken.unitIssued(unitStart, end, unit->bytes());
            } else {
                taken.unitIssued(busyFrom, end, unit->bytes());
            }
            Nanos lastStart = now;  // of the last unit this step sends
            int units = 1;
            std::size_t unitElements = 0;
            const std::size_t following = runs && unit->pieces.size() == 1 ? policy.unitsFollowing() : 0;
            if (const std::size_t more = following == 0 ? 0
                                         : unitsBeforeHeard(now, end, each, gapNs, following,
                                                            delivered < ready.size() ? ready[delivered].time : kNever,
                                                            rides);
                more > 0) {
                // The run: `more` units of the same tensor right after this one, as one step.
                CommUnit span;
                span.pieces = {policy.takeUnitsFollowing(more)};
                PACER_RETURN_IF_ERROR(ledger.admit(policy.name(), span));
                Piece& first = unit->pieces.front();
                const Piece& rest = span.pieces.front();
                const std::size_t full = rest.count / first.count, shorter = rest.count % first.count;
                if (rest.tensor != first.tensor || rest.offset != first.offset + first.count ||
                    full + (shorter > 0 ? 1 : 0) != more)
                    return Status::error("policy '" + std::string(policy.name()) + "' handed out a run of " +
                                         std::to_string(more) + " segments of tensor " + std::to_string(first.tensor) +
                                         " that does not follow its segment " + std::to_string(first.segment));
                // The run's units follow one another with the comm thread's gap before each.
                taken.unitsIssued(end, each + gapNs, full, unit->bytes());
                end += static_cast<Nanos>(full) * (each + gapNs);
                lastStart = end - each;
                if (shorter > 0) {
                    const std::size_t bytes = shorter * sizeof(float);
                    const Nanos from = end;
                    lastStart = end + gapNs;
                    end = lastStart + cost.at(bytes);
                    taken.unitIssued(from, end, bytes);
                }
                unitElements = first.count;
                first.count += rest.count;
                units += static_cast<int>(more);
                steps += static_cast<std::int64_t>(more);
            }
            const std::size_t channel = issued % static_cast<std::size_t>(channels);
            issued += static_cast<std::size_t>(units);
            channelFree[channel] = end;
            const StepKey key{unit->pieces.front().tensor, unit->pieces.front().segment};
            for (const Piece& p : unit->pieces) {
                if (ledger.remaining(p.tensor) == 0) {
                    const int layer = w.tensors[p.tensor].layer;
                    if (end >= layerReduced[layer]) layerReducedBy[layer] = key;
                    layerReduced[layer] = std::max(layerReduced[layer], end);
                }
            }
            releaseWait = 0;
            if (const auto released = releasedBefore.find(key); releaseGapNs > 0 && released != releasedBefore.end())
                releaseWait = std::clamp<Nanos>(released->second, 0, releaseGapNs);
            markLinkBusy(busyFrom, end);
            linkFree = std::max(linkFree, end);
            SimEvent e;
            e.kind = SimEvent::Comm;
            e.iteration = k;
            e.start = unitStart;
            e.end = end;
            e.unit = std::move(*unit);
            e.channel = static_cast<int>(channel);
            e.units = units;
            e.unit_elements = unitElements;
            result.events.push_back(std::move(e));
            inFlight.emplace_back(end, result.events.size() - 1);
            // The next unit's channel is free when its previous unit ends (with one channel: when this one does).
            now = std::max(now, channelFree[issued % static_cast<std::size_t>(channels)]);
            // Gradients that became ready meanwhile are heard before the next decision, unless readiness rides on
            // the units: then the next decision knows what was ready when this unit started (its rider's flags).
            deliverUntil(w.readiness_rides_on_units ? lastStart : now);
            reportDone(now);
        }
        if (const int i = ledger.firstUnfinished(); i >= 0)
            return Status::error("policy '" + std::string(policy.name()) + "' finished iteration " + std::to_string(k) +
                                 " with tensor '" + w.tensors[i].name + "' not fully reduced");
        now = std::max(now, linkFree);
        allReduced = now;
        taken.ownUnitsIssued(firstOwnUnit);
    }

    // Where iteration `iterations` would begin: the same rule as every other start.
    {
        Nanos t = computeFree;
        std::fill(updatedEarly.begin(), updatedEarly.end(), false);
        fillWait(iterations, 0, t, false);
        const Nanos needed = barrier ? allReduced : layerReduced[0];
        if (needed > t) t = needed + w.resume_ns;
        result.iteration_starts.push_back(t);
    }

    for (std::size_t i = lastIterationFirstUnit; i < result.events.size(); ++i)
        if (result.events[i].kind == SimEvent::Comm) result.order.push_back(result.events[i].unit);

    // ---- figures over the steady window ----
    const Nanos lo = result.iteration_starts[warmup];
    const Nanos hi = result.iteration_starts[iterations];
    const double periods = iterations - warmup;
    const double computeNs = busy(computeBusy, lo, hi);
    const double commNs = busy(linkBusy, lo, hi);
    const double hiddenNs = intersection(computeBusy, linkBusy, lo, hi);
    SimFigures& f = result.figures;
    // The source run's stalls (Workload::stall_ns) lengthen the period and the bound alike, as idle time.
    f.stall_ms = toMs(static_cast<double>(w.stall_ns));
    f.iter_ms = toMs(static_cast<double>(hi - lo)) / periods + f.stall_ms;
    f.compute_ms = toMs(computeNs) / periods;
    f.comm_ms = toMs(commNs) / periods;
    f.overlap = commNs > 0 ? hiddenNs / commNs : 1.0;
    f.exposed_comm_ms = toMs(commNs - hiddenNs) / periods;
    f.idle_ms = std::max(0.0, f.iter_ms - f.compute_ms - f.exposed_comm_ms);
    f.lower_bound_ms = lowerBoundMs(w, cost) + f.stall_ms;
    f.compute_alone_ms = computeAloneMs(w);
    if (leadIn > 0) {
        // The lead-in iterations go, and so do the updates they left for the first iteration kept (as a first
        // iteration has none).
        std::erase_if(result.events, [&](const SimEvent& e) { return e.iteration < leadIn; });
        for (SimEvent& e : result.events) e.iteration -= leadIn;
        result.iteration_starts.erase(result.iteration_starts.begin(), result.iteration_starts.begin() + leadIn);
    }
    return result;
}

}  // namespace pacer::engine
