// collect_os: placeholder until the OS collector lands (helper in progress).
#include "probe/probe.h"
namespace gpuready {
void collect_os(const Os&, OsFacts&) {}
}  // namespace gpuready
