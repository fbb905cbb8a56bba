// collect_os: placeholder until the Python collector lands (helper in progress).
#include "probe/probe.h"
namespace gpuready {
void collect_python(const Os&, const ProbeOptions&, std::vector<PythonEnv>&) {}
}  // namespace gpuready
