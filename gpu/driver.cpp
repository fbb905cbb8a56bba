// gpu/driver.h: the driver table, the device's primary context and the embedded kernels.
#include "driver.h"

#include <fmt/format.h>

#include <mutex>
#include <unordered_map>

#include "device/fatbin.h"
#include "libs.h"
#include "parse/fatbin.h"

namespace gpuready::gpu {
namespace {

struct Driver {
  std::once_flag once;
  bool ok = false;
  std::string why;
  DriverInfo info;
  cuda_driver::Api api;
};
Driver& driver() {
  static Driver d;
  return d;
}

struct Kernels {
  CUmodule module = nullptr;
  int cc_major = 0, cc_minor = 0;  // of the device use_device() opened
  std::mutex mu;
  std::unordered_map<std::string, CUfunction> functions;
};
Kernels& kernels() {
  static Kernels k;
  return k;
}

}  // namespace

const cuda_driver::Api& cu() { return driver().api; }

std::string cu_error(const char* call, CUresult rc) {
  return cuda_driver::call_failed(driver().ok ? &driver().api : nullptr, call, rc);
}

std::string result_code(CUresult rc) { return cuda_driver::result_name(driver().ok ? &driver().api : nullptr, rc); }

bool open_driver(const std::string& path, DriverInfo* info, std::string* why) {
  Driver& d = driver();
  std::call_once(d.once, [&] {
    if (path.empty()) {
      // gpuready hands over the file its probe loaded; never a bare name for the loader to search.
      d.why = "the probe found no CUDA driver library (libcuda.so.1 / nvcuda.dll): is the NVIDIA driver installed? "
              "(gpuready doctor says why)";
      return;
    }
    std::string err;
    Lib lib = open_lib(path, &err);  // absolute paths only
    if (!lib.handle) {
      d.why = cuda_driver::library_not_found(path, err);
      return;
    }
    d.info.path = lib.path;
    d.api = cuda_driver::resolve_api([&](const char* name) { return lib_symbol(lib, name); }, &d.info.resolved_via);
    // What every run needs; graphs (cuGraphInstantiateWithFlags, CUDA 11.4+) and the rest are
    // checked where they are used.
    std::string missing;  // the first entry point the module needs and this driver lacks
    auto need = [&](const void* p, const char* name) {
      if (!p && missing.empty()) missing = cuda_driver::entry_point_missing(name, d.info.path);
    };
    need(reinterpret_cast<const void*>(d.api.cuInit), "cuInit");
    need(reinterpret_cast<const void*>(d.api.cuDriverGetVersion), "cuDriverGetVersion");
    need(reinterpret_cast<const void*>(d.api.cuDeviceGet), "cuDeviceGet");
    need(reinterpret_cast<const void*>(d.api.cuDeviceGetCount), "cuDeviceGetCount");
    need(reinterpret_cast<const void*>(d.api.cuDeviceGetAttribute), "cuDeviceGetAttribute");
    need(reinterpret_cast<const void*>(d.api.cuDevicePrimaryCtxRetain), "cuDevicePrimaryCtxRetain");
    need(reinterpret_cast<const void*>(d.api.cuCtxSetCurrent), "cuCtxSetCurrent");
    need(reinterpret_cast<const void*>(d.api.cuMemAlloc_v2), "cuMemAlloc");
    need(reinterpret_cast<const void*>(d.api.cuMemFree_v2), "cuMemFree");
    need(reinterpret_cast<const void*>(d.api.cuMemGetInfo_v2), "cuMemGetInfo");
    need(reinterpret_cast<const void*>(d.api.cuMemsetD8Async), "cuMemsetD8Async");
    need(reinterpret_cast<const void*>(d.api.cuMemcpyHtoDAsync_v2), "cuMemcpyHtoDAsync");
    need(reinterpret_cast<const void*>(d.api.cuMemcpyDtoHAsync_v2), "cuMemcpyDtoHAsync");
    need(reinterpret_cast<const void*>(d.api.cuMemcpyDtoDAsync_v2), "cuMemcpyDtoDAsync");
    need(reinterpret_cast<const void*>(d.api.cuStreamCreate), "cuStreamCreate");
    need(reinterpret_cast<const void*>(d.api.cuStreamSynchronize), "cuStreamSynchronize");
    need(reinterpret_cast<const void*>(d.api.cuEventCreate), "cuEventCreate");
    need(reinterpret_cast<const void*>(d.api.cuEventRecord), "cuEventRecord");
    need(reinterpret_cast<const void*>(d.api.cuEventSynchronize), "cuEventSynchronize");
    need(reinterpret_cast<const void*>(d.api.cuEventElapsedTime), "cuEventElapsedTime");
    need(reinterpret_cast<const void*>(d.api.cuModuleLoadDataEx), "cuModuleLoadDataEx");
    need(reinterpret_cast<const void*>(d.api.cuModuleGetFunction), "cuModuleGetFunction");
    need(reinterpret_cast<const void*>(d.api.cuLaunchKernel), "cuLaunchKernel");
    if (!missing.empty()) {
      d.why = fmt::format("{}; entry points resolved through {}", missing, d.info.resolved_via);
      return;
    }
    d.api.cuDriverGetVersion(&d.info.version);
    d.ok = true;  // cu_error() may name codes through the driver from here on
    if (const CUresult rc = d.api.cuInit(0); rc != CUDA_SUCCESS) {
      d.ok = false;
      d.why = cu_error("cuInit", rc);
      if (rc == CUDA_ERROR_STUB_LIBRARY)
        d.why += fmt::format(": {} is the toolkit's stub, not the driver", d.info.path);
      return;
    }
  });
  if (info) *info = d.info;
  if (!d.ok && why) *why = d.why;
  return d.ok;
}

bool use_device(int ordinal, CUdevice* dev, std::string* why) {
  int count = 0;
  if (const CUresult rc = cu().cuDeviceGetCount(&count); rc != CUDA_SUCCESS) {
    *why = cu_error("cuDeviceGetCount", rc);
    return false;
  }
  if (ordinal < 0 || ordinal >= count) {
    *why = fmt::format("CUDA device {} asked for; the driver sees {}", ordinal, count);
    return false;
  }
  CUresult rc = cu().cuDeviceGet(dev, ordinal);
  CUcontext ctx = nullptr;
  if (rc == CUDA_SUCCESS) rc = cu().cuDevicePrimaryCtxRetain(&ctx, *dev);
  if (rc == CUDA_SUCCESS) rc = cu().cuCtxSetCurrent(ctx);
  if (rc != CUDA_SUCCESS) {
    *why = cu_error("creating the device's context (cuDevicePrimaryCtxRetain)", rc);
    return false;
  }
  cu().cuDeviceGetAttribute(&kernels().cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, *dev);
  cu().cuDeviceGetAttribute(&kernels().cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, *dev);
  return true;
}

bool load_kernels(std::string* why) {
  Kernels& k = kernels();
  std::lock_guard<std::mutex> lock(k.mu);
  if (k.module) return true;
  char log[4096] = {};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {log, reinterpret_cast<void*>(static_cast<std::uintptr_t>(sizeof log - 1))};
  const CUresult rc = cu().cuModuleLoadDataEx(&k.module, gpuready_fatbin_data(), 2, options, values);
  if (rc != CUDA_SUCCESS) {
    k.module = nullptr;
    *why = cu_error("loading gpuready's kernels (cuModuleLoadDataEx)", rc);
    if (log[0]) *why += fmt::format("; the driver's JIT said: {}", log);
    return false;
  }
  return true;
}

CUfunction kernel(const char* name) {
  Kernels& k = kernels();
  std::lock_guard<std::mutex> lock(k.mu);
  if (!k.module) return nullptr;
  auto it = k.functions.find(name);
  if (it != k.functions.end()) return it->second;
  CUfunction f = nullptr;
  if (cu().cuModuleGetFunction(&f, k.module, name) != CUDA_SUCCESS) f = nullptr;
  k.functions.emplace(name, f);
  return f;
}

namespace {
std::string_view fatbin_bytes() {
  return {reinterpret_cast<const char*>(gpuready_fatbin_data()), gpuready_fatbin_size()};
}
}  // namespace

std::string fatbin_toolkit() {
  const auto fb = parse::parse_fatbin(fatbin_bytes(), nullptr);
  if (!fb) return "";
  for (const auto& e : fb->entries) {
    if (e.kind != parse::FatbinEntry::Kind::cubin || e.compressed) continue;
    if (const auto h = parse::parse_cubin_header(fatbin_bytes().substr(e.offset, e.size), nullptr))
      return fmt::format("{}.{}", h->toolkit / 10, h->toolkit % 10);
  }
  return "";
}

std::string kernel_image_for(int cc_major, int cc_minor) {
  const auto fb = parse::parse_fatbin(fatbin_bytes(), nullptr);
  if (!fb) return "";
  const int cc = cc_major * 10 + cc_minor;
  int sass = 0, ptx = 0;
  for (const auto& e : fb->entries) {
    // A cubin runs on its own major family at an equal or higher minor (sm_80 code on an 8.6 GPU);
    // PTX on anything at or above its architecture.
    if (e.kind == parse::FatbinEntry::Kind::cubin && e.arch / 10 == cc_major && e.arch <= cc && e.arch > sass)
      sass = e.arch;
    if (e.kind == parse::FatbinEntry::Kind::ptx && e.arch <= cc && e.arch > ptx) ptx = e.arch;
  }
  if (sass) return fmt::format("SASS sm_{}", sass);
  if (ptx) return fmt::format("PTX compute_{} (JIT-compiled by the driver)", ptx);
  return "";
}

std::string kernel_image_in_use() { return kernel_image_for(kernels().cc_major, kernels().cc_minor); }

}  // namespace gpuready::gpu
