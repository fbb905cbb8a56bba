// What the parts of the CUDA module share: the run's context, run-time loading of cuBLAS and
// cuDNN, timing, device buffers and reading sampled results back. The module measures; gpuready
// judges (verify/gpu_checks.h), so nothing here decides pass or fail.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/step_log.h"
#include "kernels.h"
#include "vendor_abi.h"
#include "verify/gpu_protocol.h"
#include "verify/test_values.h"

namespace gpuready::gpu {

// A library loaded for the rest of the process (the module's process ends after the checks).
struct Lib {
  void* handle = nullptr;
  std::string path;  // the file the loader mapped
};
// Loads with every symbol resolved now and visible to later loads (so a sub-library loaded by name
// afterwards binds to this file). Empty with *error = the loader's words when it fails.
Lib open_lib(const std::string& name_or_path, std::string* error);
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
// Tries each candidate (a path or a soname), loading the libcublasLt of the same folder first.
// false with *why listing each attempt.
bool load_cublas(const std::vector<std::string>& candidates, Cublas* out, std::string* why);
// Loads every file of the set by full path from `dir` (sub-libraries before libcudnn.so.N), then
// the symbols. `files` empty: libcudnn.so.9, then .8, as the loader finds them.
bool load_cudnn(const std::string& dir, const std::vector<std::string>& files, Cudnn* out, std::string* why);

struct Run {
  const verify::GpuRequest& req;
  verify::GpuReply& reply;
  StepLog& log;
  cudaStream_t stream = nullptr;
  bool wants(const std::string& key) const;
  bool wants_prefix(const std::string& prefix) const;
};

// "cudaMalloc failed: out of memory (cudaErrorMemoryAllocation)"
std::string cuda_error(const char* call, cudaError_t rc);
// A malloc'd copy of s for the C callers of the entry points (freed by their *_free).
char* to_c_string(const std::string& s);

// A device allocation freed when it goes out of scope.
class DevBuf {
 public:
  DevBuf() = default;
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  ~DevBuf() { reset(); }
  std::string alloc(std::size_t bytes);  // "" or the error
  void reset();
  void* get() const { return p_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(p_);
  }
  std::size_t bytes() const { return bytes_; }

 private:
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
};

// Times `call` on the stream: `warmup` calls, one call to size the samples, then `samples` samples
// of as many back-to-back calls as fill ~target_ms, each timed by events; *seconds gets the time of
// one call per sample. `call` returns "" or its error.
std::string time_calls(cudaStream_t s, int warmup, int samples, double target_ms,
                       const std::function<std::string()>& call, std::vector<double>* seconds, int* calls_per_sample);

// Reads req.points sampled elements of a result of `size` elements back (indices from the seed), after
// planting a wrong value at the first one when the request asks for the forced failure.
std::string sample_result(Run& run, void* p, Elem t, std::uint64_t size, std::uint64_t seed,
                          std::vector<verify::SampledValue>* out);

void run_gemm(Run& run, const Cublas* cublas, const std::string& unavailable);
void run_conv(Run& run, const Cudnn* cudnn, const std::string& unavailable);
void run_memory(Run& run);

}  // namespace gpuready::gpu
