// Launching the module's own kernels for verify (device/gpuready.cu, through driver.h's launch()):
// filling buffers with the checks' test values, reading back sampled elements, and the memory
// test's patterns (device/shared.h). Everything else runs in cuBLAS/cuDNN. Each returns the
// launch's CUresult.
#pragma once

#include <cstdint>

#include "device/shared.h"
#include "driver.h"

namespace gpuready::gpu {

enum class Elem { f32, f16, bf16 };

// p[i] = test_value(seed, i) (verify/test_values.h) in the element type, for i < n.
CUresult fill_values(void* p, Elem t, std::uint64_t n, std::uint64_t seed, CUstream s);
// out[i] = p[idx[i]] as double, for i < n (idx and out in device memory).
CUresult gather_values(const void* p, Elem t, const std::uint64_t* idx, double* out, int n, CUstream s);
// p[index] = v: the planted corruption.
CUresult poke_value(void* p, Elem t, std::uint64_t index, float v, CUstream s);

// The memory test: writes pattern (MemPattern) over `words` 32-bit words that start at global word
// `first_word`; then checks them, counting the words that differ in *count and storing the first
// max_faults of them in faults (in the order the GPU found them).
CUresult mem_write(std::uint32_t* p, std::uint64_t words, std::uint64_t first_word, int pattern, std::uint32_t param,
                   CUstream s);
CUresult mem_check(const std::uint32_t* p, std::uint64_t words, std::uint64_t first_word, int pattern,
                   std::uint32_t param, unsigned long long* count, DeviceFault* faults, int max_faults, CUstream s);

}  // namespace gpuready::gpu
