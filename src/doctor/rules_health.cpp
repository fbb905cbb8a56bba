// Rules about the GPU's health as NVML reports it at probe time: the PCIe link width, clock
// slowdowns from heat or power, memory taken by other processes, persistence mode.
#include <fmt/format.h>

#include "doctor/rules.h"

namespace gpuready::doctor {
namespace {

std::string gpu_name(const NvidiaGpu& g) {
  return fmt::format("GPU {} ({})", g.index, g.name.has() ? g.name.value() : std::string("?"));
}

}  // namespace

std::vector<Finding> rule_pcie_width(const Context& c) {
  std::vector<Finding> out;
  for (const auto& g : c.s.nvidia.gpus) {
    if (!g.pcie_width_current.has() || !g.pcie_width_max.has()) continue;
    const int cur = g.pcie_width_current.value(), max = g.pcie_width_max.value();
    if (cur <= 0 || cur >= max) continue;
    Finding f;
    f.title = fmt::format("{} runs its PCIe link at x{} of x{}: host<->device copies get {:.0f}% of the bandwidth",
                          gpu_name(g), cur, max, 100.0 * cur / max);
    f.evidence = {fmt::format("PCIe width current x{}, max x{}", cur, max)};
    if (g.pcie_gen_current.has() && g.pcie_gen_max.has())
      f.evidence.push_back(fmt::format("PCIe generation current {}, max {} (the generation drops at idle; the width "
                                       "should not)",
                                       g.pcie_gen_current.value(), g.pcie_gen_max.value()));
    f.fix = {"# move the card to a x16 slot (the motherboard manual says which slots are x16 and which share lanes "
             "with M.2 drives), and reseat it",
             "nvidia-smi -q -d PCIE   # check after the move"};
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<Finding> rule_throttling(const Context& c) {
  static const char* kBad[] = {"hw_slowdown", "hw_thermal_slowdown", "sw_thermal_slowdown", "hw_power_brake_slowdown"};
  std::vector<Finding> out;
  for (const auto& g : c.s.nvidia.gpus) {
    if (!g.clocks_event_reasons.has()) continue;
    std::string active;
    for (const auto& r : g.clocks_event_reasons.value())
      for (const char* b : kBad)
        if (r == b) active += (active.empty() ? "" : ", ") + r;
    if (active.empty()) continue;
    Finding f;
    f.title = fmt::format("{} is slowing its clocks right now ({})", gpu_name(g), active);
    f.evidence = {"clocks event reasons: " + active};
    if (g.temperature_c.has()) f.evidence.push_back(fmt::format("temperature {} C", g.temperature_c.value()));
    if (g.power_draw_w.has() && g.power_limit_w.has())
      f.evidence.push_back(fmt::format("power {:.0f} W of {:.0f} W", g.power_draw_w.value(), g.power_limit_w.value()));
    f.fix = {"nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER   # which limit, and how close",
             "# clean the heatsink and fans, improve the case airflow; on a laptop use the performance power profile and "
             "the charger"};
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<Finding> rule_memory_in_use(const Context& c) {
  std::vector<Finding> out;
  for (const auto& g : c.s.nvidia.gpus) {
    if (!g.memory_used_bytes.has() || !g.memory_total_bytes.has() || g.memory_total_bytes.value() == 0) continue;
    const double used = static_cast<double>(g.memory_used_bytes.value());
    const double total = static_cast<double>(g.memory_total_bytes.value());
    if (used / total < 0.5 || used < 1024.0 * 1024 * 1024) continue;
    Finding f;
    f.title = fmt::format("{}: {:.1f} of {:.1f} GiB of memory are already in use by other processes", gpu_name(g),
                          used / (1 << 30), total / (1 << 30));
    f.evidence = {fmt::format("memory used {:.0f} MiB of {:.0f} MiB", used / (1 << 20), total / (1 << 20))};
    f.fix = {"nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv   # who holds it",
             "# stop those processes (an idle Jupyter kernel keeps its GPU memory until it is shut down)"};
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<Finding> rule_persistence_off(const Context& c) {
  if (c.os != "linux") return {};
  std::vector<Finding> out;
  for (const auto& g : c.s.nvidia.gpus) {
    if (!g.persistence_mode.has() || g.persistence_mode.value() || !g.name.has()) continue;
    const std::string& n = g.name.value();
    // Consumer and workstation boards do not need it; data-center boards do.
    if (n.find("GeForce") != std::string::npos || n.find("RTX") != std::string::npos ||
        n.find("Quadro") != std::string::npos || n.find("TITAN") != std::string::npos)
      continue;
    Finding f;
    f.title = gpu_name(g) + ": persistence mode is off, so every CUDA start re-initialises the GPU (seconds)";
    f.evidence = {"persistence mode: disabled"};
    f.fix = {"sudo systemctl enable --now nvidia-persistenced   # or: sudo nvidia-smi -pm 1"};
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace gpuready::doctor
