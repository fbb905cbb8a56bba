// collect_cpu: CPU vendor, model, sockets/cores/threads, the ISA extensions deep-learning
// libraries dispatch on, and RAM. Linux reads /proc/cpuinfo and /proc/meminfo (falling back
// to sysfs topology where cpuinfo has none, as on arm64); on Windows only the model and vendor
// (registry) so far, the rest is a later issue.
#include <fmt/format.h>

#include <array>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "parse/clean_text.h"
#include "parse/proc_cpuinfo.h"
#include "parse/proc_meminfo.h"
#include "parse/sysfs.h"
#include "probe/os_detect.h"
#include "probe/probe.h"

namespace gpuready {
namespace detail {
namespace {

constexpr size_t kCpuinfoMax = 8 * 1024 * 1024;  // 1.5 KB per logical CPU: room for ~5000
constexpr size_t kMeminfoMax = 64 * 1024;
constexpr size_t kMaxTopologyCpus = 4096;         // sysfs fallback reads two files per CPU

// x86 flag names exactly as Linux writes them in /proc/cpuinfo.
constexpr std::array<const char*, 13> kX86Isa = {"sse4_2",   "avx",         "avx2",        "fma",
                                                 "f16c",     "avx512f",     "avx512bw",    "avx512vl",
                                                 "avx512_vnni", "avx512_bf16", "amx_tile", "amx_bf16",
                                                 "amx_int8"};
// arm64 "Features" words: NEON, half precision, dot product, SVE, BF16 and int8 matmul.
constexpr std::array<const char*, 11> kArmIsa = {"asimd", "asimdhp", "asimddp", "fphp",   "sve",   "sve2",
                                                 "bf16",  "i8mm",    "svebf16", "svei8mm", "sme"};

// MIDR implementer codes and part numbers, named as util-linux lscpu names them.
std::string arm_implementer(int code) {
  switch (code) {
    case 0x41: return "ARM";
    case 0x42: return "Broadcom";
    case 0x43: return "Cavium";
    case 0x48: return "HiSilicon";
    case 0x4e: return "NVIDIA";
    case 0x50: return "APM";
    case 0x51: return "Qualcomm";
    case 0x61: return "Apple";
    case 0xc0: return "Ampere";
    default: return {};
  }
}

std::string arm_part(int implementer, int part) {
  if (implementer == 0x41) {
    switch (part) {
      case 0xd03: return "Cortex-A53";
      case 0xd04: return "Cortex-A35";
      case 0xd05: return "Cortex-A55";
      case 0xd07: return "Cortex-A57";
      case 0xd08: return "Cortex-A72";
      case 0xd09: return "Cortex-A73";
      case 0xd0a: return "Cortex-A75";
      case 0xd0b: return "Cortex-A76";
      case 0xd0c: return "Neoverse-N1";
      case 0xd0d: return "Cortex-A77";
      case 0xd40: return "Neoverse-V1";
      case 0xd41: return "Cortex-A78";
      case 0xd44: return "Cortex-X1";
      case 0xd46: return "Cortex-A510";
      case 0xd47: return "Cortex-A710";
      case 0xd48: return "Cortex-X2";
      case 0xd49: return "Neoverse-N2";
      case 0xd4f: return "Neoverse-V2";
      case 0xd80: return "Cortex-A520";
      case 0xd81: return "Cortex-A720";
      case 0xd82: return "Cortex-X4";
      case 0xd84: return "Neoverse-V3";
      case 0xd8e: return "Neoverse-N3";
      default: return {};
    }
  }
  if (implementer == 0x4e && part == 0x004) return "Carmel";
  if (implementer == 0x4e && part == 0x003) return "Denver 2";
  if (implementer == 0x48 && part == 0xd01) return "TaiShan-v110";
  if (implementer == 0xc0 && part == 0xac3) return "Ampere-1";
  if (implementer == 0xc0 && part == 0xac4) return "Ampere-1a";
  return {};
}

void set_all_unknown(CpuFacts& out, const std::string& why) {
  out.vendor = Fact<std::string>::unknown(why);
  out.model = Fact<std::string>::unknown(why);
  out.sockets = Fact<int>::unknown(why);
  out.cores = Fact<int>::unknown(why);
  out.threads = Fact<int>::unknown(why);
  out.isa = Fact<std::map<std::string, bool>>::unknown(why);
}

void fill_identity(const parse::CpuInfo& info, CpuFacts& out) {
  std::string vendor, model;
  std::optional<int> implementer, part;
  for (const auto& p : info.processors) {
    if (vendor.empty()) vendor = p.vendor_id;
    if (model.empty()) model = p.model_name;
    if (!implementer && p.implementer) implementer = p.implementer;
    if (!part && p.part) part = p.part;
  }
  if (vendor.empty() && implementer) vendor = arm_implementer(*implementer);
  if (!vendor.empty()) {
    out.vendor = vendor;
  } else if (implementer) {
    out.vendor = Fact<std::string>::unknown(
        fmt::format("/proc/cpuinfo names CPU implementer {:#x}, which gpuready's table does not know", *implementer));
  } else {
    out.vendor = Fact<std::string>::unknown("/proc/cpuinfo has no vendor_id or CPU implementer line");
  }

  // arm64 has no "model name": lscpu derives it from the implementer and part numbers, and so do we.
  if (model.empty() && implementer && part) model = arm_part(*implementer, *part);
  if (model.empty()) model = info.global_model_name;
  if (!model.empty()) {
    out.model = model;
  } else if (implementer && part) {
    out.model = Fact<std::string>::unknown(fmt::format(
        "/proc/cpuinfo has no model name, and CPU implementer {:#x} part {:#x} is not in gpuready's table",
        *implementer, *part));
  } else {
    out.model = Fact<std::string>::unknown("/proc/cpuinfo has no model name line");
  }
}

void fill_topology(const Fs& fs, const parse::CpuInfo& info, CpuFacts& out) {
  const int threads = static_cast<int>(info.processors.size());
  out.threads = threads;

  // x86: "physical id" is the socket, ("physical id", "core id") one physical core.
  std::set<int> sockets;
  std::set<std::pair<int, int>> cores;
  std::optional<int> cores_per_socket;
  for (const auto& p : info.processors) {
    if (p.physical_id) sockets.insert(*p.physical_id);
    if (p.physical_id && p.core_id) cores.insert({*p.physical_id, *p.core_id});
    if (p.cpu_cores && !cores_per_socket) cores_per_socket = p.cpu_cores;
  }

  // arm64 and some VMs print no topology in cpuinfo; sysfs has it per logical CPU.
  if (sockets.empty() && cores.empty() && info.processors.size() <= kMaxTopologyCpus) {
    std::set<int> s2;
    std::set<std::pair<int, int>> c2;
    bool complete = true;
    for (const auto& p : info.processors) {
      const std::string dir = fmt::format("/sys/devices/system/cpu/cpu{}/topology/", *p.processor);
      const auto pkg_text = fs.read_file(dir + "physical_package_id", 64, nullptr);
      const auto core_text = fs.read_file(dir + "core_id", 64, nullptr);
      const auto pkg = pkg_text ? parse::sysfs_int(*pkg_text) : std::nullopt;
      const auto core = core_text ? parse::sysfs_int(*core_text) : std::nullopt;
      if (!pkg || !core) {
        complete = false;
        break;
      }
      s2.insert(*pkg);
      c2.insert({*pkg, *core});
    }
    if (complete && !info.processors.empty()) {
      sockets = std::move(s2);
      cores = std::move(c2);
    }
  }

  if (!sockets.empty()) {
    out.sockets = static_cast<int>(sockets.size());
  } else {
    out.sockets = Fact<int>::unknown(
        "neither /proc/cpuinfo (physical id) nor /sys/devices/system/cpu/*/topology says which socket each CPU is on");
  }
  if (!cores.empty()) {
    out.cores = static_cast<int>(cores.size());
  } else if (cores_per_socket && !sockets.empty()) {
    out.cores = *cores_per_socket * static_cast<int>(sockets.size());
  } else {
    out.cores = Fact<int>::unknown(fmt::format(
        "neither /proc/cpuinfo (core id) nor /sys/devices/system/cpu/*/topology gives core ids; "
        "there are {} logical CPUs",
        threads));
  }
}

void fill_isa(const parse::CpuInfo& info, CpuFacts& out) {
  std::string_view flags;
  for (const auto& p : info.processors)
    if (!p.flags.empty()) {
      flags = p.flags;
      break;
    }
  if (flags.empty()) flags = info.global_flags;
  if (flags.empty()) {
    out.isa = Fact<std::map<std::string, bool>>::unknown("/proc/cpuinfo has no flags or Features line");
    return;
  }
  std::set<std::string_view> words;
  while (!flags.empty()) {
    const size_t sp = flags.find(' ');
    if (sp != 0) words.insert(flags.substr(0, sp));
    if (sp == std::string_view::npos) break;
    flags.remove_prefix(sp + 1);
  }
  std::map<std::string, bool> isa;
  if (info.arm_features) {
    for (const char* f : kArmIsa) isa[f] = words.count(f) > 0;
  } else {
    for (const char* f : kX86Isa) isa[f] = words.count(f) > 0;
  }
  out.isa = std::move(isa);
}

void fill_memory(const Fs& fs, const HostInfo* host, CpuFacts& out) {
  std::string error;
  const auto text = fs.read_file("/proc/meminfo", kMeminfoMax, &error);
  std::map<std::string, std::uint64_t> mem;
  if (text) mem = parse::proc_meminfo(*text);
  const std::string why_total = text ? "/proc/meminfo has no MemTotal line" : "could not read " + error;
  if (auto it = mem.find("MemTotal"); it != mem.end() && it->second > 0) {
    out.ram_bytes = it->second;
  } else if (host && host->ram_bytes) {
    out.ram_bytes = *host->ram_bytes;
  } else {
    out.ram_bytes = Fact<std::uint64_t>::unknown(why_total);
  }
  if (auto it = mem.find("MemAvailable"); it != mem.end()) {
    out.ram_available_bytes = it->second;
  } else {
    out.ram_available_bytes = Fact<std::uint64_t>::unknown(
        text ? "/proc/meminfo has no MemAvailable line (kernels before 3.14 do not write it)" : "could not read " + error);
  }
}

}  // namespace

void collect_cpu_as(const Os& os, OsFamily family, const HostInfo* host, CpuFacts& out) {
  out = CpuFacts{};
  if (family != OsFamily::kLinux) {
    const std::string later = family == OsFamily::kWindows
                                  ? "reading the CPU's cores and instruction sets on Windows is not implemented yet"
                                  : "reading the CPU on macOS is not implemented yet";
    set_all_unknown(out, later);
    if (family == OsFamily::kWindows) {
      // The processor's own name and vendor strings, as Windows copied them from CPUID at boot.
      const std::string key = "HKLM\\HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0";
      if (auto name = os.reg.text(key, "ProcessorNameString")) {
        const std::string n = parse::clean_text(*name);
        if (!n.empty()) out.model = n;
      }
      if (auto vendor = os.reg.text(key, "VendorIdentifier")) {
        const std::string v = parse::clean_text(*vendor);
        if (!v.empty()) out.vendor = v;
      }
    }
    if (host && host->logical_cpus) out.threads = *host->logical_cpus;
    out.ram_bytes = host && host->ram_bytes ? Fact<std::uint64_t>(*host->ram_bytes) : Fact<std::uint64_t>::unknown(later);
    out.ram_available_bytes = Fact<std::uint64_t>::unknown(later);
    return;
  }

  std::string error;
  const auto text = os.fs.read_file("/proc/cpuinfo", kCpuinfoMax, &error);
  if (!text) {
    set_all_unknown(out, "could not read " + error);
    if (host && host->logical_cpus) out.threads = *host->logical_cpus;
  } else {
    const parse::CpuInfo info = parse::proc_cpuinfo(*text);
    if (info.processors.empty()) {
      set_all_unknown(out, text->empty() ? "/proc/cpuinfo is empty" : "/proc/cpuinfo has no processor entries");
      if (host && host->logical_cpus) out.threads = *host->logical_cpus;
      // Some kernels print the flags once outside the blocks; keep what is there.
      if (!info.global_flags.empty()) fill_isa(info, out);
    } else {
      fill_identity(info, out);
      fill_topology(os.fs, info, out);
      fill_isa(info, out);
    }
  }
  fill_memory(os.fs, host, out);
}

}  // namespace detail

void collect_cpu(const Os& os, CpuFacts& out) {
  const HostInfo host = host_info();
  detail::collect_cpu_as(os, detail::build_os_family(), &host, out);
}

}  // namespace gpuready
