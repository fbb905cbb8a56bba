// Cu: calls into the CUDA driver API table loaded at run time (vendors/cuda_driver) that come back
// as a Call with the error in words, or that the entry point is missing from the library, in the
// shared phrasing of cuda_table (cuda_driver::entry_point_missing / call_failed). Used by the
// copies' child (verify/copy.cpp).
#pragma once

#include <string>
#include <utility>

#include "vendors/cuda_driver/cuda_loader.h"

namespace gpuready::verify {

// One driver call's outcome: the error in words ("cuMemAlloc failed: out of memory
// (CUDA_ERROR_OUT_OF_MEMORY)", or that the entry point is missing), empty when it succeeded.
struct Call {
  int rc = CUDA_SUCCESS;
  std::string error;
  bool ok() const { return error.empty(); }
};

class Cu {
 public:
  Cu(const cuda_driver::Api& api, std::string file) : a(api), file_(std::move(file)) {}

  template <class Fn, class... Args>
  Call call(Fn* fn, const char* member, Args... args) const {
    Call c;
    if (!fn) {
      c.rc = CUDA_ERROR_NOT_FOUND;
      c.error = cuda_driver::entry_point_missing(member, file_);
      return c;
    }
    c.rc = fn(args...);
    if (c.rc != CUDA_SUCCESS) c.error = failed(member, c.rc);
    return c;
  }
  std::string failed(const char* member, int rc) const { return cuda_driver::call_failed(&a, member, rc); }
  std::string code(int rc) const { return cuda_driver::result_name(&a, rc); }

  const cuda_driver::Api& a;

 private:
  std::string file_;
};

// cu.call(cu.a.cuMemAlloc_v2, "cuMemAlloc_v2", args...) with the name written once.
#define GPUREADY_CU(cu, fn, ...) (cu).call((cu).a.fn, #fn __VA_OPT__(, ) __VA_ARGS__)

}  // namespace gpuready::verify
