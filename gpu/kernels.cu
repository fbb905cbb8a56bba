// The module's own kernels: grid-stride loops, one launch per buffer, sized for any GPU.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels.h"
#include "verify/test_values.h"

namespace gpuready::gpu {
namespace {

constexpr int kThreads = 256;

int blocks_for(std::uint64_t n) {
  // Enough blocks to fill any GPU (the loops stride over the rest); at least one.
  const std::uint64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<int>(b < 1 ? 1 : (b > 65536 ? 65536 : b));
}

template <class T>
__device__ T from_float(float v);
template <>
__device__ float from_float<float>(float v) {
  return v;
}
template <>
__device__ __half from_float<__half>(float v) {
  return __float2half_rn(v);
}
template <>
__device__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}

__device__ double to_double(float v) { return v; }
__device__ double to_double(__half v) { return __half2float(v); }
__device__ double to_double(__nv_bfloat16 v) { return __bfloat162float(v); }

template <class T>
__global__ void fill_kernel(T* p, std::uint64_t n, std::uint64_t seed) {
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x)
    p[i] = from_float<T>(verify::test_value(seed, i));
}

template <class T>
__global__ void gather_kernel(const T* p, const std::uint64_t* idx, double* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = to_double(p[idx[i]]);
}

template <class T>
__global__ void poke_kernel(T* p, std::uint64_t index, float v) {
  p[index] = from_float<T>(v);
}

__device__ std::uint32_t pattern_word(int pattern, std::uint32_t param, std::uint64_t w) {
  switch (pattern) {
    case kWalkingOnes:
      return 1u << ((param + w) % 32);
    case kWalkingZeros:
      return ~(1u << ((param + w) % 32));
    case kAddress:
      return static_cast<std::uint32_t>(w) ^ param;
    default:
      return static_cast<std::uint32_t>(verify::mix64(w ^ (static_cast<std::uint64_t>(param) << 40)));
  }
}

__global__ void mem_write_kernel(std::uint32_t* p, std::uint64_t words, std::uint64_t first, int pattern,
                                 std::uint32_t param) {
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < words;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x)
    p[i] = pattern_word(pattern, param, first + i);
}

__global__ void mem_check_kernel(const std::uint32_t* p, std::uint64_t words, std::uint64_t first, int pattern,
                                 std::uint32_t param, unsigned long long* count, DeviceFault* faults, int max_faults) {
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < words;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    const std::uint32_t want = pattern_word(pattern, param, first + i);
    // volatile: read the memory itself, once, as written.
    const std::uint32_t got = static_cast<const volatile std::uint32_t*>(p)[i];
    if (got != want) {
      const unsigned long long at = atomicAdd(count, 1ull);
      if (at < static_cast<unsigned long long>(max_faults)) faults[at] = DeviceFault{first + i, want, got};
    }
  }
}

template <class F>
cudaError_t by_type(Elem t, F&& f) {
  switch (t) {
    case Elem::f32:
      return f(float{});
    case Elem::f16:
      return f(__half{});
    case Elem::bf16:
      return f(__nv_bfloat16{});
  }
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t fill_values(void* p, Elem t, std::uint64_t n, std::uint64_t seed, cudaStream_t s) {
  return by_type(t, [&](auto v) {
    using T = decltype(v);
    fill_kernel<T><<<blocks_for(n), kThreads, 0, s>>>(static_cast<T*>(p), n, seed);
    return cudaGetLastError();
  });
}

cudaError_t gather_values(const void* p, Elem t, const std::uint64_t* idx, double* out, int n, cudaStream_t s) {
  return by_type(t, [&](auto v) {
    using T = decltype(v);
    gather_kernel<T><<<(n + kThreads - 1) / kThreads, kThreads, 0, s>>>(static_cast<const T*>(p), idx, out, n);
    return cudaGetLastError();
  });
}

cudaError_t poke_value(void* p, Elem t, std::uint64_t index, float v, cudaStream_t s) {
  return by_type(t, [&](auto x) {
    using T = decltype(x);
    poke_kernel<T><<<1, 1, 0, s>>>(static_cast<T*>(p), index, v);
    return cudaGetLastError();
  });
}

cudaError_t mem_write(std::uint32_t* p, std::uint64_t words, std::uint64_t first_word, int pattern, std::uint32_t param,
                      cudaStream_t s) {
  mem_write_kernel<<<blocks_for(words), kThreads, 0, s>>>(p, words, first_word, pattern, param);
  return cudaGetLastError();
}

cudaError_t mem_check(const std::uint32_t* p, std::uint64_t words, std::uint64_t first_word, int pattern,
                      std::uint32_t param, unsigned long long* count, DeviceFault* faults, int max_faults,
                      cudaStream_t s) {
  mem_check_kernel<<<blocks_for(words), kThreads, 0, s>>>(p, words, first_word, pattern, param, count, faults,
                                                          max_faults);
  return cudaGetLastError();
}

}  // namespace gpuready::gpu
