// collect_os: placeholder until the CPU collector lands (helper in progress).
#include "probe/probe.h"
namespace gpuready {
void collect_cpu(const Os&, CpuFacts&) {}
}  // namespace gpuready
