// Console reporter for the Snapshot: sections in the order a user reads a machine
// (OS, CPU, GPUs on the bus, driver, toolkits, libraries, Python). Every unknown fact
// is printed with its reason; nothing is computed or judged here.
#include "report/console.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <sstream>

namespace gpuready {
namespace {

class Out {
 public:
  explicit Out(const ConsoleStyle& s) : style_(s) {}
  void section(const std::string& title) {
    if (!text_.empty()) text_ += '\n';
    text_ += style_.color ? fmt::format("\x1b[1m{}\x1b[0m\n", title) : title + "\n";
  }
  void line(const std::string& key, const std::string& value, int indent = 2) {
    text_ += fmt::format("{:{}}{:<{}} {}\n", "", indent, key + ":", 24 - indent, value);
  }
  void raw(const std::string& s) { text_ += s; }
  template <class T>
  void fact(const std::string& key, const Fact<T>& f, int indent = 2) {
    line(key, show(f), indent);
  }
  template <class T>
  std::string show(const Fact<T>& f) const {
    if (!f.has()) return dim("unknown (" + f.why() + ")");
    return fmt::format("{}", f.value());
  }
  std::string show(const Fact<bool>& f) const {
    if (!f.has()) return dim("unknown (" + f.why() + ")");
    return f.value() ? "yes" : "no";
  }
  std::string dim(const std::string& s) const { return style_.color ? "\x1b[2m" + s + "\x1b[0m" : s; }
  std::string text() const { return text_; }

