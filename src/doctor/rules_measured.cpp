// Rules about what `gpuready verify` measured (Snapshot::measurements): copies that corrupt data,
// and host<->device copies far below what the link should carry, with the likely cause from the
// link facts.
#include <fmt/format.h>

#include "doctor/rules.h"

namespace gpuready::doctor {

std::vector<Finding> rule_measured_data_corrupt(const Context& c) {
  std::vector<Finding> out;
  for (const auto& m : c.s.measurements) {
    if (m.data_ok) continue;
    Finding f;
    f.title = fmt::format("{}: the GPU returned different data than it was given", m.key);
    f.evidence = {m.key + ": " + m.detail};
    f.fix = {"sudo dmesg | grep -i -E 'xid|nvrm'   # errors the driver logged during the run",
             "nvidia-smi -q -d ECC,ROW_REMAPPER,PAGE_RETIREMENT   # memory errors the GPU counted",
             "# reseat the card and its power cables, try another slot; if it persists, the board needs service",
             "gpuready verify   # run it again after each change"};
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<Finding> rule_measured_copy_slow(const Context& c) {
  std::vector<Finding> out;
  for (const auto& m : c.s.measurements) {
    if (m.key != "copy.h2d_pinned" && m.key != "copy.d2h_pinned") continue;
    if (!m.data_ok || (m.status != "warn" && m.status != "fail") || !m.value.has()) continue;
    Finding f;
    f.title = m.ratio.has() ? fmt::format(
                                  "Copies between host and GPU reach {:.1f} GB/s, {:.0f}% of what the PCIe link "
                                  "carries",
                                  m.value.value(), 100 * m.ratio.value())
                            : fmt::format("Copies between host and GPU reach only {:.1f} GB/s", m.value.value());
    f.evidence = {m.key + ": " + m.detail};
    // The link facts at probe time name the likely cause.
    std::string cause;
    for (const auto& g : c.s.nvidia.gpus) {
      if (g.pcie_width_current.has() && g.pcie_width_max.has() &&
          g.pcie_width_current.value() < g.pcie_width_max.value())
        cause = fmt::format("GPU {} is in an x{} slot (it can use x{})", g.index, g.pcie_width_current.value(),
                            g.pcie_width_max.value());
      else if (g.pcie_gen_gpu_max.has() && g.pcie_gen_max.has() && g.pcie_gen_max.value() < g.pcie_gen_gpu_max.value())
        cause = fmt::format("GPU {} runs at Gen{}: its slot allows no more (the GPU can do Gen{})", g.index,
                            g.pcie_gen_max.value(), g.pcie_gen_gpu_max.value());
    }
    if (m.detail.find("during the copy") != std::string::npos) cause = "the link ran below its max during the copy";
    if (!cause.empty()) f.evidence.push_back("likely cause: " + cause);
    f.fix = {
        "nvidia-smi --query-gpu=index,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,"
        "pcie.link.width.max --format=csv   # the link as it is now",
        "# a narrow or slow link: move the card to an x16 slot wired to the CPU, set the slot's PCIe speed to Auto "
        "in the BIOS, avoid risers",
        "# a full link: check for other traffic on the GPU (nvidia-smi), and on servers for an IOMMU in translated "
        "mode (the kernel option iommu=pt)"};
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace gpuready::doctor
