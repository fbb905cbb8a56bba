// A fake libcuda.so.1: the CUDA driver API's real symbol names and C signatures (from
// src/vendors/cuda_driver/cuda_api.h), answering from the scenario JSON named by GPUREADY_FAKE_DRIVER.
// Like the real driver it orders devices its own way ("cuda_rank", fastest first) and honours
// CUDA_VISIBLE_DEVICES. Built twice: current (cuGetProcAddress_v2, CUDA 12+) and FAKE_DRIVER_R470
// (CUDA 11.4: only the 4-argument cuGetProcAddress of 11.3-11.8).
// The copy entry points (`gpuready __verify-copy`) run on host memory: cuMemAlloc is malloc, every
// copy is a synchronous memcpy, events read the steady clock, the spin kernel does nothing. Scenario
// keys for them: "cu_module_load" (the code cuModuleLoadData answers), "cu_mem_alloc_limit_bytes"
// (device memory per GPU before CUDA_ERROR_OUT_OF_MEMORY), "cu_peer_access" (every pair can access
// the other), and per GPU "host_numa_id" (CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID; absent: an older driver's
// CUDA_ERROR_INVALID_VALUE).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
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
  // The copy entry points: contexts are the ordinals' addresses in `contexts`; device memory is malloc'ed.
  int contexts[64] = {};
  int current = -1;                                              // ordinal of the current context, -1 none
  std::map<std::uintptr_t, std::pair<int, size_t>> allocations;  // pointer -> (ordinal, bytes)
  std::map<int, size_t> allocated;                               // ordinal -> bytes in use
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
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
     "the provided PTX was compiled with an unsupported toolchain."},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED",
     "peer access is already enabled"},
    {CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED",
     "peer access is not supported between these two devices"},
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
  if (fake::get_bool(cfg, "cu_init_crash", false)) fake::crash_now();
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
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE:
      *pi = static_cast<int>(fake::get_int(*g, "sm_clock_max_mhz", 0) * 1000);
      break;
    case CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID:
      if (!fake::has_number(*g, "host_numa_id")) return CUDA_ERROR_INVALID_VALUE;
      *pi = static_cast<int>(fake::get_int(*g, "host_numa_id", -1));
      break;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

// ---------------------------------------------------------------- copies (host memory)

namespace {

int ordinal_of(CUcontext ctx) {
  State& s = state();
  for (size_t i = 0; i < s.visible.size() && i < 64; ++i)
    if (ctx == reinterpret_cast<CUcontext>(&s.contexts[i])) return static_cast<int>(i);
  return -1;
}

void* host_of(CUdeviceptr p) { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(p)); }

// A device pointer this fake handed out (the whole range inside one allocation).
bool is_device_range(CUdeviceptr p, size_t n) {
  State& s = state();
  auto it = s.allocations.upper_bound(static_cast<std::uintptr_t>(p));
  if (it == s.allocations.begin()) return false;
  --it;
  return static_cast<std::uintptr_t>(p) >= it->first &&
         static_cast<std::uintptr_t>(p) + n <= it->first + it->second.second;
}

struct FakeEvent {
  std::chrono::steady_clock::time_point at{};
  bool recorded = false;
};

}  // namespace

