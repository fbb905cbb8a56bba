// Rules about the GPU's health as NVML reports it at probe time: the PCIe link (width, and a
// generation below what the GPU supports), clock slowdowns from heat or power, memory taken by
// other processes, persistence mode, and the memory's own health (ECC errors, page retirement,
// row remapping).
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
    f.fix = {
        "# move the card to a x16 slot (the motherboard manual says which slots are x16 and which share lanes "
        "with M.2 drives), and reseat it",
        "nvidia-smi --query-gpu=index,pcie.link.width.current,pcie.link.width.max --format=csv   # check after the "
        "move"};
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

namespace {

// Per-lane PCIe rate in GB/s after line coding, by generation (PCI-SIG: 2.5/5/8/16/32/64 GT/s;
// 8b/10b for Gen1-2, 128b/130b for Gen3-5, FLIT for Gen6).
double lane_gbps(int gen) {
  static const double kRate[] = {0, 0.25, 0.5, 0.985, 1.969, 3.938, 7.563};
  return gen >= 1 && gen <= 6 ? kRate[gen] : 0;
}

std::string link_words(int gen, int width) {
  const double gbps = lane_gbps(gen) * width;
  return gbps > 0 ? fmt::format("Gen{} x{} ({:.1f} GB/s each way)", gen, width, gbps)
                  : fmt::format("Gen{} x{}", gen, width);
}

std::string nvidia_smi_i(const NvidiaGpu& g) { return fmt::format("-i {}", g.index); }

}  // namespace

