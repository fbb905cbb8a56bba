// The CUDA driver's entry points as one typed table, resolved through cuGetProcAddress with an
// explicit CUDA version (plain dlsym would return pre-_v2 ABIs), and the names of CUresult codes.
// No OS access here: the caller opens the library and hands over its symbol lookup, so gpuready
// (DynLib, cuda_loader.h) and the CUDA module (gpu/libs.cpp) share one table and one resolution.
#pragma once

#include <functional>
#include <string>

#include "vendors/cuda_driver/cuda_api.h"

namespace gpuready::cuda_driver {

struct Api {
#define GPUREADY_CUDA_MEMBER(member, proc_name, export_name) decltype(&::member) member = nullptr;
  GPUREADY_CUDA_SYMBOLS(GPUREADY_CUDA_MEMBER)
#undef GPUREADY_CUDA_MEMBER
};

// The CUDA version whose ABI the table's signatures follow (cuda_api.h is from CUDA 13.0). Asking
// for 12000 gives the _v2 ABIs where one exists since CUDA 3.2-11 (cuMemAlloc, cuMemcpy*Async,
// cuMemsetD8, cuStreamDestroy, cuEventDestroy, cuDevicePrimaryCtxRelease, cuDeviceTotalMem) and
// the base ones of the later changes: cuEventElapsedTime (_v2 since 12.8) and cuCtxSynchronize
// (_v2 since 13.0), whose base signatures cuda_api.h declares.
inline constexpr int kRequestedCudaVersion = 12000;
inline constexpr int kRequestedCudaVersionV1 = 11030;  // the oldest driver with cuGetProcAddress

// Every entry point of GPUREADY_CUDA_SYMBOLS through `symbol` (the library's own lookup):
// cuGetProcAddress_v2 on CUDA 12+ drivers, the 4-argument cuGetProcAddress on 11.3-11.8, the
// suffixed exports before. *resolved_via names the way taken. Missing entries stay nullptr.
Api resolve_api(const std::function<void*(const char*)>& symbol, std::string* resolved_via);

// The messages every user of the driver says the same way (the probe, verify's copies, the CUDA module):
//   library_not_found("libcuda.so.1", loader)  "The CUDA driver library (libcuda.so.1) was not found: no NVIDIA
//                                               driver is installed, or it lacks CUDA support. Loader: <loader>"
//   library_loaded(path, via)                   "loaded /usr/lib/.../libcuda.so.1 (entry points via cuGetProcAddress_v2)"
//   entry_point_missing("cuMemAlloc_v2", file)  "cuMemAlloc is missing from libcuda.so.1 (driver too old?)"
//   call_failed(api, "cuMemAlloc_v2", rc)       "cuMemAlloc failed: out of memory (CUDA_ERROR_OUT_OF_MEMORY)", or
//                                               "... failed: CUDA_ERROR_NO_DEVICE" when the driver has no words
// A call's table name may carry its ABI suffix (_v2): the message shows the API's own name.
std::string library_not_found(const std::string& label, const std::string& loader_words);
std::string library_loaded(const std::string& path, const std::string& resolved_via);
std::string entry_point_missing(const std::string& call, const std::string& file);
std::string call_failed(const Api* api, const std::string& call, int rc);

// "CUDA_ERROR_NO_DEVICE": from the driver's cuGetErrorName when loaded, else this build's table.
std::string result_name(const Api* api, int code);
// The driver's own sentence (cuGetErrorString), or empty.
std::string result_string(const Api* api, int code);

}  // namespace gpuready::cuda_driver