CUresult GPUREADY_CUDAAPI cuDeviceGetPCIBusId(char* pciBusId, int len, CUdevice dev) {
  const fake::json* g = device(dev);
  if (!g) return state().initialised ? CUDA_ERROR_INVALID_DEVICE : CUDA_ERROR_NOT_INITIALIZED;
  if (!pciBusId || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  unsigned domain = 0, bus = 0, devno = 0;
  fake::parse_bus_id(fake::get_string(*g, "pci_bus_id"), &domain, &bus, &devno);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.0", domain, bus, devno);
  fake::copy_string(buf, pciBusId, static_cast<unsigned>(len));
  return CUDA_SUCCESS;
}

CUresult GPUREADY_CUDAAPI cuDeviceGetUuid(CUuuid* uuid, CUdevice dev) {
  const fake::json* g = device(dev);
  if (!g) return state().initialised ? CUDA_ERROR_INVALID_DEVICE : CUDA_ERROR_NOT_INITIALIZED;
  if (!uuid) return CUDA_ERROR_INVALID_VALUE;
  // "GPU-3b1f5c2e-9a47-...": its 32 hex digits, in order.
  std::memset(uuid->bytes, 0, sizeof uuid->bytes);
  int n = 0;
  for (char c : fake::get_string(*g, "uuid")) {
    const int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (v < 0 || n >= 32) continue;
    uuid->bytes[n / 2] = static_cast<char>(uuid->bytes[n / 2] | (n % 2 ? v : v << 4));
    ++n;
  }
  return CUDA_SUCCESS;
}

CUresult GPUREADY_CUDAAPI cuDeviceCanAccessPeer(int* canAccessPeer, CUdevice dev, CUdevice peerDev) {
  if (!canAccessPeer) return CUDA_ERROR_INVALID_VALUE;
  if (!device(dev) || !device(peerDev))
    return state().initialised ? CUDA_ERROR_INVALID_DEVICE : CUDA_ERROR_NOT_INITIALIZED;
  *canAccessPeer = dev != peerDev && fake::get_bool(state().cfg, "cu_peer_access", false) ? 1 : 0;
  return CUDA_SUCCESS;
}

CUresult GPUREADY_CUDAAPI cuDevicePrimaryCtxRetain(CUcontext* pctx, CUdevice dev) {
  if (!pctx) return CUDA_ERROR_INVALID_VALUE;
  if (!device(dev)) return state().initialised ? CUDA_ERROR_INVALID_DEVICE : CUDA_ERROR_NOT_INITIALIZED;
  *pctx = reinterpret_cast<CUcontext>(&state().contexts[dev]);
  return CUDA_SUCCESS;
}

CUresult GPUREADY_CUDAAPI cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
  return device(dev) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

CUresult GPUREADY_CUDAAPI cuCtxSetCurrent(CUcontext ctx) {
  const int ord = ctx ? ordinal_of(ctx) : -1;
  if (ctx && ord < 0) return CUDA_ERROR_INVALID_CONTEXT;
  state().current = ord;
  return CUDA_SUCCESS;
}

CUresult GPUREADY_CUDAAPI cuCtxSynchronize(void) {
  return state().current >= 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

CUresult GPUREADY_CUDAAPI cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags) {
  State& s = state();
  const int peer = ordinal_of(peerContext);
  if (Flags != 0 || peer < 0 || s.current < 0) return CUDA_ERROR_INVALID_VALUE;
  if (!fake::get_bool(s.cfg, "cu_peer_access", false) || peer == s.current) return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
  return CUDA_SUCCESS;
}

CUresult GPUREADY_CUDAAPI cuMemAlloc_v2(CUdeviceptr* dptr, size_t bytesize) {
  State& s = state();
  if (!dptr || bytesize == 0) return CUDA_ERROR_INVALID_VALUE;
  if (s.current < 0) return CUDA_ERROR_INVALID_CONTEXT;
  const long long limit = fake::get_int(s.cfg, "cu_mem_alloc_limit_bytes", -1);
  if (limit >= 0 && s.allocated[s.current] + bytesize > static_cast<unsigned long long>(limit))
    return CUDA_ERROR_OUT_OF_MEMORY;
  void* p = std::malloc(bytesize);
  if (!p) return CUDA_ERROR_OUT_OF_MEMORY;
  s.allocations[reinterpret_cast<std::uintptr_t>(p)] = {s.current, bytesize};
  s.allocated[s.current] += bytesize;
  *dptr = static_cast<CUdeviceptr>(reinterpret_cast<std::uintptr_t>(p));
  return CUDA_SUCCESS;
}

CUresult GPUREADY_CUDAAPI cuMemFree_v2(CUdeviceptr dptr) {
  State& s = state();
  auto it = s.allocations.find(static_cast<std::uintptr_t>(dptr));
  if (it == s.allocations.end()) return CUDA_ERROR_INVALID_VALUE;
  s.allocated[it->second.first] -= it->second.second;
  std::free(host_of(dptr));
  s.allocations.erase(it);
  return CUDA_SUCCESS;
}

CUresult GPUREADY_CUDAAPI cuMemHostAlloc(void** pp, size_t bytesize, unsigned int Flags) {
  (void)Flags;
  if (!pp || bytesize == 0) return CUDA_ERROR_INVALID_VALUE;
  if (state().current < 0) return CUDA_ERROR_INVALID_CONTEXT;
  *pp = std::malloc(bytesize);
  return *pp ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult GPUREADY_CUDAAPI cuMemFreeHost(void* p) {
  std::free(p);
  return CUDA_SUCCESS;
}

CUresult GPUREADY_CUDAAPI cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N) {
  if (!is_device_range(dstDevice, N)) return CUDA_ERROR_INVALID_VALUE;
  std::memset(host_of(dstDevice), uc, N);
  return CUDA_SUCCESS;
}

CUresult GPUREADY_CUDAAPI cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream) {
  (void)hStream;
  return cuMemsetD8_v2(dstDevice, uc, N);
}

