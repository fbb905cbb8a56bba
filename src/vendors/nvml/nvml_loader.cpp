// NVML loading: candidate names per packaging, symbol resolution into the typed table,
// and return-code names. The dynamic loader's own words are kept for the report.
#include "vendors/nvml/nvml_loader.h"

#include <fmt/format.h>

#include <cstdio>

#include "vendors/vendor_library.h"

namespace gpuready::nvml {

std::vector<std::string> default_candidates(const Env& env) {
  std::vector<std::string> c;
#ifdef _WIN32
  // The driver installs nvml.dll into System32 (since R4xx); the default DLL search finds it there.
  c.push_back("nvml.dll");
  // Older drivers put it only under NVSMI ("C:\Program Files\NVIDIA Corporation\NVSMI\nvml.dll").
  // ProgramW6432 is the 64-bit Program Files even when a 32-bit process asks.
  const std::string program_files = env.get("ProgramW6432").value_or(env.get("ProgramFiles").value_or("C:\\Program Files"));
  c.push_back(program_files + "\\NVIDIA Corporation\\NVSMI\\nvml.dll");
#else
  (void)env;
  // Every Linux driver package ships the versioned soname; the loader's search covers
  // /usr/lib/x86_64-linux-gnu (Debian/Ubuntu), /usr/lib64 (RHEL/SUSE), /usr/lib/aarch64-linux-gnu
  // and, through ld.so.conf.d, WSL's /usr/lib/wsl/lib. The unversioned .so is a -dev symlink: never ask for it.
  c.push_back("libnvidia-ml.so.1");
  // WSL2: the Windows driver mounts its Linux libraries here; when ldconfig skipped them
  // (they are copies, not symlinks) only the explicit path finds them.
  c.push_back("/usr/lib/wsl/lib/libnvidia-ml.so.1");
#endif
  return c;
}

std::optional<Library> load(const Os& os, const std::vector<std::string>& candidates, std::string* error) {
  const DynLib& dl = os.dl;
  const auto opened = vendors::open_first(os, candidates, error);
  if (!opened) return std::nullopt;
  const DynLib::Handle h = opened->handle;
  Library lib;
  lib.handle = h;
  lib.candidate = opened->candidate;
#define GPUREADY_NVML_RESOLVE(name) lib.api.name = reinterpret_cast<decltype(&::name)>(dl.symbol(h, #name));
  GPUREADY_NVML_SYMBOLS(GPUREADY_NVML_RESOLVE)
#undef GPUREADY_NVML_RESOLVE
  void* any = lib.api.nvmlInit_v2 ? reinterpret_cast<void*>(lib.api.nvmlInit_v2)
                                  : reinterpret_cast<void*>(lib.api.nvmlShutdown);
  lib.path = dl.path_of(h, any);
  return lib;
}

void unload(const DynLib& dl, Library& lib) {
  if (lib.handle) dl.close(lib.handle);
  lib.handle = {};
  lib.api = Api{};
}

std::string return_name(int code) {
  switch (code) {
#define GPUREADY_NVML_CASE(c) \
  case c:                     \
    return #c;
    GPUREADY_NVML_CASE(NVML_SUCCESS)
    GPUREADY_NVML_CASE(NVML_ERROR_UNINITIALIZED)
    GPUREADY_NVML_CASE(NVML_ERROR_INVALID_ARGUMENT)
    GPUREADY_NVML_CASE(NVML_ERROR_NOT_SUPPORTED)
    GPUREADY_NVML_CASE(NVML_ERROR_NO_PERMISSION)
    GPUREADY_NVML_CASE(NVML_ERROR_ALREADY_INITIALIZED)
    GPUREADY_NVML_CASE(NVML_ERROR_NOT_FOUND)
    GPUREADY_NVML_CASE(NVML_ERROR_INSUFFICIENT_SIZE)
    GPUREADY_NVML_CASE(NVML_ERROR_INSUFFICIENT_POWER)
    GPUREADY_NVML_CASE(NVML_ERROR_DRIVER_NOT_LOADED)
    GPUREADY_NVML_CASE(NVML_ERROR_TIMEOUT)
    GPUREADY_NVML_CASE(NVML_ERROR_IRQ_ISSUE)
    GPUREADY_NVML_CASE(NVML_ERROR_LIBRARY_NOT_FOUND)
    GPUREADY_NVML_CASE(NVML_ERROR_FUNCTION_NOT_FOUND)
    GPUREADY_NVML_CASE(NVML_ERROR_CORRUPTED_INFOROM)
    GPUREADY_NVML_CASE(NVML_ERROR_GPU_IS_LOST)
    GPUREADY_NVML_CASE(NVML_ERROR_RESET_REQUIRED)
    GPUREADY_NVML_CASE(NVML_ERROR_OPERATING_SYSTEM)
    GPUREADY_NVML_CASE(NVML_ERROR_LIB_RM_VERSION_MISMATCH)
    GPUREADY_NVML_CASE(NVML_ERROR_IN_USE)
    GPUREADY_NVML_CASE(NVML_ERROR_MEMORY)
    GPUREADY_NVML_CASE(NVML_ERROR_NO_DATA)
    GPUREADY_NVML_CASE(NVML_ERROR_VGPU_ECC_NOT_SUPPORTED)
    GPUREADY_NVML_CASE(NVML_ERROR_INSUFFICIENT_RESOURCES)
    GPUREADY_NVML_CASE(NVML_ERROR_FREQ_NOT_SUPPORTED)
    GPUREADY_NVML_CASE(NVML_ERROR_ARGUMENT_VERSION_MISMATCH)
    GPUREADY_NVML_CASE(NVML_ERROR_DEPRECATED)
    GPUREADY_NVML_CASE(NVML_ERROR_NOT_READY)
    GPUREADY_NVML_CASE(NVML_ERROR_GPU_NOT_FOUND)
    GPUREADY_NVML_CASE(NVML_ERROR_INVALID_STATE)
    GPUREADY_NVML_CASE(NVML_ERROR_UNKNOWN)
#undef GPUREADY_NVML_CASE
    default:
      return "NVML_ERROR_" + std::to_string(code);
  }
}

namespace {
struct ReasonBit {
  unsigned long long bit;
  const char* name;
};
constexpr ReasonBit kClockReasons[] = {
    {nvmlClocksEventReasonGpuIdle, "gpu_idle"},
    {nvmlClocksEventReasonApplicationsClocksSetting, "applications_clocks_setting"},
    {nvmlClocksEventReasonSwPowerCap, "sw_power_cap"},
    {nvmlClocksThrottleReasonHwSlowdown, "hw_slowdown"},
    {nvmlClocksEventReasonSyncBoost, "sync_boost"},
    {nvmlClocksEventReasonSwThermalSlowdown, "sw_thermal_slowdown"},
    {nvmlClocksThrottleReasonHwThermalSlowdown, "hw_thermal_slowdown"},
    {nvmlClocksThrottleReasonHwPowerBrakeSlowdown, "hw_power_brake_slowdown"},
    {nvmlClocksEventReasonDisplayClockSetting, "display_clock_setting"},
};
}  // namespace

std::vector<std::string> clock_reason_names(unsigned long long mask) {
  std::vector<std::string> out;
  unsigned long long known = 0;
  for (const auto& r : kClockReasons) {
    known |= r.bit;
    if (mask & r.bit) out.emplace_back(r.name);
  }
  // Bits newer than this build (R610 added board-limit and reliability reasons): keep them visible.
  for (int b = 0; b < 64; ++b) {
    const unsigned long long bit = 1ULL << b;
    if ((mask & bit) && !(known & bit)) out.push_back(fmt::format("unknown_0x{:x}", bit));
  }
  return out;
}

nvmlDevice_t device_at_bus_id(const Api& n, const std::string& bus_id, std::string* why) {
  unsigned domain = 0, bus = 0, dev = 0;
  if (std::sscanf(bus_id.c_str(), "%x:%x:%x", &domain, &bus, &dev) != 3) {
    *why = "the GPU's PCI bus id is unknown, so NVML's device for it is too";
    return nullptr;
  }
  unsigned count = 0;
  if (!n.nvmlDeviceGetCount_v2 || !n.nvmlDeviceGetHandleByIndex_v2 ||
      (!n.nvmlDeviceGetPciInfo_v3 && !n.nvmlDeviceGetPciInfo_v2) || n.nvmlDeviceGetCount_v2(&count) != NVML_SUCCESS) {
    *why = "NVML cannot list its devices";
    return nullptr;
  }
  for (unsigned i = 0; i < count && i < 64; ++i) {
    nvmlDevice_t d = nullptr;
    if (n.nvmlDeviceGetHandleByIndex_v2(i, &d) != NVML_SUCCESS) continue;
    nvmlPciInfo_t pci{};
    const nvmlReturn_t rc =
        n.nvmlDeviceGetPciInfo_v3 ? n.nvmlDeviceGetPciInfo_v3(d, &pci) : n.nvmlDeviceGetPciInfo_v2(d, &pci);
    if (rc != NVML_SUCCESS) continue;
    unsigned pd = 0, pb = 0, pv = 0;
    if (std::sscanf(pci.busId, "%x:%x:%x", &pd, &pb, &pv) == 3 && pd == domain && pb == bus && pv == dev) return d;
  }
  *why = "NVML lists no GPU at " + bus_id;
  return nullptr;
}

}  // namespace gpuready::nvml
