// What the parts of the CUDA module share: the run's context, run-time loading of cuBLAS and
// cuDNN, timing, device buffers and reading sampled results back, all over the driver API
// (driver.h). The module measures; gpuready judges (verify/gpu_checks.h), so nothing here decides
// pass or fail.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/step_log.h"
#include "driver.h"
#include "kernels.h"
#include "libs.h"
#include "verify/gpu_protocol.h"
#include "verify/test_values.h"

namespace gpuready::gpu {

struct Run {
  const verify::GpuRequest& req;
  verify::GpuReply& reply;
  StepLog& log;
  CUstream stream = nullptr;
  bool wants(const std::string& key) const;
  bool wants_prefix(const std::string& prefix) const;
};

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
std::string time_calls(CUstream s, int warmup, int samples, double target_ms,
                       const std::function<std::string()>& call, std::vector<double>* seconds, int* calls_per_sample);

// Reads req.points sampled elements of a result of `size` elements back (indices from the seed), after
// planting a wrong value at the first one when the request asks for the forced failure.
std::string sample_result(Run& run, void* p, Elem t, std::uint64_t size, std::uint64_t seed,
                          std::vector<verify::SampledValue>* out);

void run_gemm(Run& run, const Cublas* cublas, const std::string& unavailable);
void run_conv(Run& run, const Cudnn* cudnn, const std::string& unavailable);
void run_memory(Run& run);

}  // namespace gpuready::gpu
