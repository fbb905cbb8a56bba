// collect_os: placeholder until the library collector lands (helper in progress).
#include "probe/probe.h"
namespace gpuready {
void collect_libraries(const Os&, const std::vector<Toolkit>&, const std::vector<PythonEnv>&, LibraryFacts&) {}
}  // namespace gpuready
