#include "engine/median_interval.h"

#include <algorithm>
#include <cmath>

namespace pacer::engine {

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    const std::size_t mid = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + mid, v.end());
    const double upper = v[mid];
    if (v.size() % 2 == 1) return upper;
    const double lower = *std::max_element(v.begin(), v.begin() + mid);
    return (lower + upper) / 2;
}

std::size_t medianIntervalRank(std::size_t n, double confidence) {
    // Walk up the binomial's lower tail, P(B <= j) = Σ C(n, i) / 2^n, in logs so that thousands of values do not
    // overflow; the largest k with 2·P(B <= k-1) <= 1 - confidence.
    const double alpha = 1 - confidence;
    const double logHalfToN = -static_cast<double>(n) * std::log(2.0);
    double tail = 0;
    std::size_t k = 0;
    for (std::size_t j = 0; 2 * j < n; ++j) {
        const double logChoose = std::lgamma(n + 1.0) - std::lgamma(j + 1.0) - std::lgamma(n - j + 1.0);
        tail += std::exp(logChoose + logHalfToN);
        if (2 * tail > alpha) break;
        k = j + 1;
    }
    return k;
}

std::size_t medianIntervalMinCount(double confidence) {
    std::size_t n = 1;
    while (medianIntervalRank(n, confidence) == 0 && n < 4096) ++n;
    return n;
}

MedianInterval medianInterval(std::vector<double> values, double confidence) {
    MedianInterval out;
    out.count = values.size();
    if (values.empty()) return out;
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size(), h = n / 2;
    out.median = n % 2 ? values[h] : (values[h - 1] + values[h]) / 2;
    out.rank = medianIntervalRank(n, confidence);
    if (out.known()) out.low = values[out.rank - 1], out.high = values[n - out.rank];
    return out;
}

}  // namespace pacer::engine
