// The CUDA driver's entry points and CUresult names, with no OS access of their own: gpuready's
// probe and copy checks (through DynLib, cuda_loader.cpp) and the CUDA module (through its own
// loader, gpu/libs.cpp) resolve the same table the same way.
#include "vendors/cuda_driver/cuda_table.h"

namespace gpuready::cuda_driver {

Api resolve_api(const std::function<void*(const char*)>& symbol, std::string* resolved_via) {
  Api api;
  auto* gpa2 = reinterpret_cast<decltype(&::cuGetProcAddress_v2)>(symbol("cuGetProcAddress_v2"));
  auto* gpa1 = reinterpret_cast<decltype(&::cuGetProcAddress)>(symbol("cuGetProcAddress"));
  if (gpa2) {
    if (resolved_via) *resolved_via = "cuGetProcAddress_v2";
#define GPUREADY_CUDA_RESOLVE(member, proc_name, export_name)                                                \
  {                                                                                                          \
    void* p = nullptr;                                                                                       \
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;                            \
    if (gpa2(proc_name, &p, kRequestedCudaVersion, CU_GET_PROC_ADDRESS_DEFAULT, &status) == CUDA_SUCCESS && \
        status == CU_GET_PROC_ADDRESS_SUCCESS)                                                               \
      api.member = reinterpret_cast<decltype(&::member)>(p);                                                 \
  }
    GPUREADY_CUDA_SYMBOLS(GPUREADY_CUDA_RESOLVE)
#undef GPUREADY_CUDA_RESOLVE
  } else if (gpa1) {
    if (resolved_via) *resolved_via = "cuGetProcAddress";
#define GPUREADY_CUDA_RESOLVE(member, proc_name, export_name)                                       \
  {                                                                                                 \
    void* p = nullptr;                                                                              \
    if (gpa1(proc_name, &p, kRequestedCudaVersionV1, CU_GET_PROC_ADDRESS_DEFAULT) == CUDA_SUCCESS) \
      api.member = reinterpret_cast<decltype(&::member)>(p);                                        \
  }
    GPUREADY_CUDA_SYMBOLS(GPUREADY_CUDA_RESOLVE)
#undef GPUREADY_CUDA_RESOLVE
  } else {
    // Drivers older than CUDA 11.3: the exports themselves, by their suffixed (current-ABI) names.
    if (resolved_via) *resolved_via = "dlsym";
#define GPUREADY_CUDA_RESOLVE(member, proc_name, export_name) \
  api.member = reinterpret_cast<decltype(&::member)>(symbol(export_name));
    GPUREADY_CUDA_SYMBOLS(GPUREADY_CUDA_RESOLVE)
#undef GPUREADY_CUDA_RESOLVE
  }
  return api;
}

namespace {
std::string api_name(const std::string& call) {
  return call.size() > 3 && call.compare(call.size() - 3, 3, "_v2") == 0 ? call.substr(0, call.size() - 3) : call;
}
}  // namespace

std::string library_not_found(const std::string& label, const std::string& loader_words) {
  return "The CUDA driver library (" + label +
         ") was not found: no NVIDIA driver is installed, or it lacks CUDA support. Loader: " + loader_words;
}

std::string library_loaded(const std::string& path, const std::string& resolved_via) {
  return "loaded " + path + " (entry points via " + resolved_via + ")";
}

std::string entry_point_missing(const std::string& call, const std::string& file) {
  return api_name(call) + " is missing from " + file + " (driver too old?)";
}

std::string call_failed(const Api* api, const std::string& call, int rc) {
  const std::string name = result_name(api, rc);
  const std::string words = result_string(api, rc);
  return words.empty() ? api_name(call) + " failed: " + name : api_name(call) + " failed: " + words + " (" + name + ")";
}

std::string result_name(const Api* api, int code) {
  if (api && api->cuGetErrorName) {
    const char* s = nullptr;
    if (api->cuGetErrorName(static_cast<CUresult>(code), &s) == CUDA_SUCCESS && s && *s) return s;
  }
  switch (code) {
#define GPUREADY_CUDA_CASE(c) \
  case c:                     \
    return #c;
    GPUREADY_CUDA_CASE(CUDA_SUCCESS)
    GPUREADY_CUDA_CASE(CUDA_ERROR_INVALID_VALUE)
    GPUREADY_CUDA_CASE(CUDA_ERROR_OUT_OF_MEMORY)
    GPUREADY_CUDA_CASE(CUDA_ERROR_NOT_INITIALIZED)
    GPUREADY_CUDA_CASE(CUDA_ERROR_DEINITIALIZED)
    GPUREADY_CUDA_CASE(CUDA_ERROR_STUB_LIBRARY)
    GPUREADY_CUDA_CASE(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER)
    GPUREADY_CUDA_CASE(CUDA_ERROR_DEVICE_UNAVAILABLE)
    GPUREADY_CUDA_CASE(CUDA_ERROR_NO_DEVICE)
    GPUREADY_CUDA_CASE(CUDA_ERROR_INVALID_DEVICE)
    GPUREADY_CUDA_CASE(CUDA_ERROR_DEVICE_NOT_LICENSED)
    GPUREADY_CUDA_CASE(CUDA_ERROR_INVALID_IMAGE)
    GPUREADY_CUDA_CASE(CUDA_ERROR_INVALID_CONTEXT)
    GPUREADY_CUDA_CASE(CUDA_ERROR_NO_BINARY_FOR_GPU)
    GPUREADY_CUDA_CASE(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED)
    GPUREADY_CUDA_CASE(CUDA_ERROR_INVALID_PTX)
    GPUREADY_CUDA_CASE(CUDA_ERROR_JIT_COMPILER_NOT_FOUND)
    GPUREADY_CUDA_CASE(CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
    GPUREADY_CUDA_CASE(CUDA_ERROR_JIT_COMPILATION_DISABLED)
    GPUREADY_CUDA_CASE(CUDA_ERROR_OPERATING_SYSTEM)
    GPUREADY_CUDA_CASE(CUDA_ERROR_INVALID_HANDLE)
    GPUREADY_CUDA_CASE(CUDA_ERROR_NOT_FOUND)
    GPUREADY_CUDA_CASE(CUDA_ERROR_NOT_READY)
    GPUREADY_CUDA_CASE(CUDA_ERROR_ILLEGAL_ADDRESS)
    GPUREADY_CUDA_CASE(CUDA_ERROR_LAUNCH_TIMEOUT)
    GPUREADY_CUDA_CASE(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
    GPUREADY_CUDA_CASE(CUDA_ERROR_LAUNCH_FAILED)
    GPUREADY_CUDA_CASE(CUDA_ERROR_NOT_PERMITTED)
    GPUREADY_CUDA_CASE(CUDA_ERROR_NOT_SUPPORTED)
    GPUREADY_CUDA_CASE(CUDA_ERROR_SYSTEM_NOT_READY)
    GPUREADY_CUDA_CASE(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)
    GPUREADY_CUDA_CASE(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE)
    GPUREADY_CUDA_CASE(CUDA_ERROR_UNKNOWN)
#undef GPUREADY_CUDA_CASE
    default:
      return "CUDA_ERROR_" + std::to_string(code);
  }
}

std::string result_string(const Api* api, int code) {
  if (api && api->cuGetErrorString) {
    const char* s = nullptr;
    if (api->cuGetErrorString(static_cast<CUresult>(code), &s) == CUDA_SUCCESS && s) return s;
  }
  return {};
}

}  // namespace gpuready::cuda_driver
