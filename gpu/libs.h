// Run-time loading of the libraries the CUDA module calls: cuBLAS and cuDNN from the files
// gpuready's probe chose (the toolkit's, the system's, a framework's pip wheels), the CUDA
// driver itself (driver.cpp), and which files the process really mapped afterwards. Through the
// platform's DynLib (src/platform: dlopen / LoadLibraryExW), absolute paths only.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "vendor_abi.h"

namespace gpuready::gpu {

// A library loaded for the rest of the process (the module's process ends after the checks).
struct Lib {
  void* handle = nullptr;
  std::string path;  // the file the loader mapped
};
// Loads an absolute path (a later load that names this file's soname or DLL name gets this
// file). Empty with *error = the loader's words when it fails.
Lib open_lib(const std::string& path, std::string* error);
void* lib_symbol(const Lib& lib, const char* name);
// Files mapped in this process whose name contains one of `needles` (after the checks: what
// cuBLAS and cuDNN really loaded, sub-libraries included).
std::vector<std::string> loaded_files(const std::vector<std::string>& needles);

struct Cublas {
#define GPUREADY_DECLARE(name, ret, params) ret(*name) params = nullptr;
  GPUREADY_CUBLAS_REQUIRED(GPUREADY_DECLARE)
  GPUREADY_CUBLAS_OPTIONAL(GPUREADY_DECLARE)
  Lib lib;
  std::string status(cublasStatus_t rc) const;  // "CUBLAS_STATUS_NOT_SUPPORTED (15)"
};
struct Cudnn {
  GPUREADY_CUDNN_REQUIRED(GPUREADY_DECLARE)
#undef GPUREADY_DECLARE
  Lib lib;
  std::string status(cudnnStatus_t rc) const;
};
// Tries each candidate (an absolute path), loading the cuBLASLt of the same folder first.
// false with *why listing each attempt.
bool load_cublas(const std::vector<std::string>& candidates, Cublas* out, std::string* why);
// Loads every file of the set by full path from `dir` (sub-libraries before libcudnn.so.N), then
// the symbols. `files` empty: no cuDNN (the probe found none).
bool load_cudnn(const std::string& dir, const std::vector<std::string>& files, Cudnn* out, std::string* why);
// cudnnGetVersion's number in words: 91900 -> "9.19.0" (cuDNN 9: major * 10000), 8907 -> "8.9.7" (cuDNN 8: major * 1000).
std::string cudnn_version_words(std::size_t v);

}  // namespace gpuready::gpu
