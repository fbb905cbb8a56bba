// collect_os: placeholder until the NVIDIA collector lands (helper in progress).
#include "probe/probe.h"
namespace gpuready {
void collect_nvidia(const Os&, const ProbeOptions&, NvidiaDriverFacts&) {}
}  // namespace gpuready
