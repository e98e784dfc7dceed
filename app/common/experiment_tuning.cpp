#include "app/common/experiment_tuning.h"

namespace pacer::app {

engine::TuneRequest fixedByExperiment(const Experiment& experiment, const engine::PolicyConfig& policy) {
    const bool gpu = experiment.backend == "gpu";
    engine::TuneRequest r;
    r.policy = policy;
    r.segment_fixed = experiment.policy.contains("segment_bytes");
    r.fusion_fixed = r.segment_fixed || experiment.policy.contains("fusion_groups") ||
                     experiment.policy.contains("fuse_below_bytes");
    r.order_fixed = experiment.orderGiven;
    r.plan_order = experiment.order == "plan";
    r.channels_fixed = experiment.channelsGiven || gpu;  // GPUs: not searched (one NCCL channel of ours)
    r.channels = experiment.channels;
    r.host_memory = !gpu;
    return r;
}

}  // namespace pacer::app
