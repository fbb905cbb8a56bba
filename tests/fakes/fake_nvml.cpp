// A fake libnvidia-ml.so.1: NVML's real symbol names and C signatures (from src/vendors/nvml/nvml_api.h,
// so the compiler holds both sides to one declaration), answering from the scenario JSON named by
// GPUREADY_FAKE_DRIVER. Built twice: current (R580) and FAKE_DRIVER_R470, which lacks the entry
// points NVML gained after R470 (nvmlDeviceGetMemoryBusWidth in R510, nvmlDeviceGetGpuMaxPcieLinkGeneration
// in R525, clocks *event* reasons in R535) and, to exercise the fallback to the older export,
// nvmlSystemGetCudaDriverVersion_v2.
//
// A GPU's key answers its query: absent means NVML_ERROR_NOT_SUPPORTED (the GPU cannot say), and a
// string such as "NVML_ERROR_NOT_SUPPORTED" or "NVML_ERROR_GPU_IS_LOST" is returned as that code.
#include <csignal>
#include <cstring>
#include <mutex>
#include <string>

#include "fake_driver_config.h"
#include "vendors/nvml/nvml_api.h"

// The opaque handle type NVML hands out; here simply the GPU's index in the scenario.
struct nvmlDevice_st {
  unsigned index;
};

