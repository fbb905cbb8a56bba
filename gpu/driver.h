// The CUDA module's one door to the GPU: the CUDA driver API (libcuda / nvcuda.dll), opened from
// the absolute path gpuready hands over and resolved into the same table gpuready's probe uses
// (vendors/cuda_driver/cuda_table.h); the device's primary context, which cuBLAS and cuDNN then
// share; and the module's kernels, loaded from the fatbin compiled ahead of time
// (device/gpuready.cu, gpu/device/README.md). No CUDA runtime: any driver that can run the
// kernels (SASS from sm_50, PTX beyond sm_90) runs the module.
#pragma once

#include <cstdint>
#include <string>

#include "vendors/cuda_driver/cuda_table.h"

namespace gpuready::gpu {

// The process's driver table; valid after open_driver() returned true.
const cuda_driver::Api& cu();

struct DriverInfo {
  std::string path;          // the file the loader mapped
  std::string resolved_via;  // "cuGetProcAddress_v2" | "cuGetProcAddress" | "dlsym"
  int version = 0;           // cuDriverGetVersion: 12080 = CUDA 12.8
};
// Opens the driver library (an absolute path; empty: refused, the probe found none), checks the entry points the module needs and calls cuInit(0). Once per process: later
// calls return the first one's answer. false + *why in words.
bool open_driver(const std::string& path, DriverInfo* info, std::string* why);

// "cuMemAlloc failed: out of memory (CUDA_ERROR_OUT_OF_MEMORY)"
std::string cu_error(const char* call, CUresult rc);
// "CUDA_ERROR_OUT_OF_MEMORY"
std::string result_code(CUresult rc);

inline CUdeviceptr dptr(const void* p) { return static_cast<CUdeviceptr>(reinterpret_cast<std::uintptr_t>(p)); }

// Device `ordinal`'s primary context, made current on this thread. false + *why.
bool use_device(int ordinal, CUdevice* dev, std::string* why);

// The embedded fatbin's module, loaded into the current context (the driver picks the SASS for
// this GPU or JIT-compiles the PTX); its kernels are then found by name (kernel()). false + *why,
// with the JIT's own log when PTX did not compile.
bool load_kernels(std::string* why);
// A kernel of the loaded module ("gr_fill_f32"); nullptr when load_kernels() has not succeeded or
// the module lacks it.
CUfunction kernel(const char* name);
// Which image the driver could take for a GPU of compute capability major.minor: "SASS sm_90",
// "PTX compute_90 (JIT)", or "" when the fatbin has neither (the GPU is older than sm_50).
std::string kernel_image_for(int cc_major, int cc_minor);
// kernel_image_for() of the device use_device() opened.
std::string kernel_image_in_use();
// The CUDA toolkit that compiled the fatbin, from its cubins' headers: "11.8".
std::string fatbin_toolkit();

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};
// cuLaunchKernel with `args` as the kernel's parameters, in order; each argument's type must be
// the kernel's parameter type (pointers, integers of the same width, structs of the same layout).
template <class... A>
CUresult launch(const char* name, Dim3 grid, Dim3 block, CUstream s, A... args) {
  CUfunction f = kernel(name);
  if (!f) return CUDA_ERROR_NOT_FOUND;
  void* params[] = {static_cast<void*>(&args)..., nullptr};
  return cu().cuLaunchKernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z, 0, s, params, nullptr);
}

}  // namespace gpuready::gpu
