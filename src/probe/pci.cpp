// collect_os: placeholder until the PCI collector lands (helper in progress).
#include "probe/probe.h"
namespace gpuready {
void collect_pci(const Os&, std::vector<PciGpu>&) {}
}  // namespace gpuready
