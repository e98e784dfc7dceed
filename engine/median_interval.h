// A distribution-free confidence interval for the median, from order statistics (the sign test's interval): of n
// independent values sorted x_(1) <= ... <= x_(n), the true median lies in [x_(k), x_(n+1-k)] with probability at
// least 1 - 2·P(B <= k-1), B ~ Binomial(n, 1/2), whatever the values' distribution. k is the largest rank for which
// that reaches the confidence asked. Used where timings on a shared machine have heavy tails that no mean and
// standard deviation describe: judging the all-reduce benchmark's paired ratios (engine/bench) and telling at
// calibration whether an algorithm is faster than the transport's own all-reduce (engine/collectives/calibrate).
#pragma once

#include <cstddef>
#include <vector>

namespace pacer::engine {

// The middle value; of an even count the mean of the two middle ones (0 for none). Linear time (nth_element).
double median(std::vector<double> values);

struct MedianInterval {
    std::size_t count = 0;  // values
    std::size_t rank = 0;   // k, 1-based; 0 when too few values reach the confidence (then low and high are 0)
    double median = 0;      // the middle value; of an even count the mean of the two middle ones
    double low = 0, high = 0;
    bool known() const { return rank > 0; }
};

// k for n values at a two-sided `confidence` (0..1); 0 when even [min, max] falls short (n < 6 at 0.95).
std::size_t medianIntervalRank(std::size_t n, double confidence);

// The smallest count whose interval reaches `confidence` (6 at 0.95).
std::size_t medianIntervalMinCount(double confidence);

MedianInterval medianInterval(std::vector<double> values, double confidence = 0.95);

}  // namespace pacer::engine
