// PyTorch DDP (VLDB 2020): gradients go into buckets filled in reverse parameter order, the first bucket capped
// at first_bucket_bytes (1 MiB) and the rest at bucket_bytes (25 MiB); a bucket is reduced once all its
// gradients are ready, strictly in bucket order; tensors are never split. The optimizer runs only after every
// bucket is reduced (updateWaitsForAll), which is DDP's barrier.
#pragma once

#include "engine/policy_config.h"

namespace pacer::engine {

std::unique_ptr<Policy> makeDdpPolicy(const PolicyConfig& config, const std::vector<TensorInfo>& tensors);

// The buckets DDP would build (tensor ids, in bucket and fill order); exposed for tests and the editor.
std::vector<std::vector<int>> ddpBuckets(const std::vector<TensorInfo>& tensors, std::size_t firstBucketBytes,
                                         std::size_t bucketBytes);

}  // namespace pacer::engine
