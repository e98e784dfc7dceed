#include "engine/planning/schedule.h"

#include <cmath>

namespace pacer::engine {
namespace {

constexpr int kSpanWords = 10;

// Reads words in order; any read past the end marks the message malformed.
struct Reader {
    const std::vector<std::int64_t>& w;
    std::size_t i = 0;
    bool bad = false;
    std::int64_t take() {
        if (i >= w.size()) {
            bad = true;
            return 0;
        }
        return w[i++];
    }
    // A count of what follows, each taking at least `wordsEach` words: anything larger cannot be true.
    std::int64_t count(std::size_t wordsEach) {
        const std::int64_t n = take();
        if (n < 0 || static_cast<std::size_t>(n) > (w.size() - std::min(i, w.size())) / wordsEach) bad = true;
        return bad ? 0 : n;
    }
};

}  // namespace

std::vector<std::int64_t> encodeSchedule(const Schedule& s) {
    std::vector<std::int64_t> w{static_cast<std::int64_t>(s.policy.segment_bytes),
                                static_cast<std::int64_t>(s.policy.fuse_below_bytes),
                                s.tuned ? 1 : 0,
                                s.plan_order ? 1 : 0,
                                s.channels,
                                std::llround(s.predicted_ms * 1000.0),
                                std::llround(s.predicted_low_ms * 1000.0),
                                std::llround(s.predicted_high_ms * 1000.0),
                                static_cast<std::int64_t>(s.policy.fusion_groups.size())};
    for (const auto& g : s.policy.fusion_groups) {
        w.push_back(static_cast<std::int64_t>(g.size()));
        w.insert(w.end(), g.begin(), g.end());
    }
    w.push_back(static_cast<std::int64_t>(s.plan.size()));
    for (const CommUnit& u : s.plan) {
        w.push_back(u.priority);
        w.push_back(static_cast<std::int64_t>(u.pieces.size()));
        for (const Piece& p : u.pieces) {
            w.push_back(p.tensor);
            w.push_back(p.segment);
            w.push_back(static_cast<std::int64_t>(p.offset));
            w.push_back(static_cast<std::int64_t>(p.count));
        }
    }
    return w;
}

Result<Schedule> decodeSchedule(const std::vector<std::int64_t>& words, const PolicyConfig& base) {
    Reader r{words};
    Schedule s;
    s.policy = base;
    const std::int64_t segment = r.take(), fuseBelow = r.take();
    s.tuned = r.take() != 0;
    s.plan_order = r.take() != 0;
    const std::int64_t channels = r.take();
    s.predicted_ms = static_cast<double>(r.take()) / 1000.0;
    s.predicted_low_ms = static_cast<double>(r.take()) / 1000.0;
    s.predicted_high_ms = static_cast<double>(r.take()) / 1000.0;
    if (r.bad || segment <= 0 || fuseBelow < 0 || channels < 1 || channels > 16 || s.predicted_low_ms < 0 ||
        s.predicted_high_ms < s.predicted_low_ms)
        return Status::error("malformed schedule: bad settings");
    s.policy.segment_bytes = static_cast<std::size_t>(segment);
    s.policy.fuse_below_bytes = static_cast<std::size_t>(fuseBelow);
    s.channels = static_cast<int>(channels);
    s.policy.fusion_groups.clear();
    const std::int64_t groups = r.count(2);
    for (std::int64_t g = 0; g < groups && !r.bad; ++g) {
        std::vector<int> ids(static_cast<std::size_t>(r.count(1)));
        for (int& id : ids) id = static_cast<int>(r.take());
        s.policy.fusion_groups.push_back(std::move(ids));
    }
    const std::int64_t units = r.count(6);
    for (std::int64_t u = 0; u < units && !r.bad; ++u) {
        CommUnit unit;
        unit.priority = static_cast<int>(r.take());
        const std::int64_t pieces = r.count(4);
        if (pieces == 0) r.bad = true;
        for (std::int64_t p = 0; p < pieces && !r.bad; ++p) {
            const std::int64_t tensor = r.take(), seg = r.take(), offset = r.take(), count = r.take();
            if (offset < 0 || count <= 0) r.bad = true;
            unit.pieces.push_back({static_cast<int>(tensor), static_cast<int>(seg), static_cast<std::size_t>(offset),
                                   static_cast<std::size_t>(count)});
        }
        s.plan.push_back(std::move(unit));
    }
    if (r.bad) return Status::error("malformed schedule: truncated or impossible counts");
    if (r.i != words.size()) return Status::error("malformed schedule: trailing words");
    return s;
}

std::vector<std::int64_t> encodeSpans(const std::vector<ObservedSpan>& spans) {
    std::vector<std::int64_t> w;
    w.reserve(1 + spans.size() * kSpanWords);
    w.push_back(static_cast<std::int64_t>(spans.size()));
    for (const ObservedSpan& s : spans)
        w.insert(w.end(), {static_cast<std::int64_t>(s.kind), s.rank, s.iteration, s.layer, s.tensor, s.segment,
                           s.bytes, s.start, s.end, s.cpu});
    return w;
}

Result<std::vector<ObservedSpan>> decodeSpans(const std::vector<std::int64_t>& words) {
    Reader r{words};
    const std::int64_t n = r.count(kSpanWords);
    std::vector<ObservedSpan> spans;
    for (std::int64_t k = 0; k < n && !r.bad; ++k) {
        ObservedSpan s;
        const std::int64_t kind = r.take();
        if (kind < ObservedSpan::Forward || kind > ObservedSpan::Round) r.bad = true;
        s.kind = static_cast<ObservedSpan::Kind>(kind);
        s.rank = static_cast<int>(r.take());
        s.iteration = static_cast<int>(r.take());
        s.layer = static_cast<int>(r.take());
        s.tensor = static_cast<int>(r.take());
        s.segment = static_cast<int>(r.take());
        s.bytes = r.take();
        s.start = r.take();
        s.end = r.take();
        s.cpu = r.take();
        spans.push_back(s);
    }
    if (r.bad || r.i != words.size()) return Status::error("malformed warm-up spans");
    return spans;
}

}  // namespace pacer::engine