namespace {

struct State {
  std::mutex mu;
  fake::json cfg = fake::json::object();
  bool initialised = false;
  nvmlDevice_st devices[64];
};

State& state() {
  static State s;
  return s;
}

const char* const kReturnNames[] = {
    "NVML_SUCCESS", "NVML_ERROR_UNINITIALIZED", "NVML_ERROR_INVALID_ARGUMENT", "NVML_ERROR_NOT_SUPPORTED",
    "NVML_ERROR_NO_PERMISSION", "NVML_ERROR_ALREADY_INITIALIZED", "NVML_ERROR_NOT_FOUND",
    "NVML_ERROR_INSUFFICIENT_SIZE", "NVML_ERROR_INSUFFICIENT_POWER", "NVML_ERROR_DRIVER_NOT_LOADED",
    "NVML_ERROR_TIMEOUT", "NVML_ERROR_IRQ_ISSUE", "NVML_ERROR_LIBRARY_NOT_FOUND", "NVML_ERROR_FUNCTION_NOT_FOUND",
    "NVML_ERROR_CORRUPTED_INFOROM", "NVML_ERROR_GPU_IS_LOST", "NVML_ERROR_RESET_REQUIRED",
    "NVML_ERROR_OPERATING_SYSTEM", "NVML_ERROR_LIB_RM_VERSION_MISMATCH"};

// "NVML_ERROR_LIB_RM_VERSION_MISMATCH" or 18 -> the code; anything else -> NVML_ERROR_UNKNOWN.
nvmlReturn_t code_of(const fake::json& cfg, const char* key) {
  auto it = cfg.find(key);
  if (it == cfg.end()) return NVML_SUCCESS;
  if (it->is_number_integer()) return static_cast<nvmlReturn_t>(it->get<int>());
  if (it->is_string()) {
    const std::string s = it->get<std::string>();
    for (size_t i = 0; i < sizeof kReturnNames / sizeof *kReturnNames; ++i)
      if (s == kReturnNames[i]) return static_cast<nvmlReturn_t>(i);
  }
  return NVML_ERROR_UNKNOWN;
}

// The GPU behind a handle, or nullptr (the caller answers NVML_ERROR_INVALID_ARGUMENT).
const fake::json* gpu_of(nvmlDevice_t dev) {
  State& s = state();
  const auto& g = fake::gpus(s.cfg);
  if (!dev || dev->index >= g.size()) return nullptr;
  return &g[dev->index];
}

// The answer a key gives when it holds no value: absent = this GPU cannot say; a code name = that code.
nvmlReturn_t not_a_value(const fake::json& g, const char* key) {
  return fake::has_string(g, key) ? code_of(g, key) : NVML_ERROR_NOT_SUPPORTED;
}

template <class T>
nvmlReturn_t number(nvmlDevice_t dev, const char* key, T* out) {
  if (!state().initialised) return NVML_ERROR_UNINITIALIZED;
  const fake::json* g = gpu_of(dev);
  if (!g || !out) return NVML_ERROR_INVALID_ARGUMENT;
  if (!fake::has_number(*g, key)) return not_a_value(*g, key);
  *out = static_cast<T>(fake::get_int(*g, key, 0));
  return NVML_SUCCESS;
}

nvmlReturn_t text(nvmlDevice_t dev, const char* key, char* buf, unsigned length) {
  if (!state().initialised) return NVML_ERROR_UNINITIALIZED;
  // Fault injection: a per-GPU query that never returns, and strings that fill the buffer with no NUL.
  fake::sleep_ms(fake::get_int(state().cfg, "hang_in_device_query_ms", 0));
  if (buf && length > 0 && fake::get_bool(state().cfg, "unterminated_strings", false)) {
    std::memset(buf, 'X', length);
    return NVML_SUCCESS;
  }
  const fake::json* g = gpu_of(dev);
  if (!g || !buf || length == 0) return NVML_ERROR_INVALID_ARGUMENT;
  if (!fake::has_string(*g, key)) return NVML_ERROR_NOT_SUPPORTED;
  const std::string v = fake::get_string(*g, key);
  if (v.size() + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
  fake::copy_string(v, buf, length);
  return NVML_SUCCESS;
}

nvmlReturn_t enable_state(nvmlDevice_t dev, const char* key, nvmlEnableState_t* out) {
  if (!state().initialised) return NVML_ERROR_UNINITIALIZED;
  const fake::json* g = gpu_of(dev);
  if (!g || !out) return NVML_ERROR_INVALID_ARGUMENT;
  auto it = g->find(key);
  if (it == g->end() || !it->is_boolean()) return not_a_value(*g, key);
  *out = it->get<bool>() ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
  return NVML_SUCCESS;
}

nvmlReturn_t pci_info(nvmlDevice_t dev, nvmlPciInfo_t* pci) {
  if (!state().initialised) return NVML_ERROR_UNINITIALIZED;
  const fake::json* g = gpu_of(dev);
  if (!g || !pci) return NVML_ERROR_INVALID_ARGUMENT;
  unsigned domain = 0, bus = 0, device = 0;
  const std::string id = fake::get_string(*g, "pci_bus_id");
  if (!fake::parse_bus_id(id, &domain, &bus, &device)) return NVML_ERROR_UNKNOWN;
  std::memset(pci, 0, sizeof *pci);
  pci->domain = domain;
  pci->bus = bus;
  pci->device = device;
  pci->pciDeviceId = static_cast<unsigned>(std::strtoul(fake::get_string(*g, "pci_device_id", "0").c_str(), nullptr, 16));
  pci->pciSubSystemId = static_cast<unsigned>(std::strtoul(fake::get_string(*g, "pci_subsystem_id", "0").c_str(), nullptr, 16));
  std::snprintf(pci->busId, sizeof pci->busId, "%08X:%02X:%02X.0", domain, bus, device);
  std::snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%04X:%02X:%02X.0", domain & 0xffff, bus, device);
  return NVML_SUCCESS;
}

__attribute__((constructor)) void on_load() {
  if (fake::get_bool(fake::load_config(), "crash_on_load", false)) fake::crash_now();
}

}  // namespace

nvmlReturn_t nvmlInit_v2(void) {
  State& s = state();
  fake::json cfg = fake::load_config();
  fake::sleep_ms(fake::get_int(cfg, "hang_in_init_ms", 0));
  if (fake::get_bool(cfg, "crash_in_init", false)) fake::crash_now();
  std::lock_guard<std::mutex> lock(s.mu);
  s.cfg = std::move(cfg);
  const nvmlReturn_t rc = code_of(s.cfg, "nvml_init");
  s.initialised = rc == NVML_SUCCESS;
  for (unsigned i = 0; i < 64; ++i) s.devices[i].index = i;
  return rc;
}

nvmlReturn_t nvmlShutdown(void) {
  if (!state().initialised) return NVML_ERROR_UNINITIALIZED;
  state().initialised = false;
  return NVML_SUCCESS;
}

// nvmlErrorString's real sentences for the codes the scenarios use.
const char* nvmlErrorString(nvmlReturn_t result) {
  switch (result) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_NO_PERMISSION: return "Insufficient Permissions";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    case NVML_ERROR_GPU_IS_LOST: return "GPU is lost";
    case NVML_ERROR_LIB_RM_VERSION_MISMATCH: return "RM has detected an NVML/RM version mismatch.";
    default: return "Unknown Error";
  }
}

