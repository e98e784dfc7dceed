// How a rank writes the all-reduce slots its peers read (shm_transport.cpp): with ordinary stores or with streaming
// (non-temporal) ones, chosen while the collectives run.
//
// Why: where two ranks' cores share a cache, a line one of them writes with ordinary stores is read by the other
// from that cache. Where they do not, each line crosses from one core's cache to the other's, one miss at a time;
// streaming stores send the lines to memory instead, from where the reader's prefetchers stream them. Which way is
// faster is the host's to decide, and on a virtual machine it changes while a run goes on. On this project's 2-core
// VM, two threads on the two cores exchanging 1 MiB chunks as the all-reduce does (no Pacer code,
// docs/shm-slot-stores.md) moved 9-11 GB/s with ordinary stores against 5-6.5 with streaming ones for minutes,
// then, for stretches of 20-35 s, 1.6-2.4 against 7.5-10.3 GB/s. The same stretches made the 42 M MLP's all-reduce
// four times slower in the middle of a run (26 -> 105 ms per iteration, both ranks at once).
//
// So each channel's rank 0 measures both ways: every kExplorePeriod-th large chunk is written the other way, each
// way keeps its recent time per float, and when the other way is clearly faster it becomes the choice, published
// in the channel's control line. Every rank reads the published choice at the same point of the same chunk, and a
// chunk's way depends only on that and on the chunk's place in the sequence, so all ranks write each chunk alike.
#pragma once

#include "engine/transport/transport.h"

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace pacer::engine::shm {

// Copies n floats, writing `to` with streaming stores (ordinary ones where the CPU has none). Ends with a store
// fence: the lines are in memory before the barrier that lets peers read them.
void copyStreaming(float* to, const float* from, std::size_t n);
// sum[i] += in[i], the sums written into `sum` with streaming stores and into `copy` with ordinary ones (the rank's
// own gradients, which its optimizer reads next). Also ends with a store fence.
void addIntoStreaming(float* sum, const float* in, std::size_t n, float* copy);

// The way one channel's chunks are written, on every rank; only rank 0's record() counts.
class SlotStoreChoice {
public:
    // Smaller chunks cost their barriers' latency, not bandwidth: never explored, never measured.
    static constexpr std::size_t kMeasuredFloats = std::size_t(1) << 16;
    // One measured chunk in this many is written the other way: about 1% more time where the choice is right
    // (the other way is 1.6x slower there), and a change of the host seen within 64 MiB.
    static constexpr std::uint64_t kExplorePeriod = 64;
    // The first exploration, and the one after each change of way, come this many measured chunks in: the host is
    // learnt early, and a change made on a few unlucky chunks (a burst of preemption) is undone in 8 MiB, not 64.
    static constexpr std::uint64_t kRecheckAfter = 8;
    // The other way becomes the choice once its time per float is below this share of the chosen way's.
    static constexpr double kSwitchBelow = 0.8;
    // A way's speed is its best of the last few chunks: a chunk's passes are only ever slowed down (the thread
    // preempted, a page fault), never sped up, and the best of three follows a change of the host within three
    // chunks of that way.
    static constexpr int kRecent = 3;

    explicit SlotStoreChoice(SlotStores setting) : setting_(setting) {}

    // Whether the next chunk, of `floats`, is written with streaming stores, given the published choice. Call once
    // per chunk, on every rank, in the same sequence.
    bool streamingFor(std::size_t floats, bool published);
    // Rank 0: the passes over the chunk just done (copy in, reduce, copy out; not the waits for peers), written as
    // streamingFor said, took `took`. Returns the way to publish next.
    bool record(bool streaming, std::size_t floats, std::chrono::nanoseconds took, bool published);
    // Chunks of at least kMeasuredFloats so far, and those of them for which streaming stores were the way in force
    // (published, or fixed by the setting). An exploration counts as the way it explored from, so that a short run's
    // first exploration (its 8th chunk) does not read as the host's doing.
    std::uint64_t measuredChunks() const { return measured_; }
    std::uint64_t streamingChunks() const { return streaming_; }
    bool fixed() const { return setting_ != SlotStores::Auto; }  // the way set, not measured

private:
    SlotStores setting_;
    std::uint64_t measured_ = 0;        // measured chunks so far
    std::uint64_t streaming_ = 0;       // of them with streaming stores in force
    std::uint64_t nextExplore_ = kRecheckAfter;  // the measured chunk written the other way next
    bool lastPublished_ = false;        // the published way the chunk before found
    // Per way (ordinary, streaming): the time per float of its last kRecent measured chunks, 0 where none yet.
    double recent_[2][kRecent] = {};
    int next_[2] = {0, 0};              // where each way's next measurement goes
    double best(int way) const;         // the way's least recent time per float; 0 if never measured
};

}  // namespace pacer::engine::shm