CUresult GPUREADY_CUDAAPI cuMemGetInfo_v2(size_t* free, size_t* total) {
  State& s = state();
  if (!free || !total) return CUDA_ERROR_INVALID_VALUE;
  if (s.current < 0) return CUDA_ERROR_INVALID_CONTEXT;
  if (const CUresult rc = cuDeviceTotalMem_v2(total, s.current); rc != CUDA_SUCCESS) return rc;
  const size_t used = s.allocated[s.current];
  *free = *total > used ? *total - used : 0;
  return CUDA_SUCCESS;
}

CUresult GPUREADY_CUDAAPI cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount) {
  if (!srcHost || !is_device_range(dstDevice, ByteCount)) return CUDA_ERROR_INVALID_VALUE;
  std::memcpy(host_of(dstDevice), srcHost, ByteCount);
  return CUDA_SUCCESS;
}

CUresult GPUREADY_CUDAAPI cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount,
                                               CUstream hStream) {
  (void)hStream;
  if (!srcHost || !is_device_range(dstDevice, ByteCount)) return CUDA_ERROR_INVALID_VALUE;
  std::memcpy(host_of(dstDevice), srcHost, ByteCount);
  return CUDA_SUCCESS;
}

CUresult GPUREADY_CUDAAPI cuMemcpyDtoHAsync_v2(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount,
                                               CUstream hStream) {
  (void)hStream;
  if (!dstHost || !is_device_range(srcDevice, ByteCount)) return CUDA_ERROR_INVALID_VALUE;
  std::memcpy(dstHost, host_of(srcDevice), ByteCount);
  return CUDA_SUCCESS;
}

CUresult GPUREADY_CUDAAPI cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount,
                                               CUstream hStream) {
  (void)hStream;
  if (!is_device_range(dstDevice, ByteCount) || !is_device_range(srcDevice, ByteCount)) return CUDA_ERROR_INVALID_VALUE;
  std::memcpy(host_of(dstDevice), host_of(srcDevice), ByteCount);
  return CUDA_SUCCESS;
}

CUresult GPUREADY_CUDAAPI cuMemcpyPeerAsync(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
                                            CUcontext srcContext, size_t ByteCount, CUstream hStream) {
  if (ordinal_of(dstContext) < 0 || ordinal_of(srcContext) < 0) return CUDA_ERROR_INVALID_CONTEXT;
  return cuMemcpyDtoDAsync_v2(dstDevice, srcDevice, ByteCount, hStream);
}

CUresult GPUREADY_CUDAAPI cuStreamCreate(CUstream* phStream, unsigned int Flags) {
  (void)Flags;
  if (!phStream) return CUDA_ERROR_INVALID_VALUE;
  if (state().current < 0) return CUDA_ERROR_INVALID_CONTEXT;
  *phStream = reinterpret_cast<CUstream>(new int(0));
  return CUDA_SUCCESS;
}

CUresult GPUREADY_CUDAAPI cuStreamDestroy_v2(CUstream hStream) {
  delete reinterpret_cast<int*>(hStream);
  return CUDA_SUCCESS;
}

CUresult GPUREADY_CUDAAPI cuStreamSynchronize(CUstream hStream) {
  (void)hStream;
  return CUDA_SUCCESS;
}

