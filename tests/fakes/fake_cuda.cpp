// A fake libcuda.so.1: the CUDA driver API's real symbol names and C signatures (from
// src/vendors/cuda_driver/cuda_api.h), answering from the scenario JSON named by GPUREADY_FAKE_DRIVER.
// Like the real driver it orders devices its own way ("cuda_rank", fastest first) and honours
// CUDA_VISIBLE_DEVICES. Built twice: current (cuGetProcAddress_v2, CUDA 12+) and FAKE_DRIVER_R470
// (CUDA 11.4: only the 4-argument cuGetProcAddress of 11.3-11.8).
#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "fake_driver_config.h"
#include "vendors/cuda_driver/cuda_api.h"

namespace {

struct State {
  std::mutex mu;
  fake::json cfg = fake::json::object();
  bool initialised = false;
  std::vector<fake::json> visible;  // CUDA ordinal -> GPU, after ordering and CUDA_VISIBLE_DEVICES
};

State& state() {
  static State s;
  return s;
}

struct Named {
  CUresult code;
  const char* name;
  const char* words;
};
// cuGetErrorName / cuGetErrorString of the real driver for the codes the scenarios use.
constexpr Named kResults[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
     "system has unsupported display driver / cuda driver combination"},
    {CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
     "forward compatibility was attempted on non supported HW"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

CUresult code_of(const fake::json& cfg, const char* key) {
  auto it = cfg.find(key);
  if (it == cfg.end()) return CUDA_SUCCESS;
  if (it->is_number_integer()) return static_cast<CUresult>(it->get<int>());
  if (it->is_string())
    for (const auto& r : kResults)
      if (it->get<std::string>() == r.name) return r.code;
  return CUDA_ERROR_UNKNOWN;
}

// The driver's enumeration: GPUs by "cuda_rank" (default: scenario order), then CUDA_VISIBLE_DEVICES
// (ordinals into that order or GPU-UUID prefixes; the first entry naming no GPU ends the list).
std::vector<fake::json> enumerate(const fake::json& cfg) {
  std::vector<fake::json> all(fake::gpus(cfg).begin(), fake::gpus(cfg).end());
  std::stable_sort(all.begin(), all.end(), [](const fake::json& a, const fake::json& b) {
    return fake::get_int(a, "cuda_rank", 0) < fake::get_int(b, "cuda_rank", 0);
  });
  const char* env = std::getenv("CUDA_VISIBLE_DEVICES");
  if (!env) return all;
  std::vector<fake::json> out;
  std::vector<bool> taken(all.size(), false);
  std::string list = env;
  size_t pos = 0;
  while (true) {
    const size_t end = std::min(list.find(',', pos), list.size());
    std::string tok = list.substr(pos, end - pos);
    tok.erase(0, tok.find_first_not_of(" \t"));
    tok.erase(tok.find_last_not_of(" \t") + 1);
    long k = -1;
    if (!tok.empty() && tok.find_first_not_of("0123456789") == std::string::npos && tok.size() < 9) {
      k = std::stol(tok);
    } else if (tok.rfind("GPU-", 0) == 0) {
      for (size_t i = 0; i < all.size(); ++i)
        if (fake::get_string(all[i], "uuid").rfind(tok, 0) == 0) k = static_cast<long>(i);
    }
    if (k < 0 || k >= static_cast<long>(all.size()) || taken[static_cast<size_t>(k)]) break;
    taken[static_cast<size_t>(k)] = true;
    out.push_back(all[static_cast<size_t>(k)]);
    if (end >= list.size()) break;
    pos = end + 1;
  }
  return out;
}

const fake::json* device(CUdevice dev) {
  State& s = state();
  if (!s.initialised || dev < 0 || static_cast<size_t>(dev) >= s.visible.size()) return nullptr;
  return &s.visible[static_cast<size_t>(dev)];
}

__attribute__((constructor)) void on_load() {
  if (fake::get_bool(fake::load_config(), "cuda_crash_on_load", false)) fake::crash_now();
}

}  // namespace

CUresult GPUREADY_CUDAAPI cuGetErrorName(CUresult error, const char** pStr) {
  if (!pStr) return CUDA_ERROR_INVALID_VALUE;
  for (const auto& r : kResults)
    if (r.code == error) {
      *pStr = r.name;
      return CUDA_SUCCESS;
    }
  *pStr = nullptr;
  return CUDA_ERROR_INVALID_VALUE;
}

CUresult GPUREADY_CUDAAPI cuGetErrorString(CUresult error, const char** pStr) {
  if (!pStr) return CUDA_ERROR_INVALID_VALUE;
  for (const auto& r : kResults)
    if (r.code == error) {
      *pStr = r.words;
      return CUDA_SUCCESS;
    }
  *pStr = nullptr;
  return CUDA_ERROR_INVALID_VALUE;
}

CUresult GPUREADY_CUDAAPI cuDriverGetVersion(int* driverVersion) {
  if (!driverVersion) return CUDA_ERROR_INVALID_VALUE;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.cfg = fake::load_config();
  *driverVersion = static_cast<int>(fake::get_int(s.cfg, "cuda_driver_version", 13000));
  return CUDA_SUCCESS;
}

CUresult GPUREADY_CUDAAPI cuInit(unsigned int Flags) {
  if (Flags != 0) return CUDA_ERROR_INVALID_VALUE;
  State& s = state();
  fake::json cfg = fake::load_config();
  fake::sleep_ms(fake::get_int(cfg, "cu_init_hang_ms", 0));
  std::lock_guard<std::mutex> lock(s.mu);
  s.cfg = std::move(cfg);
  s.initialised = false;
  s.visible.clear();
  const CUresult rc = code_of(s.cfg, "cu_init");
  if (rc != CUDA_SUCCESS) return rc;
  s.visible = enumerate(s.cfg);
  if (s.visible.empty()) return CUDA_ERROR_NO_DEVICE;  // as the real driver: no visible GPU fails cuInit itself
  s.initialised = true;
  return CUDA_SUCCESS;
}

CUresult GPUREADY_CUDAAPI cuDeviceGetCount(int* count) {
  if (!count) return CUDA_ERROR_INVALID_VALUE;
  if (!state().initialised) return CUDA_ERROR_NOT_INITIALIZED;
  *count = static_cast<int>(state().visible.size());
  return CUDA_SUCCESS;
}

CUresult GPUREADY_CUDAAPI cuDeviceGet(CUdevice* dev, int ordinal) {
  if (!dev) return CUDA_ERROR_INVALID_VALUE;
  if (!state().initialised) return CUDA_ERROR_NOT_INITIALIZED;
  if (!device(ordinal)) return CUDA_ERROR_INVALID_DEVICE;
  *dev = ordinal;
  return CUDA_SUCCESS;
}

CUresult GPUREADY_CUDAAPI cuDeviceGetName(char* name, int len, CUdevice dev) {
  const fake::json* g = device(dev);
  if (!g) return state().initialised ? CUDA_ERROR_INVALID_DEVICE : CUDA_ERROR_NOT_INITIALIZED;
  if (!name || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  fake::copy_string(fake::get_string(*g, "name"), name, static_cast<unsigned>(len));
  return CUDA_SUCCESS;
}

CUresult GPUREADY_CUDAAPI cuDeviceTotalMem_v2(size_t* bytes, CUdevice dev) {
  const fake::json* g = device(dev);
  if (!g) return state().initialised ? CUDA_ERROR_INVALID_DEVICE : CUDA_ERROR_NOT_INITIALIZED;
  if (!bytes) return CUDA_ERROR_INVALID_VALUE;
  *bytes = fake::has_number(*g, "memory_total_bytes")
               ? static_cast<size_t>(fake::get_int(*g, "memory_total_bytes", 0))
               : static_cast<size_t>(fake::get_int(*g, "memory_total_mib", 0)) << 20;
  return CUDA_SUCCESS;
}

CUresult GPUREADY_CUDAAPI cuDeviceGetAttribute(int* pi, CUdevice_attribute attrib, CUdevice dev) {
  const fake::json* g = device(dev);
  if (!g) return state().initialised ? CUDA_ERROR_INVALID_DEVICE : CUDA_ERROR_NOT_INITIALIZED;
  if (!pi) return CUDA_ERROR_INVALID_VALUE;
  unsigned domain = 0, bus = 0, devno = 0;
  fake::parse_bus_id(fake::get_string(*g, "pci_bus_id"), &domain, &bus, &devno);
  int major = 0, minor = 0;
  fake::parse_cc(fake::get_string(*g, "cc"), &major, &minor);
  switch (attrib) {
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *pi = static_cast<int>(fake::get_int(*g, "sm_count", 0)); break;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: *pi = static_cast<int>(bus); break;
    case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: *pi = static_cast<int>(devno); break;
    case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: *pi = static_cast<int>(domain); break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE:
      *pi = static_cast<int>(fake::get_int(*g, "mem_clock_max_mhz", 0) * 1000);
      break;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: *pi = static_cast<int>(fake::get_int(*g, "memory_bus_width", 0)); break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *pi = major; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *pi = minor; break;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

namespace {

struct Entry {
  const char* name;
  void* fn;
};

void* lookup(const char* symbol) {
  // cuGetProcAddress takes base names and hands out the ABI of the requested version: cuDeviceTotalMem -> _v2.
  const Entry table[] = {
      {"cuGetErrorName", reinterpret_cast<void*>(&cuGetErrorName)},
      {"cuGetErrorString", reinterpret_cast<void*>(&cuGetErrorString)},
      {"cuDriverGetVersion", reinterpret_cast<void*>(&cuDriverGetVersion)},
      {"cuInit", reinterpret_cast<void*>(&cuInit)},
      {"cuDeviceGetCount", reinterpret_cast<void*>(&cuDeviceGetCount)},
      {"cuDeviceGet", reinterpret_cast<void*>(&cuDeviceGet)},
      {"cuDeviceGetName", reinterpret_cast<void*>(&cuDeviceGetName)},
      {"cuDeviceTotalMem", reinterpret_cast<void*>(&cuDeviceTotalMem_v2)},
      {"cuDeviceGetAttribute", reinterpret_cast<void*>(&cuDeviceGetAttribute)},
  };
  if (!symbol) return nullptr;
  for (const auto& e : table)
    if (std::strcmp(symbol, e.name) == 0) return e.fn;
  return nullptr;
}

}  // namespace

CUresult GPUREADY_CUDAAPI cuGetProcAddress(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags) {
  (void)cudaVersion;
  (void)flags;
  if (!pfn) return CUDA_ERROR_INVALID_VALUE;
  *pfn = lookup(symbol);
  return *pfn ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

#ifndef FAKE_DRIVER_R470
CUresult GPUREADY_CUDAAPI cuGetProcAddress_v2(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags,
                                              CUdriverProcAddressQueryResult* symbolStatus) {
  const CUresult rc = cuGetProcAddress(symbol, pfn, cudaVersion, flags);
  if (symbolStatus) *symbolStatus = rc == CUDA_SUCCESS ? CU_GET_PROC_ADDRESS_SUCCESS : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return rc;
}
#endif
