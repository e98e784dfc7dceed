// Internal to the profiler: the replay input of a PyTorch DDP job, read from its Kineto traces at import.
//
// Kineto records what replay needs beside the spans, and only the importer sees those arguments, so the extraction
// happens there and is stored as events in Pacer's own vocabulary (on tracks of their own, named
// "... replay input"): per rank and ProfilerStep#N, one Forward and one Backward span per gradient tensor, a Wait
// while the optimizer waits for the last bucket, the Optimizer step, and one AllReduce per DDP bucket whose
// tensor is the bucket's first gradient (in ready order) and whose bytes are the bucket's. Replay reads those
// tracks exactly as it reads Pacer's own captures (app/common/trace_conversion.cpp).
//
// How each fact is read (and why):
// - Gradients: `torch::autograd::AccumulateGrad` ops, one per parameter, in ready order; their count per step must
//   agree across steps and ranks. Shapes from their "Input Dims" (record_shapes=True); without shapes each
//   bucket's elements are shared evenly by its gradients (the bucket sums stay exact).
// - Buckets: DDP launches a bucket's all-reduce from the autograd hook right after its last gradient, so a bucket
//   is the gradients accumulated since the previous launch. Launches are `record_param_comms` with Collective
//   name all_reduce/allreduce ("In msg nelems", "dtype"), or, in traces without it, `c10d::allreduce_`,
//   `nccl:all_reduce` or `gloo:all_reduce` ops (sizes then from the shapes).
// - Collective times: the k-th all-reduce launch of a rank is the k-th NCCL all-reduce kernel
//   (`ncclKernel_AllReduce_*`, `ncclDevKernel_AllReduce_*`) of that rank, since NCCL's stream runs them in launch
//   order; without kernels (CPU jobs over Gloo) the `gloo:all_reduce` range, else the launch op itself.
// - Ready times on GPUs: a gradient is ready when the compute kernels launched before its AccumulateGrad ended
//   have finished (kernels matched to their launches by correlation id), or when the op ended, whichever is later.
// - Forward: the time from the step's start to the backward's first op, shared by the layers in proportion to
//   their backward times (Kineto does not say which forward op produced which parameter's use).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "profiler/chrome_raw_event.h"
#include "profiler/run_info.h"
#include "profiler/status.h"
#include "profiler/trace_model.h"

namespace pacer::profiler {

// Whether the importer should read Kineto's replay arguments of an op with this name (cheap: most events are not).
bool kinetoArgsWanted(std::string_view name);

struct KinetoRank {
    int rank = 0;
    const std::vector<RawEvent>* events = nullptr;  // the file's events, B/E pairs already joined into X spans
};

struct DdpReplayInput {
    std::vector<TensorRecord> tensors;
    std::vector<Track> tracks;       // ids from the caller's first free id
    std::vector<TraceEvent> events;  // on those tracks
    std::vector<std::vector<int>> buckets;  // tensor ids per bucket, in launch order
    bool exactSizes = false;         // sizes from shapes (record_shapes) rather than shared bucket sums
    int iterations = 0;              // steps used
};

// Where the events came from, so that a sentence about what is missing says how to record it with that tool.
enum class DdpTraceSource {
    Kineto,    // torch.profiler's Chrome trace
    NsysNvtx,  // an Nsight Systems export: PyTorch's emit_nvtx ranges, NCCL's own ranges, CUPTI kernels
};

// Fails with a sentence saying what the trace lacks for replay (the import itself goes on without it).
Result<DdpReplayInput> extractKinetoDdp(const std::vector<KinetoRank>& ranks, int firstTrackId,
                                        DdpTraceSource source = DdpTraceSource::Kineto);

// Puts an extraction's outcome into an imported run: on success the replay-input tracks and tensors, policy "ddp"
// and at least `worldSize` ranks; either way the run's experiment record {"imported": {"format": F, "replay": "ddp",
// "buckets": ..., "exact_sizes": ...}} or {"imported": {"format": F, "replay_missing": "..."}}, which `replay`
// reports as it is. A non-empty `missing` overrides the extraction (a format known to lack what replay needs).
void attachDdpReplayInput(Result<DdpReplayInput> ddp, const std::string& format, int worldSize, const std::string& missing,
                          RunTrace& trace, RunInfo& info);

}  // namespace pacer::profiler