CUresult GPUREADY_CUDAAPI cuEventCreate(CUevent* phEvent, unsigned int Flags) {
  (void)Flags;
  if (!phEvent) return CUDA_ERROR_INVALID_VALUE;
  *phEvent = reinterpret_cast<CUevent>(new FakeEvent());
  return CUDA_SUCCESS;
}

CUresult GPUREADY_CUDAAPI cuEventRecord(CUevent hEvent, CUstream hStream) {
  (void)hStream;
  if (!hEvent) return CUDA_ERROR_INVALID_HANDLE;
  auto* e = reinterpret_cast<FakeEvent*>(hEvent);
  e->at = std::chrono::steady_clock::now();
  e->recorded = true;
  return CUDA_SUCCESS;
}

// Every operation already ran when it was queued: an event is complete as soon as it is recorded.
CUresult GPUREADY_CUDAAPI cuEventQuery(CUevent hEvent) { return hEvent ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE; }

CUresult GPUREADY_CUDAAPI cuEventSynchronize(CUevent hEvent) {
  return hEvent ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult GPUREADY_CUDAAPI cuEventElapsedTime(float* pMilliseconds, CUevent hStart, CUevent hEnd) {
  if (!pMilliseconds || !hStart || !hEnd) return CUDA_ERROR_INVALID_VALUE;
  const auto* a = reinterpret_cast<FakeEvent*>(hStart);
  const auto* b = reinterpret_cast<FakeEvent*>(hEnd);
  if (!a->recorded || !b->recorded) return CUDA_ERROR_INVALID_HANDLE;
  *pMilliseconds = std::chrono::duration<float, std::milli>(b->at - a->at).count();
  return CUDA_SUCCESS;
}

CUresult GPUREADY_CUDAAPI cuEventDestroy_v2(CUevent hEvent) {
  delete reinterpret_cast<FakeEvent*>(hEvent);
  return CUDA_SUCCESS;
}

CUresult GPUREADY_CUDAAPI cuModuleLoadData(CUmodule* module, const void* image) {
  if (!module || !image) return CUDA_ERROR_INVALID_VALUE;
  const CUresult rc = code_of(state().cfg, "cu_module_load");
  if (rc != CUDA_SUCCESS) return rc;
  if (!std::strstr(static_cast<const char*>(image), ".entry")) return CUDA_ERROR_INVALID_PTX;
  *module = reinterpret_cast<CUmodule>(new int(0));
  return CUDA_SUCCESS;
}

// The CUDA module's fatbin or PTX text; "cu_module_load" as cuModuleLoadData, and on a failure the
// scenario's "cu_module_jit_log" in the error log buffer (as the driver's JIT fills it).
CUresult GPUREADY_CUDAAPI cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned int numOptions,
                                             CUjit_option* options, void** optionValues) {
  if (!module || !image) return CUDA_ERROR_INVALID_VALUE;
  const CUresult rc = code_of(state().cfg, "cu_module_load");
  if (rc != CUDA_SUCCESS) {
    const std::string log = fake::get_string(state().cfg, "cu_module_jit_log");
    char* buffer = nullptr;
    size_t size = 0;
    for (unsigned i = 0; i < numOptions && options && optionValues; ++i) {
      if (options[i] == CU_JIT_ERROR_LOG_BUFFER) buffer = static_cast<char*>(optionValues[i]);
      if (options[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES) size = reinterpret_cast<std::uintptr_t>(optionValues[i]);
    }
    if (buffer && size > 0) fake::copy_string(log, buffer, static_cast<unsigned>(size));
    return rc;
  }
  static const unsigned char kFatbinMagic[4] = {0x50, 0xed, 0x55, 0xba};
  if (std::memcmp(image, kFatbinMagic, 4) != 0 && !std::strstr(static_cast<const char*>(image), ".entry"))
    return CUDA_ERROR_INVALID_IMAGE;
  *module = reinterpret_cast<CUmodule>(new int(0));
  return CUDA_SUCCESS;
}

CUresult GPUREADY_CUDAAPI cuModuleGetFunction(CUfunction* hfunc, CUmodule hmod, const char* name) {
  if (!hfunc || !hmod || !name) return CUDA_ERROR_INVALID_VALUE;
  *hfunc = reinterpret_cast<CUfunction>(hmod);
  return CUDA_SUCCESS;
}

CUresult GPUREADY_CUDAAPI cuModuleUnload(CUmodule hmod) {
  delete reinterpret_cast<int*>(hmod);
  return CUDA_SUCCESS;
}

CUresult GPUREADY_CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                         unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                         unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                         void** kernelParams, void** extra) {
  (void)gridDimX, (void)gridDimY, (void)gridDimZ, (void)blockDimX, (void)blockDimY, (void)blockDimZ;
  (void)sharedMemBytes, (void)hStream, (void)extra;
  return f && kernelParams ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
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
      {"cuDeviceGetPCIBusId", reinterpret_cast<void*>(&cuDeviceGetPCIBusId)},
      {"cuDeviceCanAccessPeer", reinterpret_cast<void*>(&cuDeviceCanAccessPeer)},
      {"cuDevicePrimaryCtxRetain", reinterpret_cast<void*>(&cuDevicePrimaryCtxRetain)},
      {"cuDevicePrimaryCtxRelease", reinterpret_cast<void*>(&cuDevicePrimaryCtxRelease_v2)},
      {"cuCtxSetCurrent", reinterpret_cast<void*>(&cuCtxSetCurrent)},
      {"cuCtxSynchronize", reinterpret_cast<void*>(&cuCtxSynchronize)},
      {"cuCtxEnablePeerAccess", reinterpret_cast<void*>(&cuCtxEnablePeerAccess)},
      {"cuMemAlloc", reinterpret_cast<void*>(&cuMemAlloc_v2)},
      {"cuMemFree", reinterpret_cast<void*>(&cuMemFree_v2)},
      {"cuMemHostAlloc", reinterpret_cast<void*>(&cuMemHostAlloc)},
      {"cuMemFreeHost", reinterpret_cast<void*>(&cuMemFreeHost)},
      {"cuMemsetD8", reinterpret_cast<void*>(&cuMemsetD8_v2)},
      {"cuMemcpyHtoDAsync", reinterpret_cast<void*>(&cuMemcpyHtoDAsync_v2)},
      {"cuMemcpyDtoHAsync", reinterpret_cast<void*>(&cuMemcpyDtoHAsync_v2)},
      {"cuMemcpyDtoDAsync", reinterpret_cast<void*>(&cuMemcpyDtoDAsync_v2)},
      {"cuMemcpyPeerAsync", reinterpret_cast<void*>(&cuMemcpyPeerAsync)},
      {"cuStreamCreate", reinterpret_cast<void*>(&cuStreamCreate)},
      {"cuStreamDestroy", reinterpret_cast<void*>(&cuStreamDestroy_v2)},
      {"cuStreamSynchronize", reinterpret_cast<void*>(&cuStreamSynchronize)},
      {"cuEventCreate", reinterpret_cast<void*>(&cuEventCreate)},
      {"cuEventRecord", reinterpret_cast<void*>(&cuEventRecord)},
      {"cuEventQuery", reinterpret_cast<void*>(&cuEventQuery)},
      {"cuEventSynchronize", reinterpret_cast<void*>(&cuEventSynchronize)},
      {"cuEventElapsedTime", reinterpret_cast<void*>(&cuEventElapsedTime)},
      {"cuEventDestroy", reinterpret_cast<void*>(&cuEventDestroy_v2)},
      {"cuModuleLoadData", reinterpret_cast<void*>(&cuModuleLoadData)},
      {"cuModuleLoadDataEx", reinterpret_cast<void*>(&cuModuleLoadDataEx)},
      {"cuMemGetInfo", reinterpret_cast<void*>(&cuMemGetInfo_v2)},
      {"cuMemsetD8Async", reinterpret_cast<void*>(&cuMemsetD8Async)},
      {"cuMemcpyHtoD", reinterpret_cast<void*>(&cuMemcpyHtoD_v2)},
      {"cuDeviceGetUuid", reinterpret_cast<void*>(&cuDeviceGetUuid)},
      {"cuModuleGetFunction", reinterpret_cast<void*>(&cuModuleGetFunction)},
      {"cuModuleUnload", reinterpret_cast<void*>(&cuModuleUnload)},
      {"cuLaunchKernel", reinterpret_cast<void*>(&cuLaunchKernel)},
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
