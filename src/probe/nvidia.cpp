// collect_nvidia: the NVIDIA driver as NVML and the CUDA driver API see it. Every call is a
// DriverStep in probe order (the order is the diagnosis: no library / no kernel module /
// library-module mismatch / no device). By default the talking happens in a child
// `gpuready __probe-driver` with a timeout, so a driver that hangs or crashes costs a step, not the probe.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <optional>

#include "core/step_log.h"
#include "core/version.h"
#include "parse/clean_text.h"
#include "parse/decompress.h"
#include "parse/driver_version.h"
#include "parse/modules_dep.h"
#include "platform/child.h"
#include "probe/nvidia_driver.h"
#include "probe/windows_registry.h"
#include "vendors/cuda_driver/cuda_loader.h"
#include "vendors/nvml/nvml_loader.h"

namespace gpuready {
namespace {

using SFact = Fact<std::string>;

constexpr size_t kMaxProcVersionBytes = 64 * 1024;
constexpr const char* kProcVersionPath = "/proc/driver/nvidia/version";

// ---------------------------------------------------------------- kernel module

SFact read_kernel_module_version(const Os& os) {
#ifdef _WIN32
  // The display driver's own entry in the registry (nvlddmkm.sys), read without loading anything.
  std::string why;
  return windows::nvidia_driver_version(windows::read_display_adapters(os.reg, &why), why);
#else
  const Fs& fs = os.fs;
  std::string err;
  const auto text = fs.read_file(kProcVersionPath, kMaxProcVersionBytes, &err);
  if (!text)
    return SFact::unknown("the NVIDIA kernel module is not loaded (" + err +
                          "); under WSL2 this file never exists, the Windows driver serves the GPU");
  const auto v = parse::nvidia_module_version(*text);
  if (!v) return SFact::unknown(std::string(kProcVersionPath) + " has no \"NVRM version\" line with a version");
  return SFact(v->version);
#endif
}

// ---------------------------------------------------------------- kernel module files

constexpr size_t kMaxModulesDepBytes = 16u << 20;  // a distribution kernel's modules.dep is ~1 MB
constexpr size_t kMaxKernelDirs = 64;

#ifndef _WIN32  // Windows has no /lib/modules (read_kernel_module_files below)
// The running kernel's release, as collect_os finds it: /proc/sys/kernel/osrelease through the Fs
// (so a fixture tree fixes it), else uname's.
std::optional<std::string> running_kernel_release(const Fs& fs, std::string* why) {
  std::string err;
  if (auto text = fs.read_file("/proc/sys/kernel/osrelease", 4096, &err)) {
    std::string r = parse::clean_text(parse::first_line(*text));
    if (!r.empty() && r.find('/') == std::string::npos) return r;
    err = "/proc/sys/kernel/osrelease: empty";
  }
  const HostInfo host = host_info();
  if (!host.kernel_release.empty()) return host.kernel_release;
  *why = "the running kernel's release is unknown (" + err + "; uname gave none)";
  return std::nullopt;
}

struct KernelDep {
  std::optional<std::string> text_error;          // set when modules.dep could not be read
  std::optional<parse::KernelModuleFile> nvidia;  // the NVIDIA module's entry, if any
};

KernelDep read_modules_dep(const Fs& fs, const std::string& dir) {
  KernelDep d;
  std::string err;
  const auto text = fs.read_file(dir + "/modules.dep", kMaxModulesDepBytes, &err);
  if (!text) {
    d.text_error = err.empty() ? dir + "/modules.dep: could not be read" : err;
    return d;
  }
  d.nvidia = parse::nvidia_module_in_modules_dep(*text);
  return d;
}
#endif

#ifdef _WIN32
void read_kernel_module_files(const Fs& fs, NvidiaDriverFacts& out) {
  (void)fs;
  const std::string why = "Windows has no /lib/modules: its NVIDIA kernel driver is nvlddmkm.sys";
  out.kernel_module_file = SFact::unknown(why);
  out.kernel_module_kernels.clear();
  out.kernel_module_signed = Fact<bool>::unknown(why);
}
#else
// kernel_module_file, kernel_module_kernels and kernel_module_signed from /lib/modules: which
// kernels have an NVIDIA module (DKMS builds one per kernel; a kernel update it missed has none),
// and whether the running kernel's carries a signature (Secure Boot refuses an unsigned one).
void read_kernel_module_files(const Fs& fs, NvidiaDriverFacts& out) {
  out.kernel_module_kernels.clear();
  std::string root = "/lib/modules";
  std::string list_error;
  auto dirs = fs.list_dir(root, &list_error);
  if (!dirs) {
    // A merged-/usr system without the /lib link keeps them under /usr/lib/modules.
    std::string usr_error;
    if (auto usr = fs.list_dir("/usr/lib/modules", &usr_error)) {
      root = "/usr/lib/modules";
      dirs = std::move(usr);
    }
  }
  std::map<std::string, KernelDep> deps;
  if (dirs) {
    std::vector<std::string> names;
    for (const auto& e : *dirs)
      if (e.is_dir && names.size() < kMaxKernelDirs) names.push_back(e.name);
    std::sort(names.begin(), names.end(),
              [](const std::string& a, const std::string& b) { return parse::kernel_release_less(a, b); });
    for (const auto& n : names) {
      KernelDep d = read_modules_dep(fs, root + "/" + n);
      if (d.nvidia) out.kernel_module_kernels.push_back(n);
      deps.emplace(n, std::move(d));
    }
  }

  std::string why;
  const auto release = running_kernel_release(fs, &why);
  if (release) {
    const std::string dir = root + "/" + *release;
    const auto seen = deps.find(*release);
    const KernelDep d = seen != deps.end() ? seen->second : read_modules_dep(fs, dir);
    if (d.text_error) {
      why = "the modules of the running kernel " + *release + " are not readable here (" + *d.text_error +
            "); a container sees the host's kernel but usually not its /lib/modules";
    } else if (!d.nvidia) {
      why = "no nvidia module for kernel " + *release + " in " + dir + "/modules.dep";
    } else {
      const std::string& p = d.nvidia->path;
      const std::string file = p.front() == '/' ? p : dir + "/" + p;
      if (!fs.exists(file)) {
        why = dir + "/modules.dep lists " + p + " but the file is missing (removed without running depmod?)";
        out.kernel_module_file = SFact::unknown(why);
        out.kernel_module_signed = Fact<bool>::unknown("no NVIDIA module file to check: " + why);
        return;
      }
      out.kernel_module_file = SFact(file);
      if (!d.nvidia->compression.empty()) {
        // The signature is appended before compression (DKMS and the kernel's own modules_install):
        // it is at the end of the decompressed bytes. The packed file is read whole (capped).
        const std::string& c = d.nvidia->compression;
        std::string err;
        const auto packed = parse::can_decompress(c) ? fs.read_file(file, 512u << 20, &err) : std::nullopt;
        const auto tail = packed ? parse::decompressed_tail(*packed, c, parse::kModuleSignatureMarker.size(), 2048u << 20, &err)
                                 : std::nullopt;
        if (!parse::can_decompress(c)) err = "this build cannot decompress ." + c;
        out.kernel_module_signed =
            tail ? Fact<bool>(parse::module_signature_appended(*tail))
                 : Fact<bool>::unknown("compressed module (." + c + "), signature not checked: " + err);
      } else {
        const size_t n = parse::kModuleSignatureMarker.size();
        std::string err;
        const auto tail = read_file_tail(fs, out.kernel_module_file.value(), n, &err);
        out.kernel_module_signed =
            tail
                ? Fact<bool>(parse::module_signature_appended(*tail))
                : Fact<bool>::unknown("could not read the end of " + out.kernel_module_file.value() + " (" + err + ")");
      }
      return;
    }
  }
  out.kernel_module_file = SFact::unknown(why);
  out.kernel_module_signed = Fact<bool>::unknown("no NVIDIA module file to check: " + why);
}
#endif

// The user-space library's driver version, from the file the loader mapped
// ("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.580.159.04" behind libnvidia-ml.so.1).
std::optional<std::string> library_file_version(const Fs& fs, const std::optional<std::string>& path) {
  if (!path) return std::nullopt;
  if (auto v = parse::driver_version_from_library_name(*path)) return v;
  if (auto real = fs.canonical(*path)) return parse::driver_version_from_library_name(*real);
  return std::nullopt;
}

std::string mismatch_message(const SFact& module, const std::optional<std::string>& library_version) {
  const std::string m = module ? module.value() : "unknown (" + module.why() + ")";
  const std::string l = library_version ? *library_version : "unknown";
  return "Driver/library version mismatch: the NVIDIA kernel module loaded is " + m +
         " but the user-space library is " + l +
         "; reboot, or reload the nvidia modules (the driver packages were updated while the old module kept "
         "running)";
}

// ---------------------------------------------------------------- NVML

std::optional<std::string> architecture_name(unsigned arch) {
  switch (arch) {
    case NVML_DEVICE_ARCH_KEPLER: return "Kepler";
    case NVML_DEVICE_ARCH_MAXWELL: return "Maxwell";
    case NVML_DEVICE_ARCH_PASCAL: return "Pascal";
    case NVML_DEVICE_ARCH_VOLTA: return "Volta";
    case NVML_DEVICE_ARCH_TURING: return "Turing";
    case NVML_DEVICE_ARCH_AMPERE: return "Ampere";
    case NVML_DEVICE_ARCH_ADA: return "Ada Lovelace";
    case NVML_DEVICE_ARCH_HOPPER: return "Hopper";
    case NVML_DEVICE_ARCH_BLACKWELL: return "Blackwell";
    case NVML_DEVICE_ARCH_T23X: return "Orin";
    default: return std::nullopt;
  }
}

// For drivers without nvmlDeviceGetArchitecture, or GPUs newer than the driver's enum.
std::optional<std::string> architecture_from_cc(int major, int minor) {
  switch (major) {
    case 3: return "Kepler";
    case 5: return "Maxwell";
    case 6: return "Pascal";
    case 7: return minor >= 5 ? "Turing" : "Volta";
    case 8: return minor == 9 ? "Ada Lovelace" : "Ampere";
    case 9: return "Hopper";
    case 10:
    case 11:
    case 12: return "Blackwell";
    default: return std::nullopt;
  }
}

struct PciLocation {
  bool known = false;
  unsigned domain = 0, bus = 0, device = 0;
};

class NvmlQuery {
 public:
  NvmlQuery(const nvml::Library& lib) : lib_(lib), file_(path_file_name(lib.path.value_or(lib.candidate))) {}
  const nvml::Api& api() const { return lib_.api; }
  std::string missing(const char* fn) const { return std::string(fn) + " is missing from " + file_ + " (driver too old?)"; }
  std::string failed(const char* fn, nvmlReturn_t rc) const {
    const std::string name = nvml::return_name(rc);
    switch (rc) {
      case NVML_ERROR_NOT_SUPPORTED: return "not supported on this GPU or driver (" + std::string(fn) + ": " + name + ")";
      case NVML_ERROR_NO_PERMISSION: return "permission denied (" + std::string(fn) + ": " + name + ")";
      case NVML_ERROR_GPU_IS_LOST:
        return "the GPU has fallen off the bus or stopped answering (" + std::string(fn) + ": " + name +
               "); check dmesg for Xid errors";
      default: return std::string(fn) + " failed: " + words(rc) + " (" + name + ")";
    }
  }
  std::string words(nvmlReturn_t rc) const {
    const char* s = lib_.api.nvmlErrorString ? lib_.api.nvmlErrorString(rc) : nullptr;
    return s && *s ? std::string(s) : nvml::return_name(rc);
  }

