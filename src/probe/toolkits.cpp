// collect_os: placeholder until the toolkit collector lands (helper in progress).
#include "probe/probe.h"
namespace gpuready {
void collect_toolkits(const Os&, std::vector<Toolkit>&) {}
}  // namespace gpuready