std::vector<Finding> rule_pcie_gen(const Context& c) {
  std::vector<Finding> out;
  for (const auto& g : c.s.nvidia.gpus) {
    if (!g.pcie_gen_max.has()) continue;
    const int max = g.pcie_gen_max.value();
    const int width = g.pcie_width_max.has() ? g.pcie_width_max.value() : 16;
    // 1. The slot or platform caps the link below what the GPU supports (seen even at idle).
    if (g.pcie_gen_gpu_max.has() && g.pcie_gen_gpu_max.value() > max && max > 0) {
      const int gpu = g.pcie_gen_gpu_max.value();
      Finding f;
      f.title = fmt::format(
          "{} supports PCIe Gen{} but its slot allows Gen{}: host<->device copies get at most {:.0f}% "
          "of what the GPU can do",
          gpu_name(g), gpu, max, 100.0 * lane_gbps(max) / lane_gbps(gpu));
      f.evidence = {
          fmt::format("GPU max generation {} (nvmlDeviceGetGpuMaxPcieLinkGeneration), GPU+slot max {}", gpu, max),
          "best link here: " + link_words(max, width) + ", the GPU's: " + link_words(gpu, width)};
      f.fix = {
          "# the slot, a riser cable or the BIOS setting limits the link: in the BIOS set the slot's PCIe speed to "
          "Auto (or Gen" +
              std::to_string(gpu) + "), avoid risers and chipset slots, and use a slot wired to the CPU",
          "nvidia-smi " + nvidia_smi_i(g) +
              " --query-gpu=pcie.link.gen.max,pcie.link.gen.gpumax --format=csv   # check "
              "after the change"};
      out.push_back(std::move(f));
      continue;
    }
    // 2. Below its max while working (links drop generation only when idle).
    if (!g.pcie_gen_current.has() || !g.utilization_percent.has()) continue;
    const int cur = g.pcie_gen_current.value();
    const int busy = g.utilization_percent.value();
    if (cur <= 0 || cur >= max || busy < 50) continue;
    Finding f;
    f.title = fmt::format("{} is busy ({}%) but its PCIe link runs at Gen{} of Gen{}", gpu_name(g), busy, cur, max);
    f.evidence = {fmt::format("PCIe generation current {}, max {}; utilization {}%", cur, max, busy),
                  "now: " + link_words(cur, g.pcie_width_current.has() ? g.pcie_width_current.value() : width)};
    f.fix = {"nvidia-smi " + nvidia_smi_i(g) +
                 " --query-gpu=pcie.link.gen.current,pcie.link.gen.max,utilization.gpu "
                 "--format=csv -l 1   # watch it during a copy-heavy job",
             "# a link that stays low under load: reseat the card, check the riser and the BIOS PCIe speed setting; "
             "disable ASPM (pcie_aspm=off on the kernel command line) if it never trains up"};
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<Finding> rule_ecc_uncorrected(const Context& c) {
  std::vector<Finding> out;
  for (const auto& g : c.s.nvidia.gpus) {
    if (!g.ecc_uncorrected_volatile.has() || g.ecc_uncorrected_volatile.value() == 0) continue;
    Finding f;
    f.title = fmt::format(
        "{} had {} uncorrectable memory (ECC) errors since the driver loaded: the processes using "
        "that memory were stopped, and results may be wrong",
        gpu_name(g), g.ecc_uncorrected_volatile.value());
    f.evidence = {
        fmt::format("uncorrectable ECC errors: {} since the driver loaded", g.ecc_uncorrected_volatile.value())};
    if (g.ecc_uncorrected_aggregate.has())
      f.evidence.push_back(fmt::format("over the board's life: {}", g.ecc_uncorrected_aggregate.value()));
    f.fix = {"nvidia-smi -q -d ECC,ROW_REMAPPER,PAGE_RETIREMENT " + nvidia_smi_i(g) + "   # the details",
             "sudo dmesg | grep -i xid   # Xid 48/63/64/94/95: the errors as the driver logged them",
             "# stop the GPU's processes and reset it (sudo nvidia-smi -r " + nvidia_smi_i(g) +
                 ") or reboot; if errors come back, the board needs service"};
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<Finding> rule_reset_pending(const Context& c) {
  std::vector<Finding> out;
  for (const auto& g : c.s.nvidia.gpus) {
    const bool pages = g.retired_pages_pending.has() && g.retired_pages_pending.value();
    const bool rows = g.row_remap_pending.has() && g.row_remap_pending.value();
    if (!pages && !rows) continue;
    Finding f;
    f.title = fmt::format(
        "{} has a memory repair waiting for a GPU reset ({}): until then it may hit the bad memory "
        "again",
        gpu_name(g), rows ? "row remapping pending" : "page retirement pending");
    if (rows)
      f.evidence.push_back(fmt::format("remapped rows: {} correctable, {} uncorrectable; remap pending",
                                       g.remapped_rows_correctable.value_or(0),
                                       g.remapped_rows_uncorrectable.value_or(0)));
    if (pages)
      f.evidence.push_back(fmt::format("retired pages: {} single-bit, {} double-bit; retirement pending",
                                       g.retired_pages_sbe.value_or(0), g.retired_pages_dbe.value_or(0)));
    f.fix = {
        "nvidia-smi --query-compute-apps=pid,process_name --format=csv " + nvidia_smi_i(g) + "   # stop these first",
        "sudo nvidia-smi -r " + nvidia_smi_i(g) + "   # reset the GPU (or reboot)"};
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<Finding> rule_memory_needs_service(const Context& c) {
  // NVIDIA's guidance: a failed row remap, or page retirement at its limit (64 pages), means the
  // board should be replaced (GPU memory error management, r580 docs).
  std::vector<Finding> out;
  for (const auto& g : c.s.nvidia.gpus) {
    const bool failed = g.row_remap_failed.has() && g.row_remap_failed.value();
    const int retired = g.retired_pages_sbe.value_or(0) + g.retired_pages_dbe.value_or(0);
    if (!failed && retired < 60) continue;
    Finding f;
    f.title = fmt::format("{}'s memory can no longer repair itself ({}): the board needs service", gpu_name(g),
                          failed ? "a row remap failed" : fmt::format("{} pages retired", retired));
    if (failed) f.evidence.push_back("row remapping failure occurred (nvmlDeviceGetRemappedRows)");
    if (retired > 0)
      f.evidence.push_back(fmt::format("retired pages: {} single-bit, {} double-bit", g.retired_pages_sbe.value_or(0),
                                       g.retired_pages_dbe.value_or(0)));
    if (g.uuid.has()) f.evidence.push_back("GPU UUID: " + g.uuid.value());
    f.fix = {"nvidia-smi -q -d ROW_REMAPPER,PAGE_RETIREMENT " + nvidia_smi_i(g) + "   # attach this to the RMA request",
             "# until it is replaced, keep jobs off it: export CUDA_VISIBLE_DEVICES=<the other GPUs' indices>"};
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace gpuready::doctor
