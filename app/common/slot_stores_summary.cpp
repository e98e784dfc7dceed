#include "app/common/slot_stores_summary.h"

#include <cmath>
#include <cstdio>

namespace pacer::app {

std::string describeSlotStores(const std::map<std::string, double>& metrics) {
    const auto chunks = metrics.find("shm_chunks_measured"), share = metrics.find("shm_streaming_share");
    if (chunks == metrics.end() || share == metrics.end() || !(chunks->second > 0)) return {};
    const auto fixed = metrics.find("shm_stores_fixed");
    const char* why = fixed != metrics.end() && fixed->second > 0 ? " (fixed by PACER_SHM_STORES)"
                      : share->second > 0 ? " (measured faster then, as where the ranks' cores share no cache)"
                                          : "";
    char text[200];
    if (share->second > 0)
        std::snprintf(text, sizeof text, "shared memory: streaming stores for %.0f%% of %.0f chunks%s",
                      100 * share->second, std::round(chunks->second), why);
    else
        std::snprintf(text, sizeof text, "shared memory: ordinary stores for all %.0f chunks%s",
                      std::round(chunks->second), why);
    return text;
}

}  // namespace pacer::app
