// The CUDA driver API's view: libcuda loaded by absolute path, cuInit when asked (or when NVML
// could not list the GPUs), the device count, and per device its SMs, ordinal and PCI location
// matched to NVML's list; the failures in words that name the cause (a hiding
// CUDA_VISIBLE_DEVICES, the toolkit's stub, a library-module mismatch).
#include <fmt/format.h>

#include <algorithm>

#include "core/version.h"
#include "probe/nvidia_internal.h"
#include "vendors/cuda_driver/cuda_loader.h"

namespace gpuready::nvidia_detail {

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

}  // namespace gpuready::nvidia_detail
