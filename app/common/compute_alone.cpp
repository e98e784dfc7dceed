#include "app/common/compute_alone.h"

namespace pacer::app {

double aloneFigureMs(const std::map<std::string, double>& metrics, const std::string& figure) {
    const auto before = metrics.find(figure + "_before_ms");
    const auto after = metrics.find(figure + "_after_ms");
    if (before == metrics.end() || after == metrics.end() || before->second <= 0 || after->second <= 0) return 0;
    return (before->second + after->second) / 2;
}

}  // namespace pacer::app
