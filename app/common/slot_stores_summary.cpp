#include "app/common/slot_stores_summary.h"

#include <cmath>
#include <cstdio>

namespace pacer::app {

std::string describeSlotStores(const std::map<std::string, double>& metrics) {
    const auto chunks = metrics.find("shm_chunks_measured"), share = metrics.find("shm_streaming_share");
    if (chunks == metrics.end() || share == metrics.end() || !(chunks->second > 0)) return {};
    char text[200];
    std::snprintf(text, sizeof text, "shared memory: %.0f%% of %.0f chunks written with streaming stores%s",
                  100 * share->second, std::round(chunks->second),
                  share->second >= 0.1 ? " (measured faster then, as where the ranks' cores share no cache)" : "");
    return text;
}

}  // namespace pacer::app
