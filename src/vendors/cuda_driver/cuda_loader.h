// Loading the CUDA driver library (libcuda.so.1 / nvcuda.dll) at run time: candidate names,
// the typed entry-point table resolved through cuGetProcAddress with an explicit CUDA
// version (plain dlsym would return pre-_v2 ABIs), and the names of CUresult codes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "platform/os.h"
#include "vendors/cuda_driver/cuda_api.h"

namespace gpuready::cuda_driver {

struct Api {
#define GPUREADY_CUDA_MEMBER(member, proc_name, export_name) decltype(&::member) member = nullptr;
  GPUREADY_CUDA_SYMBOLS(GPUREADY_CUDA_MEMBER)
#undef GPUREADY_CUDA_MEMBER
};

struct Library {
  DynLib::Handle handle;
  std::string candidate;             // the name or path that loaded
  std::optional<std::string> path;   // the file the loader mapped
  std::string resolved_via;          // "cuGetProcAddress_v2" | "cuGetProcAddress" | "dlsym"
  Api api;
};

// The CUDA version whose ABI the table's signatures follow (cuda_api.h is from CUDA 13.0). Asking
// for 12000 gives the _v2 ABIs where one exists since CUDA 3.2-11 (cuMemAlloc, cuMemcpy*Async,
// cuMemsetD8, cuStreamDestroy, cuEventDestroy, cuDevicePrimaryCtxRelease, cuDeviceTotalMem) and
// the base ones of the later changes: cuEventElapsedTime (_v2 since 12.8) and cuCtxSynchronize
// (_v2 since 13.0), whose base signatures cuda_api.h declares.
inline constexpr int kRequestedCudaVersion = 12000;
inline constexpr int kRequestedCudaVersionV1 = 11030;  // the oldest driver with cuGetProcAddress

std::vector<std::string> default_candidates(const Env& env);

// Tries each candidate; resolves every entry point. nullopt + *error (the loader's words) when none loads.
// Each candidate is resolved to an absolute file first (vendors::resolve_library), never handed
// to the loader as a bare name.
std::optional<Library> load(const Os& os, const std::vector<std::string>& candidates, std::string* error);
void unload(const DynLib& dl, Library& lib);

// "CUDA_ERROR_NO_DEVICE": from the driver's cuGetErrorName when loaded, else this build's table.
std::string result_name(const Api* api, int code);
// The driver's own sentence (cuGetErrorString), or empty.
std::string result_string(const Api* api, int code);

}  // namespace gpuready::cuda_driver
