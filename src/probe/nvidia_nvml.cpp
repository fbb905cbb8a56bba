// NVML's view of the driver and each GPU: the driver and its CUDA version, then per GPU its name,
// UUID, PCI location, architecture, memory, health (ECC, retired and remapped pages), clocks,
// power, link and driver model; each call a step, each missing entry point or failure the
// unknown fact's reason.
#include <fmt/format.h>

#include <algorithm>

#include "core/version.h"
#include "probe/nvidia_internal.h"
#include "vendors/nvml/nvml_loader.h"

namespace gpuready::nvidia_detail {

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

}  // namespace gpuready::nvidia_detail