 private:
  const nvml::Library& lib_;
  std::string file_;
};

// One query returning an unsigned int: Fact<int> known, or why not.
// Windows' driver model: WDDM (the GPU can drive displays; kernels are cut off by the TDR watchdog
// after 2 s by default), TCC (compute only), MCDM. A pending model other than the current one
// takes effect at the next reboot. NVML answers NOT_SUPPORTED on Linux.
SFact driver_model(const NvmlQuery& q, nvmlDevice_t dev) {
  const auto& a = q.api();
  if (!a.nvmlDeviceGetDriverModel) return SFact::unknown(q.missing("nvmlDeviceGetDriverModel"));
  nvmlDriverModel_t cur = NVML_DRIVER_WDDM, pending = NVML_DRIVER_WDDM;
  const nvmlReturn_t rc = a.nvmlDeviceGetDriverModel(dev, &cur, &pending);
  if (rc == NVML_ERROR_NOT_SUPPORTED)
    return SFact::unknown(
        "WDDM and TCC are Windows driver models (nvmlDeviceGetDriverModel: NVML_ERROR_NOT_SUPPORTED)");
  if (rc != NVML_SUCCESS) return SFact::unknown(q.failed("nvmlDeviceGetDriverModel", rc));
  auto name = [](nvmlDriverModel_t m) -> std::string {
    switch (m) {
      case NVML_DRIVER_WDDM:
        return "WDDM";
      case NVML_DRIVER_WDM:
        return "TCC";
      case NVML_DRIVER_MCDM:
        return "MCDM";
    }
    return "model " + std::to_string(static_cast<int>(m));
  };
  return SFact(cur == pending ? name(cur) : name(cur) + " (" + name(pending) + " after a reboot)");
}

template <class Fn, class... Args>
Fact<int> uint_fact(const NvmlQuery& q, Fn fn, const char* fn_name, nvmlDevice_t dev, Args... args) {
  if (!fn) return Fact<int>::unknown(q.missing(fn_name));
  unsigned int v = 0;
  const nvmlReturn_t rc = fn(dev, args..., &v);
  if (rc != NVML_SUCCESS) return Fact<int>::unknown(q.failed(fn_name, rc));
  return Fact<int>(static_cast<int>(v));
}

// nvmlDeviceGetTotalEccErrors for one error type and period. A GPU with ECC off (or without ECC:
// GeForce) answers NVML_ERROR_NOT_SUPPORTED; with ECC known to be off the reason says that instead.
Fact<std::uint64_t> ecc_errors(const NvmlQuery& q, nvmlDevice_t dev, const Fact<bool>& ecc_enabled,
                               nvmlMemoryErrorType_t type, nvmlEccCounterType_t counter) {
  using F = Fact<std::uint64_t>;
  const auto fn = q.api().nvmlDeviceGetTotalEccErrors;
  if (!fn) return F::unknown(q.missing("nvmlDeviceGetTotalEccErrors"));
  unsigned long long v = 0;
  const nvmlReturn_t rc = fn(dev, type, counter, &v);
  if (rc == NVML_SUCCESS) return F(static_cast<std::uint64_t>(v));
  if (rc == NVML_ERROR_NOT_SUPPORTED && ecc_enabled && !ecc_enabled.value())
    return F::unknown("ECC is off on this GPU, so it counts no ECC errors (nvmlDeviceGetTotalEccErrors: " +
                      nvml::return_name(rc) + ")");
  return F::unknown(q.failed("nvmlDeviceGetTotalEccErrors", rc));
}

// How many pages were retired for one cause (page retirement: Kepler to Turing; Ampere and newer
// remap rows instead and answer NVML_ERROR_NOT_SUPPORTED). Only the count is asked: pageCount 0
// and no address buffer, answered with NVML_SUCCESS (none) or NVML_ERROR_INSUFFICIENT_SIZE (some).
Fact<int> retired_pages(const NvmlQuery& q, nvmlDevice_t dev, nvmlPageRetirementCause_t cause) {
  const auto fn = q.api().nvmlDeviceGetRetiredPages;
  if (!fn) return Fact<int>::unknown(q.missing("nvmlDeviceGetRetiredPages"));
  unsigned int count = 0;
  const nvmlReturn_t rc = fn(dev, cause, &count, nullptr);
  if (rc != NVML_SUCCESS && rc != NVML_ERROR_INSUFFICIENT_SIZE)
    return Fact<int>::unknown(q.failed("nvmlDeviceGetRetiredPages", rc));
  return Fact<int>(static_cast<int>(count));
}

// ECC error counters, page retirement and row remapping: the memory-health facts.
void memory_health(const NvmlQuery& q, nvmlDevice_t dev, NvidiaGpu& g) {
  const nvml::Api& a = q.api();
  g.ecc_uncorrected_volatile = ecc_errors(q, dev, g.ecc_enabled, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC);
  g.ecc_uncorrected_aggregate =
      ecc_errors(q, dev, g.ecc_enabled, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC);
  g.ecc_corrected_volatile = ecc_errors(q, dev, g.ecc_enabled, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC);

  g.retired_pages_sbe = retired_pages(q, dev, NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS);
  g.retired_pages_dbe = retired_pages(q, dev, NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR);
  if (!a.nvmlDeviceGetRetiredPagesPendingStatus) {
    g.retired_pages_pending = Fact<bool>::unknown(q.missing("nvmlDeviceGetRetiredPagesPendingStatus"));
  } else {
    nvmlEnableState_t pending = NVML_FEATURE_DISABLED;
    const nvmlReturn_t rc = a.nvmlDeviceGetRetiredPagesPendingStatus(dev, &pending);
    g.retired_pages_pending = rc == NVML_SUCCESS
                                  ? Fact<bool>(pending == NVML_FEATURE_ENABLED)
                                  : Fact<bool>::unknown(q.failed("nvmlDeviceGetRetiredPagesPendingStatus", rc));
  }

  // One call, four facts. MIG mode with instances also answers NVML_ERROR_NOT_SUPPORTED.
  std::string why;
  unsigned int corr = 0, unc = 0, pending = 0, failed = 0;
  if (!a.nvmlDeviceGetRemappedRows) {
    why = q.missing("nvmlDeviceGetRemappedRows");
  } else if (const nvmlReturn_t rc = a.nvmlDeviceGetRemappedRows(dev, &corr, &unc, &pending, &failed);
             rc != NVML_SUCCESS) {
    why = q.failed("nvmlDeviceGetRemappedRows", rc);
  }
  if (why.empty()) {
    g.remapped_rows_correctable = Fact<int>(static_cast<int>(corr));
    g.remapped_rows_uncorrectable = Fact<int>(static_cast<int>(unc));
    g.row_remap_pending = Fact<bool>(pending != 0);
    g.row_remap_failed = Fact<bool>(failed != 0);
  } else {
    g.remapped_rows_correctable = Fact<int>::unknown(why);
    g.remapped_rows_uncorrectable = Fact<int>::unknown(why);
    g.row_remap_pending = Fact<bool>::unknown(why);
    g.row_remap_failed = Fact<bool>::unknown(why);
  }
}

NvidiaGpu nvml_gpu(const NvmlQuery& q, unsigned index, nvmlDevice_t dev, PciLocation& loc) {
  const nvml::Api& a = q.api();
  NvidiaGpu g;
  g.index = static_cast<int>(index);

  auto text_fact = [&](auto fn, const char* fn_name, unsigned size) -> SFact {
    if (!fn) return SFact::unknown(q.missing(fn_name));
    std::string buf(size, '\0');
    const nvmlReturn_t rc = fn(dev, buf.data(), size);
    if (rc != NVML_SUCCESS) return SFact::unknown(q.failed(fn_name, rc));
    buf.resize(buf.find('\0') == std::string::npos ? size : buf.find('\0'));
    return SFact(buf);
  };
  g.name = text_fact(a.nvmlDeviceGetName, "nvmlDeviceGetName", NVML_DEVICE_NAME_V2_BUFFER_SIZE);
  g.uuid = text_fact(a.nvmlDeviceGetUUID, "nvmlDeviceGetUUID", NVML_DEVICE_UUID_V2_BUFFER_SIZE);

  {
    const auto fn = a.nvmlDeviceGetPciInfo_v3 ? a.nvmlDeviceGetPciInfo_v3 : a.nvmlDeviceGetPciInfo_v2;
    const char* fn_name = a.nvmlDeviceGetPciInfo_v3 ? "nvmlDeviceGetPciInfo_v3" : "nvmlDeviceGetPciInfo_v2";
    nvmlPciInfo_t pci{};
    if (!fn) {
      g.pci_bus_id = SFact::unknown(q.missing("nvmlDeviceGetPciInfo_v3"));
    } else if (const nvmlReturn_t rc = fn(dev, &pci); rc != NVML_SUCCESS) {
      g.pci_bus_id = SFact::unknown(q.failed(fn_name, rc));
    } else {
      pci.busId[sizeof pci.busId - 1] = '\0';
      pci.busIdLegacy[sizeof pci.busIdLegacy - 1] = '\0';
      g.pci_bus_id = SFact(pci.busId[0] ? pci.busId : pci.busIdLegacy);
      loc = PciLocation{true, pci.domain, pci.bus, pci.device};
    }
  }

  if (!a.nvmlDeviceGetMemoryInfo) {
    g.memory_total_bytes = Fact<std::uint64_t>::unknown(q.missing("nvmlDeviceGetMemoryInfo"));
    g.memory_used_bytes = g.memory_total_bytes;
  } else {
    nvmlMemory_t m{};
    if (const nvmlReturn_t rc = a.nvmlDeviceGetMemoryInfo(dev, &m); rc != NVML_SUCCESS) {
      g.memory_total_bytes = Fact<std::uint64_t>::unknown(q.failed("nvmlDeviceGetMemoryInfo", rc));
      g.memory_used_bytes = g.memory_total_bytes;
    } else {
      g.memory_total_bytes = Fact<std::uint64_t>(m.total);
      g.memory_used_bytes = Fact<std::uint64_t>(m.used);
    }
  }

  std::optional<std::pair<int, int>> cc;
  if (!a.nvmlDeviceGetCudaComputeCapability) {
    g.compute_capability = SFact::unknown(q.missing("nvmlDeviceGetCudaComputeCapability"));
  } else {
    int major = 0, minor = 0;
    if (const nvmlReturn_t rc = a.nvmlDeviceGetCudaComputeCapability(dev, &major, &minor); rc != NVML_SUCCESS) {
      g.compute_capability = SFact::unknown(q.failed("nvmlDeviceGetCudaComputeCapability", rc));
    } else {
      cc = std::make_pair(major, minor);
      g.compute_capability = SFact(fmt::format("{}.{}", major, minor));
    }
  }

  {
    std::string why;
    if (!a.nvmlDeviceGetArchitecture) {
      why = q.missing("nvmlDeviceGetArchitecture");
    } else {
      nvmlDeviceArchitecture_t arch = 0;
      if (const nvmlReturn_t rc = a.nvmlDeviceGetArchitecture(dev, &arch); rc != NVML_SUCCESS) {
        why = q.failed("nvmlDeviceGetArchitecture", rc);
      } else if (auto n = architecture_name(arch)) {
        g.architecture = SFact(*n);
      } else {
        why = fmt::format("NVML names an architecture this gpuready does not know ({})", arch);
      }
    }
    if (!g.architecture) {
      // The compute capability names the architecture just as well.
      if (auto n = cc ? architecture_from_cc(cc->first, cc->second) : std::nullopt)
        g.architecture = SFact(*n);
      else
        g.architecture = SFact::unknown(why);
    }
  }

  g.pcie_gen_current = uint_fact(q, a.nvmlDeviceGetCurrPcieLinkGeneration, "nvmlDeviceGetCurrPcieLinkGeneration", dev);
  g.pcie_gen_max = uint_fact(q, a.nvmlDeviceGetMaxPcieLinkGeneration, "nvmlDeviceGetMaxPcieLinkGeneration", dev);
  g.pcie_gen_gpu_max =
      uint_fact(q, a.nvmlDeviceGetGpuMaxPcieLinkGeneration, "nvmlDeviceGetGpuMaxPcieLinkGeneration", dev);
  g.pcie_width_current = uint_fact(q, a.nvmlDeviceGetCurrPcieLinkWidth, "nvmlDeviceGetCurrPcieLinkWidth", dev);
  g.pcie_width_max = uint_fact(q, a.nvmlDeviceGetMaxPcieLinkWidth, "nvmlDeviceGetMaxPcieLinkWidth", dev);

  if (!a.nvmlDeviceGetPersistenceMode) {
    g.persistence_mode = Fact<bool>::unknown(q.missing("nvmlDeviceGetPersistenceMode"));
  } else {
    nvmlEnableState_t s = NVML_FEATURE_DISABLED;
    const nvmlReturn_t rc = a.nvmlDeviceGetPersistenceMode(dev, &s);
    g.persistence_mode = rc == NVML_SUCCESS ? Fact<bool>(s == NVML_FEATURE_ENABLED)
                                            : Fact<bool>::unknown(q.failed("nvmlDeviceGetPersistenceMode", rc));
  }
  g.driver_model = driver_model(q, dev);
  if (!a.nvmlDeviceGetEccMode) {
    g.ecc_enabled = Fact<bool>::unknown(q.missing("nvmlDeviceGetEccMode"));
  } else {
    nvmlEnableState_t cur = NVML_FEATURE_DISABLED, pending = NVML_FEATURE_DISABLED;
    const nvmlReturn_t rc = a.nvmlDeviceGetEccMode(dev, &cur, &pending);
    g.ecc_enabled = rc == NVML_SUCCESS ? Fact<bool>(cur == NVML_FEATURE_ENABLED)
                                       : Fact<bool>::unknown(q.failed("nvmlDeviceGetEccMode", rc));
  }
  memory_health(q, dev, g);

  {
    // R535 renamed "throttle reasons" to "clocks event reasons"; same ABI, same bits.
    const bool events = a.nvmlDeviceGetCurrentClocksEventReasons != nullptr;
    const auto fn = events ? a.nvmlDeviceGetCurrentClocksEventReasons : a.nvmlDeviceGetCurrentClocksThrottleReasons;
    const char* fn_name = events ? "nvmlDeviceGetCurrentClocksEventReasons" : "nvmlDeviceGetCurrentClocksThrottleReasons";
    unsigned long long mask = 0;
    if (!fn) {
      g.clocks_event_reasons = Fact<std::vector<std::string>>::unknown(q.missing("nvmlDeviceGetCurrentClocksEventReasons"));
    } else if (const nvmlReturn_t rc = fn(dev, &mask); rc != NVML_SUCCESS) {
      g.clocks_event_reasons = Fact<std::vector<std::string>>::unknown(q.failed(fn_name, rc));
    } else {
      g.clocks_event_reasons = Fact<std::vector<std::string>>(nvml::clock_reason_names(mask));
    }
  }

  if (!a.nvmlDeviceGetUtilizationRates) {
    g.utilization_percent = Fact<int>::unknown(q.missing("nvmlDeviceGetUtilizationRates"));
  } else {
    nvmlUtilization_t u{};
    const nvmlReturn_t rc = a.nvmlDeviceGetUtilizationRates(dev, &u);
    g.utilization_percent = rc == NVML_SUCCESS ? Fact<int>(static_cast<int>(u.gpu))
                                               : Fact<int>::unknown(q.failed("nvmlDeviceGetUtilizationRates", rc));
  }
  g.temperature_c = uint_fact(q, a.nvmlDeviceGetTemperature, "nvmlDeviceGetTemperature", dev, NVML_TEMPERATURE_GPU);
  auto watts = [](const Fact<int>& mw) {
    return mw ? Fact<double>(static_cast<unsigned>(mw.value()) / 1000.0) : Fact<double>::unknown(mw.why());
  };
  g.power_draw_w = watts(uint_fact(q, a.nvmlDeviceGetPowerUsage, "nvmlDeviceGetPowerUsage", dev));
  g.power_limit_w = watts(uint_fact(q, a.nvmlDeviceGetEnforcedPowerLimit, "nvmlDeviceGetEnforcedPowerLimit", dev));
  g.sm_clock_mhz = uint_fact(q, a.nvmlDeviceGetClockInfo, "nvmlDeviceGetClockInfo", dev, NVML_CLOCK_SM);
  g.memory_clock_mhz = uint_fact(q, a.nvmlDeviceGetClockInfo, "nvmlDeviceGetClockInfo", dev, NVML_CLOCK_MEM);
  g.sm_clock_max_mhz = uint_fact(q, a.nvmlDeviceGetMaxClockInfo, "nvmlDeviceGetMaxClockInfo", dev, NVML_CLOCK_SM);
  g.memory_clock_max_mhz = uint_fact(q, a.nvmlDeviceGetMaxClockInfo, "nvmlDeviceGetMaxClockInfo", dev, NVML_CLOCK_MEM);
  g.memory_bus_width_bits = uint_fact(q, a.nvmlDeviceGetMemoryBusWidth, "nvmlDeviceGetMemoryBusWidth", dev);
  return g;
}

struct NvmlOutcome {
  bool listed = false;              // NVML answered a device count
  int count = 0;
  std::string why_not;              // why NVML facts are unknown (when !listed)
  std::vector<PciLocation> pci;     // parallel to out.gpus
};

NvmlOutcome probe_nvml(const Os& os, const ProbeOptions& opts, NvidiaDriverFacts& out, StepLog& steps) {
  NvmlOutcome res;
  const auto candidates = opts.nvml_candidates.empty() ? nvml::default_candidates(os.env) : opts.nvml_candidates;
  const std::string lib_label = candidates.empty() ? std::string("NVML") : path_file_name(candidates.front());

  auto unknown_all = [&](const std::string& why) {
    res.why_not = why;
    out.driver_version = SFact::unknown(why);
    if (!out.cuda_driver_version) out.cuda_driver_version = SFact::unknown(why);
    out.nvml_device_count = Fact<int>::unknown(why);
  };

  steps.begin("load " + lib_label);
  std::string load_error;
  auto lib = nvml::load(os, candidates, &load_error);
  if (!lib) {
    steps.end(false, "library_not_found",
              "The NVIDIA management library (" + lib_label +
                  ") was not found: no NVIDIA driver is installed, or its user-space libraries are missing. "
                  "Loader: " + load_error);
    out.nvml_library = SFact::unknown("not found by the loader: " + load_error);
    unknown_all("no NVIDIA driver library (" + lib_label + " not found)");
    return res;
  }
  out.nvml_library = lib->path ? SFact(*lib->path) : SFact(lib->candidate);
  steps.end(true, "", "loaded " + out.nvml_library.value());
  const NvmlQuery q(*lib);
  const nvml::Api& a = lib->api;

  steps.begin("nvmlInit_v2");
  if (!a.nvmlInit_v2) {
    steps.end(false, "symbol_missing", q.missing("nvmlInit_v2") + ": this is not a usable NVML library");
    unknown_all(q.missing("nvmlInit_v2"));
    nvml::unload(os.dl, *lib);
    return res;
  }
  const nvmlReturn_t init = a.nvmlInit_v2();
  if (init != NVML_SUCCESS) {
    std::string msg;
    switch (init) {
      case NVML_ERROR_LIB_RM_VERSION_MISMATCH:
        msg = mismatch_message(out.kernel_module_version, library_file_version(os.fs, lib->path));
        break;
      case NVML_ERROR_DRIVER_NOT_LOADED:
        msg = "The NVIDIA kernel driver is not loaded (NVML: \"" + q.words(init) +
              "\"): the user-space driver is installed but its kernel module is not running - typically a kernel "
              "update without a rebuilt module (DKMS), Secure Boot rejecting the unsigned module, or nouveau "
              "holding the GPU";
        break;
      case NVML_ERROR_NO_PERMISSION:
        msg = "Permission denied opening the NVIDIA device files (/dev/nvidia*): \"" + q.words(init) + "\"";
        break;
      default:
        msg = "nvmlInit_v2 failed: \"" + q.words(init) + "\"";
    }
    steps.end(false, nvml::return_name(init), msg);
    unknown_all("NVML could not start (" + nvml::return_name(init) + ")");
    nvml::unload(os.dl, *lib);
    return res;
  }
  steps.end(true, "NVML_SUCCESS", "NVML initialised");

  steps.begin("nvmlSystemGetDriverVersion");
  if (!a.nvmlSystemGetDriverVersion) {
    out.driver_version = SFact::unknown(q.missing("nvmlSystemGetDriverVersion"));
    steps.end(false, "symbol_missing", out.driver_version.why());
  } else {
    char buf[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = {};
    const nvmlReturn_t rc = a.nvmlSystemGetDriverVersion(buf, sizeof buf);
    buf[sizeof buf - 1] = '\0';
    if (rc == NVML_SUCCESS) {
      out.driver_version = SFact(std::string(buf));
      steps.end(true, "NVML_SUCCESS", "driver " + out.driver_version.value());
    } else {
      out.driver_version = SFact::unknown(q.failed("nvmlSystemGetDriverVersion", rc));
      steps.end(false, nvml::return_name(rc), out.driver_version.why());
    }
  }

  {
    const bool v2 = a.nvmlSystemGetCudaDriverVersion_v2 != nullptr;
    const auto fn = v2 ? a.nvmlSystemGetCudaDriverVersion_v2 : a.nvmlSystemGetCudaDriverVersion;
    const char* fn_name = v2 ? "nvmlSystemGetCudaDriverVersion_v2" : "nvmlSystemGetCudaDriverVersion";
    steps.begin(fn_name);
    int v = 0;
    if (!fn) {
      out.cuda_driver_version = SFact::unknown(q.missing("nvmlSystemGetCudaDriverVersion_v2"));
      steps.end(false, "symbol_missing", out.cuda_driver_version.why());
    } else if (const nvmlReturn_t rc = fn(&v); rc != NVML_SUCCESS) {
      out.cuda_driver_version = SFact::unknown(q.failed(fn_name, rc));
      steps.end(false, nvml::return_name(rc), out.cuda_driver_version.why());
    } else {
      out.cuda_driver_version = SFact(Version::from_cuda_int(v).str());
      steps.end(true, "NVML_SUCCESS", fmt::format("newest CUDA this driver supports: {} ({})", out.cuda_driver_version.value(), v));
    }
  }

  steps.begin("nvmlDeviceGetCount_v2");
  unsigned count = 0;
  if (!a.nvmlDeviceGetCount_v2) {
    res.why_not = q.missing("nvmlDeviceGetCount_v2");
    out.nvml_device_count = Fact<int>::unknown(res.why_not);
    steps.end(false, "symbol_missing", res.why_not);
  } else if (const nvmlReturn_t rc = a.nvmlDeviceGetCount_v2(&count); rc != NVML_SUCCESS) {
    res.why_not = q.failed("nvmlDeviceGetCount_v2", rc);
    out.nvml_device_count = Fact<int>::unknown(res.why_not);
    steps.end(false, nvml::return_name(rc), res.why_not);
  } else {
    res.listed = true;
    res.count = static_cast<int>(count);
    out.nvml_device_count = Fact<int>(res.count);
    steps.end(true, "NVML_SUCCESS",
              count == 0 ? std::string("the driver is loaded but sees no NVIDIA GPU")
                         : fmt::format("{} GPU{}", count, count == 1 ? "" : "s"));
  }

  for (unsigned i = 0; i < count && i < 64; ++i) {
    steps.begin(fmt::format("GPU {} (nvmlDeviceGetHandleByIndex_v2 and queries)", i));
    nvmlDevice_t dev = nullptr;
    if (!a.nvmlDeviceGetHandleByIndex_v2) {
      steps.end(false, "symbol_missing", q.missing("nvmlDeviceGetHandleByIndex_v2"));
      break;
    }
    if (const nvmlReturn_t rc = a.nvmlDeviceGetHandleByIndex_v2(i, &dev); rc != NVML_SUCCESS) {
      // A GPU NVML counts but cannot open (lost, no permission on its /dev/nvidiaN): say so, keep the others.
      steps.end(false, nvml::return_name(rc), q.failed("nvmlDeviceGetHandleByIndex_v2", rc));
      continue;
    }
    PciLocation loc;
    NvidiaGpu g = nvml_gpu(q, i, dev, loc);
    steps.end(true, "NVML_SUCCESS",
              g.name.value_or("(name unknown)") + (g.pci_bus_id ? " at " + g.pci_bus_id.value() : std::string()));
    out.gpus.push_back(std::move(g));
    res.pci.push_back(loc);
  }

  if (a.nvmlShutdown) a.nvmlShutdown();
  nvml::unload(os.dl, *lib);
  return res;
}

// ---------------------------------------------------------------- CUDA driver API

std::string cuda_failure_message(const cuda_driver::Api& a, const char* fn, int rc, const NvmlOutcome& nv,
                                 const SFact& visible) {
  const std::string name = cuda_driver::result_name(&a, rc);
  const std::string words = cuda_driver::result_string(&a, rc);
  const std::string said = words.empty() ? name : "\"" + words + "\" (" + name + ")";
  switch (rc) {
    case CUDA_ERROR_NO_DEVICE:
      if (visible && nv.listed && nv.count > 0)
        return fmt::format("The CUDA driver sees no GPU ({}) while NVML lists {}: CUDA_VISIBLE_DEVICES=\"{}\" hides {}",
                           name, nv.count, visible.value(), nv.count == 1 ? "it" : "them");
      if (nv.listed && nv.count == 0)
        return "The driver is installed but there is no NVIDIA GPU it can use (" + name +
               "): none is present, it is disabled or passed to a VM, or the driver does not support it";
      return "The CUDA driver found no usable GPU: " + said;
    case CUDA_ERROR_STUB_LIBRARY:
      return "The libcuda that loaded is the CUDA toolkit's stub (lib64/stubs), not the driver's: " + said +
             "; remove the stubs folder from LD_LIBRARY_PATH";
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
      return "libcuda and the NVIDIA kernel module are from different driver versions: " + said +
             "; reboot, or remove a stale CUDA forward-compatibility libcuda";
    case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
      return "A CUDA forward-compatibility libcuda is in use but this GPU does not support it: " + said;
    case CUDA_ERROR_NOT_PERMITTED:
    case CUDA_ERROR_OPERATING_SYSTEM:
      return std::string(fn) + " was refused by the system: " + said + " (device-file permissions, cgroups, or a container without the GPU)";
    default:
      return std::string(fn) + " failed: " + said;
  }
}

int cuda_attr(const cuda_driver::Api& a, CUdevice_attribute attr, CUdevice dev, bool* ok) {
  int v = 0;
  if (!a.cuDeviceGetAttribute || a.cuDeviceGetAttribute(&v, attr, dev) != CUDA_SUCCESS) {
    *ok = false;
    return 0;
  }
  return v;
}

bool should_init(const ProbeOptions& opts, const NvmlOutcome& nv, std::string* why_skipped) {
  switch (opts.cuda_init) {
    case CudaInitPolicy::always: return true;
    case CudaInitPolicy::never:
      *why_skipped = "cuInit was not called (--no-cuda)";
      return false;
    case CudaInitPolicy::automatic:
      if (nv.listed && nv.count > 0) {
        *why_skipped = fmt::format(
            "cuInit was not called: NVML already listed {} GPU{} (cuInit costs ~0.2 s; `gpuready probe --cuda` calls it)",
            nv.count, nv.count == 1 ? "" : "s");
        return false;
      }
      return true;
  }
  return true;
}

void probe_cuda(const Os& os, const ProbeOptions& opts, NvidiaDriverFacts& out, const NvmlOutcome& nv, StepLog& steps) {
  const auto candidates = opts.cuda_candidates.empty() ? cuda_driver::default_candidates(os.env) : opts.cuda_candidates;
  const std::string lib_label = candidates.empty() ? std::string("libcuda") : path_file_name(candidates.front());

  auto per_gpu_unknown = [&](const std::string& why) {
    for (auto& g : out.gpus) {
      g.sm_count = Fact<int>::unknown(why);
      g.cuda_ordinal = Fact<int>::unknown(why);
    }
  };

  steps.begin("load " + lib_label);
  std::string load_error;
  auto lib = cuda_driver::load(os, candidates, &load_error);
  if (!lib) {
    steps.end(false, "library_not_found", cuda_driver::library_not_found(lib_label, load_error));
    out.cuda_library = SFact::unknown("not found by the loader: " + load_error);
    const std::string why = "no CUDA driver library (" + lib_label + " not found)";
    out.cuda_init = SFact::unknown(why);
    out.cuda_device_count = Fact<int>::unknown(why);
    if (!out.cuda_driver_version) out.cuda_driver_version = SFact::unknown(why);
    per_gpu_unknown(why);
    return;
  }
  out.cuda_library = lib->path ? SFact(*lib->path) : SFact(lib->candidate);
  steps.end(true, "", cuda_driver::library_loaded(out.cuda_library.value(), lib->resolved_via));
  const cuda_driver::Api& a = lib->api;
  const std::string file = path_file_name(lib->path.value_or(lib->candidate));
  auto missing = [&](const char* fn) { return cuda_driver::entry_point_missing(fn, file); };

  steps.begin("cuDriverGetVersion");
  if (!a.cuDriverGetVersion) {
    steps.end(false, "symbol_missing", missing("cuDriverGetVersion"));
  } else {
    int v = 0;
    const int rc = a.cuDriverGetVersion(&v);
    if (rc == CUDA_SUCCESS) {
      const std::string s = Version::from_cuda_int(v).str();
      if (!out.cuda_driver_version) out.cuda_driver_version = SFact(s);
      steps.end(true, "CUDA_SUCCESS", fmt::format("newest CUDA this driver supports: {} ({})", s, v));
    } else {
      steps.end(false, cuda_driver::result_name(&a, rc), cuda_failure_message(a, "cuDriverGetVersion", rc, nv, out.cuda_visible_devices));
    }
  }

  std::string why_skipped;
  if (!should_init(opts, nv, &why_skipped)) {
    steps.note("cuInit", true, "skipped", why_skipped);
    out.cuda_init = SFact::unknown(why_skipped);
    out.cuda_device_count = Fact<int>::unknown(why_skipped);
    per_gpu_unknown(why_skipped);
    cuda_driver::unload(os.dl, *lib);  // nothing ran inside it: safe to unmap
    return;
  }

  // From here libcuda stays mapped: after cuInit it may own threads, and unmapping it under them crashes.
  steps.begin("cuInit");
  if (!a.cuInit) {
    out.cuda_init = SFact::unknown(missing("cuInit"));
    steps.end(false, "symbol_missing", out.cuda_init.why());
    out.cuda_device_count = Fact<int>::unknown(out.cuda_init.why());
    per_gpu_unknown(out.cuda_init.why());
    return;
  }
  const int init = a.cuInit(0);
  out.cuda_init = SFact(cuda_driver::result_name(&a, init));
  if (init != CUDA_SUCCESS) {
    const std::string msg = cuda_failure_message(a, "cuInit", init, nv, out.cuda_visible_devices);
    steps.end(false, out.cuda_init.value(), msg);
    // cuInit reporting no device is itself the answer: CUDA sees zero GPUs.
    out.cuda_device_count = init == CUDA_ERROR_NO_DEVICE ? Fact<int>(0) : Fact<int>::unknown("cuInit failed: " + out.cuda_init.value());
    per_gpu_unknown(init == CUDA_ERROR_NO_DEVICE ? std::string("not visible to CUDA (cuInit: CUDA_ERROR_NO_DEVICE)")
                                                 : "cuInit failed: " + out.cuda_init.value());
    return;
  }
  steps.end(true, "CUDA_SUCCESS", "the CUDA driver initialised");

  steps.begin("cuDeviceGetCount");
  int count = 0;
  if (!a.cuDeviceGetCount) {
    out.cuda_device_count = Fact<int>::unknown(missing("cuDeviceGetCount"));
    steps.end(false, "symbol_missing", out.cuda_device_count.why());
    per_gpu_unknown(out.cuda_device_count.why());
    return;
  }
  if (const int rc = a.cuDeviceGetCount(&count); rc != CUDA_SUCCESS) {
    out.cuda_device_count = Fact<int>::unknown(cuda_failure_message(a, "cuDeviceGetCount", rc, nv, out.cuda_visible_devices));
    steps.end(false, cuda_driver::result_name(&a, rc), out.cuda_device_count.why());
    per_gpu_unknown(out.cuda_device_count.why());
    return;
  }
  out.cuda_device_count = Fact<int>(count);
  steps.end(true, "CUDA_SUCCESS", fmt::format("CUDA sees {} device{}", count, count == 1 ? "" : "s"));

  const std::string not_listed = out.cuda_visible_devices
                                     ? "not visible to CUDA (CUDA_VISIBLE_DEVICES=\"" + out.cuda_visible_devices.value() + "\")"
                                     : std::string("CUDA did not list this GPU");
  for (auto& g : out.gpus) {
    g.sm_count = Fact<int>::unknown(not_listed);
    g.cuda_ordinal = Fact<int>::unknown(not_listed);
  }
  const bool nvml_has_gpus = !out.gpus.empty();
  for (int ord = 0; ord < count && ord < 64; ++ord) {
    steps.begin(fmt::format("CUDA device {} (cuDeviceGet and attributes)", ord));
    CUdevice dev = 0;
    if (!a.cuDeviceGet || a.cuDeviceGet(&dev, ord) != CUDA_SUCCESS) {
      steps.end(false, "CUDA_ERROR_INVALID_DEVICE", fmt::format("cuDeviceGet({}) failed", ord));
      continue;
    }
    bool pci_ok = true;
    const unsigned domain = static_cast<unsigned>(cuda_attr(a, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, dev, &pci_ok));
    const unsigned bus = static_cast<unsigned>(cuda_attr(a, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, dev, &pci_ok));
    const unsigned device = static_cast<unsigned>(cuda_attr(a, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, dev, &pci_ok));
    bool sm_ok = true, bw_ok = true, cc_ok = true;
    const int sms = cuda_attr(a, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev, &sm_ok);
    const int bus_width = cuda_attr(a, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, dev, &bw_ok);
    const int cc_major = cuda_attr(a, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev, &cc_ok);
    const int cc_minor = cuda_attr(a, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev, &cc_ok);
    const std::string bus_id = fmt::format("{:08X}:{:02X}:{:02X}.0", domain, bus, device);

    NvidiaGpu* g = nullptr;
    if (pci_ok) {
      for (size_t k = 0; k < out.gpus.size() && k < nv.pci.size(); ++k) {
        const PciLocation& l = nv.pci[k];
        if (l.known && l.domain == domain && l.bus == bus && l.device == device) g = &out.gpus[k];
      }
    }
    if (!g && !nvml_has_gpus) {
      // NVML could not list GPUs: CUDA's view is all there is.
      NvidiaGpu n;
      n.index = ord;
      const std::string why = nv.why_not.empty() ? std::string("NVML did not list this GPU") : "NVML: " + nv.why_not;
      char name[256] = {};
      n.name = a.cuDeviceGetName && a.cuDeviceGetName(name, sizeof name - 1, dev) == CUDA_SUCCESS ? SFact(std::string(name))
                                                                                                  : SFact::unknown("cuDeviceGetName failed");
      size_t mem = 0;
      n.memory_total_bytes = a.cuDeviceTotalMem_v2 && a.cuDeviceTotalMem_v2(&mem, dev) == CUDA_SUCCESS
                                 ? Fact<std::uint64_t>(mem)
                                 : Fact<std::uint64_t>::unknown("cuDeviceTotalMem failed");
      n.pci_bus_id = pci_ok ? SFact(bus_id) : SFact::unknown("the CUDA driver did not report the PCI location");
      if (cc_ok) {
        n.compute_capability = SFact(fmt::format("{}.{}", cc_major, cc_minor));
        if (auto arch = architecture_from_cc(cc_major, cc_minor)) n.architecture = SFact(*arch);
        else n.architecture = SFact::unknown("an unknown compute capability");
      } else {
        n.compute_capability = SFact::unknown("cuDeviceGetAttribute failed");
        n.architecture = n.compute_capability;
      }
      n.uuid = SFact::unknown(why);
      n.driver_model = SFact::unknown(why);
      n.memory_used_bytes = Fact<std::uint64_t>::unknown(why);
      for (auto* f : {&n.pcie_gen_current, &n.pcie_gen_max, &n.pcie_gen_gpu_max, &n.pcie_width_current,
                      &n.pcie_width_max, &n.retired_pages_sbe, &n.retired_pages_dbe, &n.remapped_rows_correctable,
                      &n.remapped_rows_uncorrectable, &n.utilization_percent, &n.temperature_c, &n.sm_clock_mhz,
                      &n.memory_clock_mhz, &n.sm_clock_max_mhz, &n.memory_clock_max_mhz})
        *f = Fact<int>::unknown(why);
      for (auto* f :
           {&n.persistence_mode, &n.ecc_enabled, &n.retired_pages_pending, &n.row_remap_pending, &n.row_remap_failed})
        *f = Fact<bool>::unknown(why);
      for (auto* f : {&n.ecc_uncorrected_volatile, &n.ecc_uncorrected_aggregate, &n.ecc_corrected_volatile})
        *f = Fact<std::uint64_t>::unknown(why);
      n.clocks_event_reasons = Fact<std::vector<std::string>>::unknown(why);
      n.power_draw_w = Fact<double>::unknown(why);
      n.power_limit_w = Fact<double>::unknown(why);
      n.memory_bus_width_bits = Fact<int>::unknown(why);
      out.gpus.push_back(std::move(n));
      g = &out.gpus.back();
    }
    if (!g) {
      steps.end(false, "not_matched",
                pci_ok ? "CUDA device at " + bus_id + " matches no GPU NVML listed"
                       : std::string("the CUDA driver did not report this device's PCI location"));
      continue;
    }
    g->cuda_ordinal = Fact<int>(ord);
    g->sm_count = sm_ok ? Fact<int>(sms) : Fact<int>::unknown("cuDeviceGetAttribute(MULTIPROCESSOR_COUNT) failed");
    if (!g->memory_bus_width_bits && bw_ok) g->memory_bus_width_bits = Fact<int>(bus_width);
    steps.end(true, "CUDA_SUCCESS", fmt::format("{} SMs{}", sm_ok ? std::to_string(sms) : "?", pci_ok ? " at " + bus_id : std::string()));
  }
}

// ---------------------------------------------------------------- CUDA_VISIBLE_DEVICES

// How many GPUs CUDA will show given the variable and NVML's list (CUDA stops at the first
// entry that names no GPU: an out-of-range index or an unknown UUID).
int expected_visible(const parse::VisibleDevices& vis, const std::vector<NvidiaGpu>& gpus, int nvml_count) {
  std::vector<bool> taken(static_cast<size_t>(std::max(nvml_count, 0)), false);
  int n = 0;
  for (const auto& e : vis.entries) {
    int k = -1;
    if (e.is_index) {
      k = e.index < nvml_count ? e.index : -1;
    } else {
      for (size_t i = 0; i < gpus.size(); ++i)
        if (gpus[i].uuid && gpus[i].uuid.value().rfind(e.uuid, 0) == 0) k = gpus[i].index;
    }
    if (k < 0 || k >= nvml_count || taken[static_cast<size_t>(k)]) break;
    taken[static_cast<size_t>(k)] = true;
    ++n;
  }
  return n;
}

void note_visible_devices(NvidiaDriverFacts& out, const NvmlOutcome& nv, StepLog& steps) {
  if (!out.cuda_visible_devices) return;
  const std::string value = out.cuda_visible_devices.value();
  const parse::VisibleDevices vis = parse::cuda_visible_devices(value);
  const std::string var = "CUDA_VISIBLE_DEVICES=\"" + value + "\"";
  const std::string cut = vis.truncated ? " (CUDA ignores \"" + vis.stopped_at + "\" and every entry after it)" : "";
  if (out.cuda_device_count) {
    const int seen = out.cuda_device_count.value();
    if (nv.listed && seen < nv.count) {
      if (seen == 0)
        steps.note("CUDA_VISIBLE_DEVICES", false, "hides_all",
                   fmt::format("{} hides every GPU from CUDA: NVML lists {}, CUDA sees none{}", var, nv.count, cut));
      else
        steps.note("CUDA_VISIBLE_DEVICES", false, "hides_some",
                   fmt::format("{} hides {} of the {} GPUs NVML lists: CUDA sees {}{}", var, nv.count - seen, nv.count,
                               seen, cut));
    } else {
      steps.note("CUDA_VISIBLE_DEVICES", true, "", fmt::format("{}: CUDA sees {} GPU{}", var, seen, seen == 1 ? "" : "s"));
    }
    return;
  }
  // cuInit did not run: say what the variable will do to CUDA programs.
  if (vis.hides_all()) {
    steps.note("CUDA_VISIBLE_DEVICES", false, "hides_all",
               var + " hides every GPU from CUDA programs" + cut +
                   (nv.listed ? fmt::format(" (NVML lists {})", nv.count) : std::string()));
    return;
  }
  if (nv.listed) {
    const int n = expected_visible(vis, out.gpus, nv.count);
    if (n < nv.count) {
      steps.note("CUDA_VISIBLE_DEVICES", false, n == 0 ? "hides_all" : "hides_some",
                 fmt::format("{}: CUDA programs will see {} of the {} GPU{} NVML lists{}", var, n, nv.count,
                             nv.count == 1 ? "" : "s", cut));
      return;
    }
  }
  steps.note("CUDA_VISIBLE_DEVICES", true, "", var + ": hides no GPU NVML lists" + cut);
}

// ---------------------------------------------------------------- the isolated child

std::string tail(const std::string& s, size_t n) {
  std::string t = s.size() > n ? "..." + s.substr(s.size() - n) : s;
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.pop_back();
  return t;
}

void mark_unknown(NvidiaDriverFacts& out, const std::string& why) {
  for (auto* f : {&out.nvml_library, &out.driver_version, &out.cuda_driver_version, &out.cuda_library, &out.cuda_init})
    *f = SFact::unknown(why);
  out.nvml_device_count = Fact<int>::unknown(why);
  out.cuda_device_count = Fact<int>::unknown(why);
}

void collect_via_child(const Os& os, const ProbeOptions& opts, NvidiaDriverFacts& out) {
  std::vector<std::string> argv = opts.driver_probe_argv;
  if (opts.cuda_init == CudaInitPolicy::always) argv.push_back("--cuda");
  if (opts.cuda_init == CudaInitPolicy::never) argv.push_back("--no-cuda");
  for (const auto& c : opts.nvml_candidates) argv.insert(argv.end(), {"--nvml", c});
  for (const auto& c : opts.cuda_candidates) argv.insert(argv.end(), {"--libcuda", c});
  ChildSpec spec;
  spec.argv = argv;
  spec.timeout = opts.child_timeout;
  spec.max_output = 4u << 20;
  spec.step_prefix = kDriverStepPrefix;
  // The child reads the variable itself; hand it the value this probe sees.
  if (auto v = os.env.get("CUDA_VISIBLE_DEVICES")) spec.set_env["CUDA_VISIBLE_DEVICES"] = *v;
  else spec.unset_env.push_back("CUDA_VISIBLE_DEVICES");

  const ChildRun run = run_child(os, spec);
  const ProcResult& r = run.proc;
  DriverStep step;
  step.name = "isolated driver probe (" + path_file_name(argv.front()) + (argv.size() > 1 ? " " + argv[1] : "") + ")";
  step.ms = run.seconds * 1000.0;

  const std::string where = run.where();
  const std::string err_tail = run.stderr_tail(400);
  auto fail = [&](std::string code, std::string msg) {
    step.ok = false;
    step.code = std::move(code);
    step.message = std::move(msg);
    mark_unknown(out, step.message);
    out.steps.insert(out.steps.begin(), step);
  };

  if (run.end == ChildRun::End::not_started) {
    // Could not even start ourselves again: talking to the driver here is better than knowing nothing.
    step.ok = false;
    step.code = "not_started";
    step.message = "could not start the isolated driver probe (" + r.error + "); asked the driver in-process instead";
    collect_nvidia_in_process(os, opts, out);
    out.steps.insert(out.steps.begin(), step);
    return;
  }
  if (run.end == ChildRun::End::timed_out) {
    return fail("timeout", fmt::format("the driver did not answer within {:g} s: a hung driver or GPU; check dmesg for "
                                       "Xid errors{}",
                                       static_cast<double>(opts.child_timeout.count()) / 1000.0, where));
  }
  if (run.end == ChildRun::End::crashed) {
    return fail("crashed", fmt::format("the driver probe {}{}: the NVIDIA user-space library crashed "
                                       "on first contact (a broken or mismatched driver install?){}",
                                       run.how, where, err_tail.empty() ? std::string() : "; stderr: " + err_tail));
  }
  NvidiaDriverFacts child;
  bool parsed = false;
  std::string parse_error;
  const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  if (!j.is_discarded() && j.is_object()) {
    try {
      child = j.get<NvidiaDriverFacts>();
      parsed = true;
    } catch (const std::exception& e) {
      parse_error = e.what();
    }
  }
  if (r.exit_code != 0 || !parsed) {
    return fail("bad_output",
                fmt::format("the driver probe gave no usable answer (exit code {}{}){}{}", r.exit_code,
                            parse_error.empty() ? std::string() : ", " + parse_error,
                            r.out.empty() ? std::string() : "; output: " + tail(r.out, 200),
                            err_tail.empty() ? std::string() : "; stderr: " + err_tail));
  }
  out = std::move(child);
  step.ok = true;
  step.message = "answered in a child process";
  out.steps.insert(out.steps.begin(), step);
}

}  // namespace

std::optional<std::string> read_file_tail(const Fs& fs, const std::string& path, size_t max_bytes, std::string* error) {
  // Fs reads at an offset but does not say how long a file is: find its end with one-byte reads,
  // doubling then halving (~2*log2(size) reads: about 54 for a 100 MB module), then read the tail.
  std::string err;
  auto byte_at = [&](std::uint64_t offset) -> std::optional<bool> {
    auto b = fs.read_file_at(path, offset, 1, &err);
    if (!b) return std::nullopt;
    return !b->empty();
  };
  auto fail = [&]() -> std::optional<std::string> {
    if (error) *error = err.empty() ? path + ": could not be read" : err;
    return std::nullopt;
  };
  const auto first = byte_at(0);
  if (!first) return fail();
  std::uint64_t size = 0;
  if (*first) {
    std::uint64_t lo = 0, hi = 1;  // a byte at lo, none at hi once the doubling stops
    for (;;) {
      const auto more = byte_at(hi);
      if (!more) return fail();
      if (!*more) break;
      lo = hi;
      if (hi >= (std::uint64_t{1} << 40)) {
        err = path + ": larger than 1 TiB";
        return fail();
      }
      hi *= 2;
    }
    while (hi - lo > 1) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      const auto more = byte_at(mid);
      if (!more) return fail();
      (*more ? lo : hi) = mid;
    }
    size = hi;
  }
  const std::uint64_t from = size > max_bytes ? size - max_bytes : 0;
  auto tail = fs.read_file_at(path, from, max_bytes, &err);
  if (!tail) return fail();
  return tail;
}

void collect_nvidia_in_process(const Os& os, const ProbeOptions& opts, NvidiaDriverFacts& out,
                               const DriverStepHook& before_step) {
  out = NvidiaDriverFacts{};
  StepLog steps(out.steps, before_step);
  const auto cvd = os.env.get("CUDA_VISIBLE_DEVICES");
  out.cuda_visible_devices = cvd ? SFact(*cvd) : SFact::unknown("not set: CUDA programs see every GPU");
  out.kernel_module_version = read_kernel_module_version(os);
  read_kernel_module_files(os.fs, out);
  const NvmlOutcome nv = probe_nvml(os, opts, out, steps);
  probe_cuda(os, opts, out, nv, steps);
  note_visible_devices(out, nv, steps);
}

void collect_nvidia(const Os& os, const ProbeOptions& opts, NvidiaDriverFacts& out) {
  if (opts.driver_probe_argv.empty()) return collect_nvidia_in_process(os, opts, out);
  out = NvidiaDriverFacts{};
  collect_via_child(os, opts, out);
  // Reading files and the environment cannot hang: this process states them through its own seams.
  const auto cvd = os.env.get("CUDA_VISIBLE_DEVICES");
  out.cuda_visible_devices = cvd ? SFact(*cvd) : SFact::unknown("not set: CUDA programs see every GPU");
  out.kernel_module_version = read_kernel_module_version(os);
  read_kernel_module_files(os.fs, out);
  for (auto& s : out.steps) {
    if (s.name == "nvmlInit_v2" && s.code == "NVML_ERROR_LIB_RM_VERSION_MISMATCH") {
      // Rebuild with this process's view of the kernel module, keeping the library version the child saw.
      const std::string marker = " but the user-space library is ";
      const size_t at = s.message.find(marker);
      std::optional<std::string> lib;
      if (at != std::string::npos) {
        const size_t from = at + marker.size();
        lib = s.message.substr(from, s.message.find(';', from) - from);
        if (*lib == "unknown") lib.reset();
      }
      s.message = mismatch_message(out.kernel_module_version, lib);
    }
  }
}

}  // namespace gpuready
