#include "engine/collectives/collective_cpu.h"

#include "engine/median_interval.h"
#include "engine/thread_cpu.h"

#include <vector>

namespace pacer::engine {

Result<CollectiveCpu> measureCollectiveCpu(Transport& transport, std::size_t bytes, int calls) {
    if (bytes < sizeof(float) || calls < 1)
        return Status::error("collective CPU: needs at least one call of at least one float");
    std::vector<float> data(bytes / sizeof(float), 1.0f);
    float together = 0;
    std::vector<double> cpu;
    for (int k = 0; k < calls; ++k) {
        if (Status s = transport.allreduce(&together, 1); !s.ok()) return Status::error("collective CPU: " + s.message());
        const Nanos before = threadCpuNs();
        if (Status s = transport.allreduce(data.data(), data.size()); !s.ok())
            return Status::error("collective CPU: " + s.message());
        cpu.push_back(static_cast<double>(threadCpuNs() - before));
    }
    return CollectiveCpu{data.size() * sizeof(float), median(cpu), calls};
}

}  // namespace pacer::engine
