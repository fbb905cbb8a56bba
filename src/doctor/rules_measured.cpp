// Rules about what `gpuready verify` measured (Snapshot::measurements): results that came back
// wrong, host<->device copies far below what the link should carry (with the likely cause from the
// link facts), matrix products far below the peak, and clocks held back while a check ran.
#include <fmt/format.h>

#include <algorithm>

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

namespace {

bool is_slowdown(const std::string& reason) { return reason != "sw_power_cap"; }

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : ", ") + x;
  return out;
}

}  // namespace

std::vector<Finding> rule_measured_gemm_slow(const Context& c) {
  std::vector<Finding> out;
  for (const auto& m : c.s.measurements) {
    if (m.key.rfind("gemm.", 0) != 0 || !m.data_ok || (m.status != "warn" && m.status != "fail")) continue;
    if (!m.value.has() || !m.ratio.has()) continue;
    Finding f;
    f.title = fmt::format("Matrix products ({}) reach {:.0f} TFLOP/s, {:.0f}% of this GPU's peak", m.key.substr(5),
                          m.value.value(), 100 * m.ratio.value());
    f.evidence = {m.key + ": " + m.detail};
    if (!m.clock_events.empty()) f.evidence.push_back("clocks held back by: " + joined(m.clock_events));
    f.fix = {"nvidia-smi -q -d PERFORMANCE,POWER,CLOCK,TEMPERATURE   # what limits the clocks now",
             "nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv   # other work on the GPU",
             "# a power limit set below the default (nvidia-smi -pl), poor cooling or a GPU shared with other jobs "
             "are the usual causes",
             "gpuready verify -t " + m.key + "   # measure again after each change"};
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<Finding> rule_measured_throttled(const Context& c) {
  std::vector<std::string> where, reasons;
  for (const auto& m : c.s.measurements)
    for (const auto& r : m.clock_events)
      if (is_slowdown(r)) {
        if (where.empty() || where.back() != m.key) where.push_back(m.key);
        if (std::find(reasons.begin(), reasons.end(), r) == reasons.end()) reasons.push_back(r);
      }
  if (where.empty()) return {};
  Finding f;
  f.title = fmt::format("The GPU slowed itself down while gpuready verify ran ({})", joined(reasons));
  f.evidence = {"during: " + joined(where)};
  for (const auto& m : c.s.measurements)
    if (m.key == where.front()) f.evidence.push_back(m.key + ": " + m.detail);
  f.fix = {"nvidia-smi -q -d PERFORMANCE,TEMPERATURE   # the slowdown reasons and temperatures now",
           "# thermal: clean the heatsink and fans, improve the airflow (laptops: a cooling pad, plugged in, "
           "performance power mode)",
           "# hardware slowdown / power brake: check the GPU's power cables and the power supply",
           "gpuready verify   # measure again after each change"};
  return {f};
}

std::vector<Finding> rule_measured_power_capped(const Context& c) {
  std::vector<std::string> where;
  for (const auto& m : c.s.measurements)
    if (std::find(m.clock_events.begin(), m.clock_events.end(), "sw_power_cap") != m.clock_events.end())
      where.push_back(m.key);
  if (where.empty()) return {};
  Finding f;
  f.title = "The GPU ran at its power limit during the heaviest checks (normal under full load)";
  f.evidence = {"during: " + joined(where)};
  f.fix = {"nvidia-smi -q -d POWER   # the power limit now, its default and its maximum",
           "# a limit below the default costs speed: sudo nvidia-smi -pl <default watts> restores it"};
  return {f};
}

}  // namespace gpuready::doctor
