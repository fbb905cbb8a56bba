// The module's own kernels (kernels.cu): filling buffers with the checks' test values, reading
// back sampled elements, and the memory test's patterns. Everything else runs in cuBLAS/cuDNN.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace gpuready::gpu {

enum class Elem { f32, f16, bf16 };

// p[i] = test_value(seed, i) (verify/test_values.h) in the element type, for i < n.
cudaError_t fill_values(void* p, Elem t, std::uint64_t n, std::uint64_t seed, cudaStream_t s);
// out[i] = p[idx[i]] as double, for i < n (idx and out in device memory).
cudaError_t gather_values(const void* p, Elem t, const std::uint64_t* idx, double* out, int n, cudaStream_t s);
// p[index] = v: the planted corruption.
cudaError_t poke_value(void* p, Elem t, std::uint64_t index, float v, cudaStream_t s);

// The memory test's patterns over 32-bit words. Word w (counted from the start of all tested
// memory, so every chunk continues the pattern) holds:
//   kWalkingOnes  1 << ((param + w) % 32)       each pass moves the one bit; 32 passes cover every bit of every word
//   kWalkingZeros ~(1 << ((param + w) % 32))
//   kAddress      the low 32 bits of w, xor param (a word written to or read from the wrong address shows)
//   kRandom       a hash of (param, w)
enum MemPattern : int { kWalkingOnes = 0, kWalkingZeros = 1, kAddress = 2, kRandom = 3 };
struct DeviceFault {
  unsigned long long word;  // global word index
  unsigned expected, got;
};
cudaError_t mem_write(std::uint32_t* p, std::uint64_t words, std::uint64_t first_word, int pattern, std::uint32_t param,
                      cudaStream_t s);
// Counts the words that differ in *count and stores the first max_faults of them in faults (in the
// order the GPU found them).
cudaError_t mem_check(const std::uint32_t* p, std::uint64_t words, std::uint64_t first_word, int pattern,
                      std::uint32_t param, unsigned long long* count, DeviceFault* faults, int max_faults,
                      cudaStream_t s);

}  // namespace gpuready::gpu