nvmlReturn_t nvmlSystemGetDriverVersion(char* version, unsigned int length) {
  if (!state().initialised) return NVML_ERROR_UNINITIALIZED;
  if (!version || length == 0) return NVML_ERROR_INVALID_ARGUMENT;
  if (fake::get_bool(state().cfg, "unterminated_strings", false)) {
    std::memset(version, '9', length);
    return NVML_SUCCESS;
  }
  const std::string v = fake::get_string(state().cfg, "driver_version", "580.159.04");
  if (v.size() + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
  fake::copy_string(v, version, length);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion(int* cudaDriverVersion) {
  if (!cudaDriverVersion) return NVML_ERROR_INVALID_ARGUMENT;
  *cudaDriverVersion = static_cast<int>(fake::get_int(state().cfg, "cuda_driver_version", 13000));
  return NVML_SUCCESS;
}

#ifndef FAKE_DRIVER_R470
nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int* cudaDriverVersion) {
  return nvmlSystemGetCudaDriverVersion(cudaDriverVersion);
}
#endif

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* deviceCount) {
  if (!state().initialised) return NVML_ERROR_UNINITIALIZED;
  if (!deviceCount) return NVML_ERROR_INVALID_ARGUMENT;
  // Fault injection: a count no machine has (1e6), with no GPU behind the indexes past the listed ones.
  *deviceCount = static_cast<unsigned>(fake::get_int(state().cfg, "device_count", static_cast<long long>(fake::gpus(state().cfg).size())));
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
  if (!state().initialised) return NVML_ERROR_UNINITIALIZED;
  if (!device || index >= fake::gpus(state().cfg).size() || index >= 64) return NVML_ERROR_INVALID_ARGUMENT;
  const fake::json& g = fake::gpus(state().cfg)[index];
  if (fake::has_string(g, "handle_error")) return code_of(g, "handle_error");
  *device = &state().devices[index];
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char* name, unsigned int length) {
  return text(device, "name", name, length);
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char* uuid, unsigned int length) {
  return text(device, "uuid", uuid, length);
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t* pci) { return pci_info(device, pci); }
nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, nvmlPciInfo_t* pci) { return pci_info(device, pci); }

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t* memory) {
  // Bytes as recorded ("memory_total_bytes"), or whole MiB for hand-written scenarios.
  unsigned long long total = 0, used = 0;
  if (number(device, "memory_total_bytes", &total) != NVML_SUCCESS) {
    if (nvmlReturn_t rc = number(device, "memory_total_mib", &total); rc != NVML_SUCCESS) return rc;
    total <<= 20;
  }
  if (number(device, "memory_used_bytes", &used) != NVML_SUCCESS) {
    if (nvmlReturn_t rc = number(device, "memory_used_mib", &used); rc != NVML_SUCCESS) return rc;
    used <<= 20;
  }
  memory->total = total;
  memory->used = used;
  memory->free = total - used;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int* major, int* minor) {
  if (!state().initialised) return NVML_ERROR_UNINITIALIZED;
  const fake::json* g = gpu_of(device);
  if (!g || !major || !minor) return NVML_ERROR_INVALID_ARGUMENT;
  if (!fake::parse_cc(fake::get_string(*g, "cc"), major, minor)) return NVML_ERROR_UNKNOWN;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetArchitecture(nvmlDevice_t device, nvmlDeviceArchitecture_t* arch) {
  return number(device, "architecture", arch);
}

nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t device, unsigned int* currLinkGen) {
  return number(device, "pcie_gen_current", currLinkGen);
}
nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t device, unsigned int* maxLinkGen) {
  return number(device, "pcie_gen_max", maxLinkGen);
}
#ifndef FAKE_DRIVER_R470
nvmlReturn_t nvmlDeviceGetGpuMaxPcieLinkGeneration(nvmlDevice_t device, unsigned int* maxLinkGenDevice) {
  return number(device, "pcie_gen_gpu_max", maxLinkGenDevice);
}
#endif
nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t device, unsigned int* currLinkWidth) {
  return number(device, "pcie_width_current", currLinkWidth);
}
nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t device, unsigned int* maxLinkWidth) {
  return number(device, "pcie_width_max", maxLinkWidth);
}

nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t device, nvmlEnableState_t* mode) {
  return enable_state(device, "persistence_mode", mode);
}

// "driver_model": "WDDM" | "TCC" | "MCDM", optionally "pending_driver_model"; absent = Linux (NOT_SUPPORTED).
nvmlReturn_t nvmlDeviceGetDriverModel(nvmlDevice_t device, nvmlDriverModel_t* current, nvmlDriverModel_t* pending) {
  if (!state().initialised) return NVML_ERROR_UNINITIALIZED;
  const fake::json* g = gpu_of(device);
  if (!g || !current) return NVML_ERROR_INVALID_ARGUMENT;
  auto model = [](const std::string& m) {
    return m == "TCC" ? NVML_DRIVER_WDM : m == "MCDM" ? NVML_DRIVER_MCDM : NVML_DRIVER_WDDM;
  };
  if (!fake::has_string(*g, "driver_model")) return NVML_ERROR_NOT_SUPPORTED;
  *current = model(fake::get_string(*g, "driver_model"));
  if (pending)
    *pending =
        fake::has_string(*g, "pending_driver_model") ? model(fake::get_string(*g, "pending_driver_model")) : *current;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t device, nvmlEnableState_t* current, nvmlEnableState_t* pending) {
  if (nvmlReturn_t rc = enable_state(device, "ecc", current); rc != NVML_SUCCESS) return rc;
  if (pending) *pending = *current;
  return NVML_SUCCESS;
}

#ifndef FAKE_DRIVER_R470
nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device, unsigned long long* clocksEventReasons) {
  return number(device, "clocks_event_reasons", clocksEventReasons);
}
#endif

nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device, unsigned long long* clocksThrottleReasons) {
  return number(device, "clocks_event_reasons", clocksThrottleReasons);
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensorType, unsigned int* temp) {
  if (sensorType != NVML_TEMPERATURE_GPU) return NVML_ERROR_INVALID_ARGUMENT;
  return number(device, "temperature_c", temp);
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int* power) {
  return number(device, "power_mw", power);
}

nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int* limit) {
  return number(device, "power_limit_mw", limit);
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int* clock) {
  return number(device, type == NVML_CLOCK_MEM ? "mem_clock_mhz" : "sm_clock_mhz", clock);
}

nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int* clock) {
  return number(device, type == NVML_CLOCK_MEM ? "mem_clock_max_mhz" : "sm_clock_max_mhz", clock);
}

#ifndef FAKE_DRIVER_R470
nvmlReturn_t nvmlDeviceGetMemoryBusWidth(nvmlDevice_t device, unsigned int* busWidth) {
  return number(device, "memory_bus_width", busWidth);
}
#endif