 private:
  ConsoleStyle style_;
  std::string text_;
};

std::string bytes(std::uint64_t b) {
  const double gib = static_cast<double>(b) / (1024.0 * 1024.0 * 1024.0);
  if (gib >= 1) return fmt::format("{:.1f} GiB", gib);
  return fmt::format("{:.0f} MiB", static_cast<double>(b) / (1024.0 * 1024.0));
}

std::string bytes_fact(const Out& o, const Fact<std::uint64_t>& f) { return f.has() ? bytes(f.value()) : o.show(f); }

std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

void render_os(Out& o, const Snapshot& s) {
  o.section("System");
  o.fact("OS", s.os.name);
  o.fact("version", s.os.version);
  o.fact("kernel", s.os.kernel);
  o.fact("architecture", s.os.arch);
  o.fact("WSL", s.os.wsl);
  o.fact("container", s.os.container);
  o.fact("host name", s.hostname);
}

void render_cpu(Out& o, const Snapshot& s) {
  o.section("CPU and memory");
  o.fact("CPU", s.cpu.model);
  std::string topo;
  if (s.cpu.cores.has() || s.cpu.threads.has())
    topo = fmt::format("{} cores, {} threads", o.show(s.cpu.cores), o.show(s.cpu.threads));
  else
    topo = o.show(s.cpu.threads);
  if (s.cpu.sockets.has() && s.cpu.sockets.value() > 1) topo += fmt::format(", {} sockets", s.cpu.sockets.value());
  o.line("cores", topo);
  if (s.cpu.isa.has()) {
    std::vector<std::string> yes, no;
    for (const auto& [k, v] : s.cpu.isa.value()) (v ? yes : no).push_back(k);
    o.line("ISA", yes.empty() ? "none of the tracked extensions" : join(yes, " "));
    if (!no.empty()) o.line("ISA absent", join(no, " "));
  } else {
    o.fact("ISA", s.cpu.isa);
  }
  std::string ram = bytes_fact(o, s.cpu.ram_bytes);
  if (s.cpu.ram_available_bytes.has()) ram += fmt::format(" ({} available)", bytes(s.cpu.ram_available_bytes.value()));
  o.line("RAM", ram);
}

void render_pci(Out& o, const Snapshot& s) {
  o.section("GPUs on the PCI bus");
  if (s.pci_gpus.empty()) {
    o.raw("  none found (no display or 3D controller on the bus)\n");
    return;
  }
  for (const auto& g : s.pci_gpus) {
    std::string link;
    if (g.link_width_current.has() || g.link_speed_current.has())
      link = fmt::format(", link {} x{} (max {} x{})", o.show(g.link_speed_current), o.show(g.link_width_current),
                         o.show(g.link_speed_max), o.show(g.link_width_max));
    o.raw(fmt::format("  {}  {} {:04x}:{:04x}  driver: {}{}\n", g.address, g.vendor, g.vendor_id, g.device_id,
                      o.show(g.kernel_driver), link));
  }
}

void render_nvidia(Out& o, const Snapshot& s) {
  const auto& n = s.nvidia;
  o.section("NVIDIA driver");
  o.fact("driver", n.driver_version);
  o.fact("newest CUDA", n.cuda_driver_version);
  o.fact("kernel module", n.kernel_module_version);
  o.fact("NVML", n.nvml_library);
  o.fact("libcuda", n.cuda_library);
  o.fact("cuInit", n.cuda_init);
  o.fact("CUDA devices", n.cuda_device_count);
  o.fact("CUDA_VISIBLE_DEVICES", n.cuda_visible_devices);
  for (const auto& st : n.steps) {
    if (st.ok) continue;
    o.raw(fmt::format("  ! {}: {}{}\n", st.name, st.message, st.code.empty() ? "" : " [" + st.code + "]"));
  }
  for (const auto& g : n.gpus) {
    o.raw(fmt::format("  GPU {}: {}\n", g.index, o.show(g.name)));
    o.fact("UUID", g.uuid, 4);
    o.fact("PCI bus", g.pci_bus_id, 4);
    o.line("memory",
           fmt::format("{} total, {} used", bytes_fact(o, g.memory_total_bytes), bytes_fact(o, g.memory_used_bytes)), 4);
    o.line("compute", fmt::format("{} ({})", o.show(g.compute_capability), o.show(g.architecture)), 4);
    if (g.sm_count.has()) o.fact("SMs", g.sm_count, 4);
    o.line("PCIe", fmt::format("Gen{} x{} now, Gen{} x{} max", o.show(g.pcie_gen_current), o.show(g.pcie_width_current),
                               o.show(g.pcie_gen_max), o.show(g.pcie_width_max)),
           4);
    o.fact("memory bus (bits)", g.memory_bus_width_bits, 4);
    o.line("clocks", fmt::format("SM {} MHz (max {}), memory {} MHz (max {})", o.show(g.sm_clock_mhz),
                                 o.show(g.sm_clock_max_mhz), o.show(g.memory_clock_mhz), o.show(g.memory_clock_max_mhz)),
           4);
    o.fact("persistence mode", g.persistence_mode, 4);
    if (g.driver_model.has()) o.fact("driver model", g.driver_model, 4);
    o.fact("ECC", g.ecc_enabled, 4);
    o.line("clocks held by",
           g.clocks_event_reasons.has() ? (g.clocks_event_reasons.value().empty() ? "nothing"
                                                                                  : join(g.clocks_event_reasons.value()))
                                        : o.show(g.clocks_event_reasons),
           4);
    o.line("temperature", g.temperature_c.has() ? fmt::format("{} C", g.temperature_c.value()) : o.show(g.temperature_c),
           4);
    o.line("power", fmt::format("{} W of {} W", g.power_draw_w.has() ? fmt::format("{:.0f}", g.power_draw_w.value())
                                                                      : o.show(g.power_draw_w),
                                g.power_limit_w.has() ? fmt::format("{:.0f}", g.power_limit_w.value())
                                                      : o.show(g.power_limit_w)),
           4);
  }
}

void render_toolkits(Out& o, const Snapshot& s) {
  o.section("CUDA toolkits");
  if (s.toolkits.empty()) o.raw("  none found\n");
  for (const auto& t : s.toolkits) {
    o.raw(fmt::format("  {}  {}{}{}\n", t.root, o.show(t.version),
                      t.version_source.empty() ? "" : " (from " + t.version_source + ")",
                      t.is_path_nvcc ? "  <- nvcc on PATH" : ""));
    o.raw(fmt::format("    found by: {}\n", join(t.found_by)));
  }
}

void render_libraries(Out& o, const Snapshot& s) {
  const auto& L = s.libraries;
  o.section("GPU libraries");
  if (L.copies.empty()) o.raw("  no copies found\n");
  for (const auto& c : L.copies)
    o.raw(fmt::format("  {:<9} {:<12} {}  [{}{}]\n", c.library, o.show(c.version), c.path, c.origin,
                      c.origin_detail.empty() ? "" : ": " + c.origin_detail));
  for (const auto& set : L.cudnn_sets) {
    std::string state = set.missing.empty() ? "complete" : "missing " + join(set.missing);
    if (!set.consistent) state += ", sub-libraries of mixed versions";
    o.raw(fmt::format("  cuDNN set {} {}: {}\n", set.dir, o.show(set.version), state));
  }
  // Found sonames one per line; the ones the loader cannot find on one line (most are other
  // CUDA majors nobody here asked for; the JSON keeps each with its reason).
  std::vector<std::string> not_found;
  bool header = false;
  for (const auto& r : L.resolutions) {
    if (!r.path.has()) {
      not_found.push_back(r.soname);
      continue;
    }
    if (!header) o.raw("  the loader would pick:\n");
    header = true;
    o.raw(fmt::format("    {:<22} {}{}\n", r.soname, r.path.value(), r.via.empty() ? "" : " (" + r.via + ")"));
  }
  if (!not_found.empty()) o.raw(fmt::format("  the loader finds no: {}\n", join(not_found)));
}

void render_python(Out& o, const Snapshot& s) {
  o.section("Python environments");
  if (s.python.empty()) o.raw("  no Python interpreter found\n");
  for (const auto& p : s.python) {
    o.raw(fmt::format("  {}  Python {}  [{}]\n", p.interpreter, o.show(p.version), join(p.found_by)));
    if (!p.error.empty()) o.raw(fmt::format("    ! {}\n", p.error));
    for (const auto& pkg : p.packages) {
      std::string extra;
      for (const auto& [k, v] : pkg.details)
        if (k != "lib_dir") extra += fmt::format(" {}={}", k, v);
      o.raw(fmt::format("    {:<26} {}{}\n", pkg.name, pkg.version, extra));
    }
  }
}

// The deep checks (--deep): what each framework showed when imported, and every GPU library it loaded.
void render_frameworks(Out& o, const Snapshot& s) {
  if (s.frameworks.empty()) return;
  o.section("Frameworks, imported");
  for (const auto& k : s.frameworks) {
    o.raw(fmt::format("  {} {}  {}  [{}]\n", k.package, o.show(k.version), k.status, k.python));
    if (!k.error.empty()) o.raw(fmt::format("    ! {}\n", k.error));
    if (!k.gpu_error.empty()) o.raw(fmt::format("    ! {}\n", k.gpu_error));
    o.raw(fmt::format(
        "    built with CUDA {}, cuDNN {}; runs cuDNN {}; import {}\n", o.show(k.built_cuda), o.show(k.built_cudnn),
        o.show(k.runtime_cudnn),
        k.import_seconds.has() ? fmt::format("{:.2f} s", k.import_seconds.value()) : o.show(k.import_seconds)));
    if (!k.arch_list.empty()) o.raw("    kernels for: " + join(k.arch_list) + "\n");
    for (const auto& d : k.devices)
      o.raw(fmt::format("    GPU {}: {} (compute capability {})\n", d.index, d.name, o.show(d.compute_capability)));
    for (const auto& op : k.ops)
      o.raw(fmt::format(
          "    {:<7} GPU vs CPU: {}{}\n", op.name,
          op.max_error.has() ? fmt::format("max difference {:.3g}", op.max_error.value()) : o.show(op.max_error),
          op.gpu_ms.has() ? fmt::format(", first GPU call {:.0f} ms", op.gpu_ms.value()) : ""));
    for (const auto& l : k.libraries)
      o.raw(fmt::format("    loaded {:<26} {}{}\n", l.library.empty() ? "(other)" : l.library, l.path,
                        l.version.has() ? "  " + l.version.value() + " (" + l.version_source + ")" : ""));
  }
}

}  // namespace

std::string render_snapshot_console(const Snapshot& s, const ConsoleStyle& style) {
  Out o(style);
  render_os(o, s);
  render_cpu(o, s);
  render_pci(o, s);
  render_nvidia(o, s);
  render_toolkits(o, s);
  render_libraries(o, s);
  render_python(o, s);
  render_frameworks(o, s);
  if (!s.notes.empty()) {
    o.section("Notes");
    for (const auto& n : s.notes) o.raw("  " + n + "\n");
  }
  return o.text();
}

std::string gpu_headline(const Snapshot& s) {
  if (!s.nvidia.gpus.empty() && s.nvidia.gpus.front().name.has()) {
    std::string gpu = s.nvidia.gpus.front().name.value();
    if (s.nvidia.gpus.size() > 1) gpu += fmt::format(" (+{} more)", s.nvidia.gpus.size() - 1);
    return gpu;
  }
  // On the bus but no driver answers for it: say so rather than "no NVIDIA GPU".
  for (const auto& p : s.pci_gpus)
    if (p.vendor == "nvidia") return fmt::format("NVIDIA GPU {:04x}:{:04x} on the PCI bus", p.vendor_id, p.device_id);
  return "no NVIDIA GPU";
}

}  // namespace gpuready
