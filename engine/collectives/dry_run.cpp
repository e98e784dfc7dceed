#include "engine/collectives/dry_run.h"

#include <algorithm>

namespace pacer::engine {

Status DryRunPointToPoint::exchange(int round, std::span<const P2POp> sends, std::span<const P2POp> receives) {
    for (const P2POp& op : sends)
        if (op.peer < 0 || op.peer >= size_ || op.peer == rank_)
            return Status::error("rank " + std::to_string(rank_) + " sends to rank " + std::to_string(op.peer));
    for (const P2POp& op : receives)
        if (op.peer < 0 || op.peer >= size_ || op.peer == rank_)
            return Status::error("rank " + std::to_string(rank_) + " receives from rank " + std::to_string(op.peer));
    std::vector<double> out, in;  // bytes per port
    auto queue = [](std::vector<double>& ports, const P2POp& op) {
        if (ports.size() <= static_cast<std::size_t>(op.port)) ports.resize(op.port + 1);
        ports[op.port] += static_cast<double>(op.count * sizeof(float));
    };
    for (const P2POp& op : sends) queue(out, op);
    for (const P2POp& op : receives) queue(in, op);
    double longest = 0;
    for (double b : out) longest = std::max(longest, b);
    for (double b : in) longest = std::max(longest, b);
    if (!sends.empty() || !receives.empty()) {
        elapsedNs_ += link_.alpha_ns + longest * link_.beta_ns_per_byte;
        ++rounds_;
    }
    if (record_) {
        RecordedRound r{collective_, round, {}, {}};
        for (const P2POp& op : sends) r.sends.push_back({op.peer, op.count, op.port, op.tag});
        for (const P2POp& op : receives) r.receives.push_back({op.peer, op.count, op.port, op.tag});
        recorded_.push_back(std::move(r));
    }
    return addReceived(receives);
}

Status DryRunPointToPoint::reduceSum(float*, const float*, std::size_t count) {
    elapsedNs_ += static_cast<double>(count * sizeof(float)) * link_.gamma_ns_per_byte;
    return Status::success();
}

Result<float*> DryRunPointToPoint::scratch(int, std::size_t) { return &dummy_; }  // never written: no data moves

}  // namespace pacer::engine