// Keys "ecc_uncorrected_volatile", "ecc_uncorrected_aggregate", "ecc_corrected_volatile",
// "ecc_corrected_aggregate" (nvidia-smi -q -d ECC: "Volatile"/"Aggregate" totals).
nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, nvmlMemoryErrorType_t errorType,
                                         nvmlEccCounterType_t counterType, unsigned long long* eccCounts) {
  const bool corrected = errorType == NVML_MEMORY_ERROR_TYPE_CORRECTED;
  const bool volatile_ = counterType == NVML_VOLATILE_ECC;
  if ((!corrected && errorType != NVML_MEMORY_ERROR_TYPE_UNCORRECTED) ||
      (!volatile_ && counterType != NVML_AGGREGATE_ECC))
    return NVML_ERROR_INVALID_ARGUMENT;
  const std::string key =
      std::string("ecc_") + (corrected ? "corrected" : "uncorrected") + (volatile_ ? "_volatile" : "_aggregate");
  return number(device, key.c_str(), eccCounts);
}

// Keys "retired_pages_sbe" / "retired_pages_dbe": the number of pages. Answers as NVML does: the
// count with NVML_SUCCESS when the buffer holds them all, else NVML_ERROR_INSUFFICIENT_SIZE.
nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t device, nvmlPageRetirementCause_t cause, unsigned int* pageCount,
                                       unsigned long long* addresses) {
  if (!pageCount) return NVML_ERROR_INVALID_ARGUMENT;
  const char* key = cause == NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS ? "retired_pages_sbe"
                    : cause == NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR         ? "retired_pages_dbe"
                                                                                       : nullptr;
  if (!key) return NVML_ERROR_INVALID_ARGUMENT;
  unsigned int count = 0;
  if (nvmlReturn_t rc = number(device, key, &count); rc != NVML_SUCCESS) return rc;
  const unsigned int room = *pageCount;
  *pageCount = count;
  if (room < count) return NVML_ERROR_INSUFFICIENT_SIZE;
  if (count > 0 && !addresses) return NVML_ERROR_INVALID_ARGUMENT;
  for (unsigned int i = 0; i < count; ++i) addresses[i] = 0x1a2b3c000ULL + 0x1000ULL * i;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t device, nvmlEnableState_t* isPending) {
  return enable_state(device, "retired_pages_pending", isPending);
}

// Key "remapped_rows": {"correctable": n, "uncorrectable": n, "pending": bool, "failed": bool}
// (nvidia-smi -q -d ROW_REMAPPER), or a code name, or absent (NVML_ERROR_NOT_SUPPORTED).
nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int* corrRows, unsigned int* uncRows,
                                       unsigned int* isPending, unsigned int* failureOccurred) {
  if (!state().initialised) return NVML_ERROR_UNINITIALIZED;
  const fake::json* g = gpu_of(device);
  if (!g || !corrRows || !uncRows || !isPending || !failureOccurred) return NVML_ERROR_INVALID_ARGUMENT;
  auto it = g->find("remapped_rows");
  if (it == g->end() || !it->is_object()) return not_a_value(*g, "remapped_rows");
  *corrRows = static_cast<unsigned>(fake::get_int(*it, "correctable", 0));
  *uncRows = static_cast<unsigned>(fake::get_int(*it, "uncorrectable", 0));
  *isPending = fake::get_bool(*it, "pending", false) ? 1 : 0;
  *failureOccurred = fake::get_bool(*it, "failed", false) ? 1 : 0;
  return NVML_SUCCESS;
}

// Key "utilization_gpu" (nvidia-smi utilization.gpu); memory utilisation is not asked for.
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t* utilization) {
  if (!utilization) return NVML_ERROR_INVALID_ARGUMENT;
  if (nvmlReturn_t rc = number(device, "utilization_gpu", &utilization->gpu); rc != NVML_SUCCESS) return rc;
  utilization->memory = 0;
  return NVML_SUCCESS;
}
