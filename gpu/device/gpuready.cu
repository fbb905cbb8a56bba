// All of gpuready's device code, compiled ahead of time into one fatbin (gpuready.fatbin, by
// scripts/build-fatbin.sh) that the engine loads through the driver API (cuModuleLoadData) and
// launches by name (cuLaunchKernel): no CUDA runtime, no nvcc at build time. Every entry point is
// extern "C" so its name is the one gpu/launch.cpp asks for; templates stay behind them.
//
// Two families: verify's (test values, sampled read-back, the memory test's patterns) and the
// training engine's (only what no cuDNN or cuBLAS call does: gathering a shuffled batch, bias +
// ReLU, ReLU's backward with the bias gradient, softmax cross-entropy, Adam). Each is a plain
// grid-stride, memory-bound pass sized by the host for any GPU.
//
// It builds for every architecture from sm_50 (Maxwell) on: nothing here needs more than
// shuffles and 64-bit integer atomics; the one double atomic has a compare-and-swap fallback
// below sm_60, and bf16 conversions are done in software below sm_80 by cuda_bf16.h.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "device/shared.h"
#include "verify/test_values.h"

using gpuready::gpu::BiasSum;
using gpuready::gpu::BiasSums;
using gpuready::gpu::DeviceFault;
using gpuready::gpu::kThreads;
using gpuready::gpu::StepState;
using u64 = unsigned long long;
using bf16 = __nv_bfloat16;

// A named namespace, not an anonymous one: nvcc names the __shared__ arrays of internal-linkage
// templates after a hash of the source file's absolute path, so an anonymous namespace would make
// the fatbin's bytes depend on where the checkout lives (and build-fatbin.sh --check fail elsewhere).
namespace gr_device {

// ---- element conversions

template <class T>
__device__ __forceinline__ T from_float(float v);
template <>
__device__ __forceinline__ float from_float<float>(float v) {
  return v;
}
template <>
__device__ __forceinline__ __half from_float<__half>(float v) {
  return __float2half_rn(v);
}
template <>
__device__ __forceinline__ bf16 from_float<bf16>(float v) {
  return __float2bfloat16_rn(v);
}
__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_float(bf16 v) { return __bfloat162float(v); }

template <class T>
__device__ __forceinline__ float load(const T* p, long long i) {
  return to_float(p[i]);
}
template <class T>
__device__ __forceinline__ void store(T* p, long long i, float v) {
  p[i] = from_float<T>(v);
}

__device__ __forceinline__ void add_double(double* at, double v) {
#if __CUDA_ARCH__ >= 600
  atomicAdd(at, v);
#else
  auto* word = reinterpret_cast<u64*>(at);
  u64 old = *word, seen;
  do {
    seen = old;
    old = atomicCAS(word, seen, __double_as_longlong(__longlong_as_double(static_cast<long long>(seen)) + v));
  } while (seen != old);
#endif
}

// ---- verify: test values, read-back, planted corruption

template <class T>
__device__ void fill(T* p, u64 n, u64 seed) {
  for (u64 i = blockIdx.x * static_cast<u64>(blockDim.x) + threadIdx.x; i < n; i += static_cast<u64>(gridDim.x) * blockDim.x)
    p[i] = from_float<T>(gpuready::verify::test_value(seed, i));
}
template <class T>
__device__ void gather(const T* p, const u64* idx, double* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = to_float(p[idx[i]]);
}
template <class T>
__device__ void poke(T* p, u64 index, float v) {
  p[index] = from_float<T>(v);
}

// ---- verify: the memory test

__device__ unsigned pattern_word(int pattern, unsigned param, u64 w) {
  switch (pattern) {
    case gpuready::gpu::kWalkingOnes:
      return 1u << ((param + w) % 32);
    case gpuready::gpu::kWalkingZeros:
      return ~(1u << ((param + w) % 32));
    case gpuready::gpu::kAddress:
      return static_cast<unsigned>(w) ^ param;
    default:
      return static_cast<unsigned>(gpuready::verify::mix64(w ^ (static_cast<u64>(param) << 40)));
  }
}

// ---- training: a shuffled batch

template <class T>
__device__ void gather_batch(const float* __restrict__ images, const int* __restrict__ labels,
                             const int* __restrict__ order, const StepState* __restrict__ state, int n,
                             long long image_elems, T* __restrict__ x, int* __restrict__ y) {
  const long long base = order ? state->cursor : 0;
  for (int i = blockIdx.y; i < n; i += gridDim.y) {
    const long long row = order ? order[base + i] : i;
    const float* src = images + row * image_elems;
    T* dst = x + static_cast<long long>(i) * image_elems;
    for (long long j = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; j < image_elems;
         j += static_cast<long long>(gridDim.x) * blockDim.x)
      store(dst, j, src[j]);
    if (blockIdx.x == 0 && threadIdx.x == 0) y[i] = labels[row];
  }
}

// ---- training: bias + activation

template <class T, class I>
__device__ void bias_act(const T* __restrict__ x, T* __restrict__ y, const float* __restrict__ b, I total, I C, I HW,
                         bool relu) {
  for (I e = blockIdx.x * static_cast<I>(blockDim.x) + threadIdx.x; e < total; e += static_cast<I>(gridDim.x) * blockDim.x) {
    float v = load(x, e) + b[(e / HW) % C];
    if (relu && v < 0.f) v = 0.f;
    store(y, e, v);
  }
}

// ---- training: ReLU backward + bias gradient

__device__ float block_sum(float v, float* shared) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  v = threadIdx.x < blockDim.x / 32 ? shared[threadIdx.x] : 0.f;
  if (warp == 0)
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;  // valid in thread 0
}

// Block (c, j): images [j * per, (j + 1) * per) of channel c, every hw.
template <class T>
__device__ void relu_bias_spatial(const T* __restrict__ y, T* __restrict__ dy, long long n, int C, int HW, bool relu,
                                  float* __restrict__ partial, int splits) {
  __shared__ float shared[32];
  const int c = blockIdx.x, j = blockIdx.y;
  const long long per = (n + splits - 1) / splits, first = j * per;
  const long long last = first + per < n ? first + per : n;
  float sum = 0.f;
  const long long count = last > first ? (last - first) * HW : 0;
  const unsigned uhw = static_cast<unsigned>(HW);
  for (long long t = threadIdx.x; t < count; t += blockDim.x) {
    // count < 2^31 (the host keeps a block's share small), so 32-bit division suffices.
    const unsigned ut = static_cast<unsigned>(t);
    const long long i = first + ut / uhw, hw = ut % uhw;
    const long long e = (i * C + c) * HW + hw;
    float g = load(dy, e);
    if (relu && !(load(y, e) > 0.f)) g = 0.f;
    if (relu) store(dy, e, g);
    sum += g;
  }
  sum = block_sum(sum, shared);
  if (threadIdx.x == 0) partial[static_cast<long long>(c) * splits + j] = sum;
}

// Dense rows (n x C): threads (32 columns) x (8 row lanes), block (column group, j).
template <class T>
__device__ void relu_bias_dense(const T* __restrict__ y, T* __restrict__ dy, long long n, int C, bool relu,
                                float* __restrict__ partial, int splits) {
  __shared__ float shared[8][33];
  const int c = blockIdx.x * 32 + threadIdx.x, j = blockIdx.y;
  const long long per = (n + splits - 1) / splits, first = j * per;
  const long long last = first + per < n ? first + per : n;
  float sum = 0.f;
  if (c < C)
    for (long long i = first + threadIdx.y; i < last; i += blockDim.y) {
      const long long e = i * C + c;
      float g = load(dy, e);
      if (relu && !(load(y, e) > 0.f)) g = 0.f;
      if (relu) store(dy, e, g);
      sum += g;
    }
  shared[threadIdx.y][threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.y == 0 && c < C) {
    float s = 0.f;
    for (int r = 0; r < static_cast<int>(blockDim.y); ++r) s += shared[r][threadIdx.x];
    partial[static_cast<long long>(c) * splits + j] = s;
  }
}

template <class G>
__device__ void bias_finalize(const float* __restrict__ partial, const BiasSums& sums, G* __restrict__ grad) {
  for (int k = 0; k < sums.count; ++k) {
    const BiasSum& b = sums.s[k];
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < b.C; c += gridDim.x * blockDim.x) {
      float v = 0.f;
      for (int j = 0; j < b.splits; ++j) v += partial[b.from + static_cast<long long>(c) * b.splits + j];
      store(grad, b.offset + c, v);
    }
  }
}

// ---- training: softmax cross-entropy, one warp per row

template <class T>
__device__ void softmax_xent(const float* __restrict__ logits, const float* __restrict__ b,
                             const int* __restrict__ labels, int n, int classes, T* __restrict__ dlogits,
                             StepState* state) {
  __shared__ double loss_s[kThreads / 32];
  __shared__ unsigned hits_s[kThreads / 32];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int row = blockIdx.x * (kThreads / 32) + warp;
  double loss = 0;
  unsigned hit = 0;
  if (row < n) {
    const float* z = logits + static_cast<long long>(row) * classes;
    float top = -INFINITY;
    int arg = classes;
    for (int c = lane; c < classes; c += 32) {
      const float v = z[c] + b[c];
      if (v > top || (v == top && c < arg)) {
        top = v;
        arg = c;
      }
    }
    for (int o = 16; o > 0; o >>= 1) {
      const float ov = __shfl_xor_sync(0xffffffffu, top, o);
      const int oa = __shfl_xor_sync(0xffffffffu, arg, o);
      if (ov > top || (ov == top && oa < arg)) {
        top = ov;
        arg = oa;
      }
    }
    float sum = 0.f;
    for (int c = lane; c < classes; c += 32) sum += __expf(z[c] + b[c] - top);
    for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    const int label = labels[row];
    if (lane == 0) {
      loss = static_cast<double>(logf(sum)) - static_cast<double>(z[label] + b[label] - top);
      hit = arg == label ? 1u : 0u;
    }
    if (dlogits) {
      const float inv_n = 1.f / static_cast<float>(n), inv_sum = 1.f / sum;
      for (int c = lane; c < classes; c += 32) {
        const float p = __expf(z[c] + b[c] - top) * inv_sum;
        store(dlogits, static_cast<long long>(row) * classes + c, (p - (c == label ? 1.f : 0.f)) * inv_n);
      }
    }
  }
  if (lane == 0) {
    loss_s[warp] = loss;
    hits_s[warp] = hit;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    double l = 0;
    u64 h = 0;
    for (int w = 0; w < kThreads / 32; ++w) {
      l += loss_s[w];
      h += hits_s[w];
    }
    add_double(&state->loss_sum, l);
    atomicAdd(&state->hits, h);
  }
}

// ---- training: Keras' Adam

template <class G>
__device__ void adam(float* __restrict__ p, const G* __restrict__ g, float* __restrict__ m, float* __restrict__ v,
                     long long count, const StepState* __restrict__ state, float beta1, float beta2, float eps,
                     bf16* __restrict__ copy) {
  const float lr_t = static_cast<float>(state->lr_t);
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const float gi = load(g, i);
    const float mi = beta1 * m[i] + (1.f - beta1) * gi;
    const float vi = beta2 * v[i] + (1.f - beta2) * gi * gi;
    m[i] = mi;
    v[i] = vi;
    const float pi = p[i] - lr_t * mi / (sqrtf(vi) + eps);
    p[i] = pi;
    if (copy) copy[i] = __float2bfloat16(pi);
  }
}

}  // namespace gr_device

using namespace gr_device;

// ---- the entry points (names as gpu/launch.cpp asks for them: gr_<kernel>_<element type>)

#define GR_BY_ELEM(X) X(f32, float) X(f16, __half) X(bf16, bf16)
#define GR_BY_ACT(X) X(f32, float) X(bf16, bf16)

extern "C" {

#define GR_VERIFY(suffix, T)                                                                                   \
  __global__ void gr_fill_##suffix(T* p, u64 n, u64 seed) { fill(p, n, seed); }                                \
  __global__ void gr_gather_##suffix(const T* p, const u64* idx, double* out, int n) { gather(p, idx, out, n); } \
  __global__ void gr_poke_##suffix(T* p, u64 index, float v) { poke(p, index, v); }
GR_BY_ELEM(GR_VERIFY)

__global__ void gr_mem_write(unsigned* p, u64 words, u64 first, int pattern, unsigned param) {
  for (u64 i = blockIdx.x * static_cast<u64>(blockDim.x) + threadIdx.x; i < words; i += static_cast<u64>(gridDim.x) * blockDim.x)
    p[i] = pattern_word(pattern, param, first + i);
}

__global__ void gr_mem_check(const unsigned* p, u64 words, u64 first, int pattern, unsigned param, u64* count,
                             DeviceFault* faults, int max_faults) {
  for (u64 i = blockIdx.x * static_cast<u64>(blockDim.x) + threadIdx.x; i < words; i += static_cast<u64>(gridDim.x) * blockDim.x) {
    const unsigned want = pattern_word(pattern, param, first + i);
    // volatile: read the memory itself, once, as written.
    const unsigned got = static_cast<const volatile unsigned*>(p)[i];
    if (got != want) {
      const u64 at = atomicAdd(count, 1ull);
      if (at < static_cast<u64>(max_faults)) faults[at] = DeviceFault{first + i, want, got};
    }
  }
}

#define GR_TRAIN(suffix, T)                                                                                          \
  __global__ void gr_gather_batch_##suffix(const float* images, const int* labels, const int* order,                 \
                                           const StepState* state, int n, long long image_elems, T* x, int* y) {     \
    gather_batch(images, labels, order, state, n, image_elems, x, y);                                                \
  }                                                                                                                  \
  __global__ void gr_bias_act32_##suffix(const T* x, T* y, const float* b, unsigned total, unsigned C, unsigned HW,  \
                                         bool relu) {                                                                \
    bias_act(x, y, b, total, C, HW, relu);                                                                           \
  }                                                                                                                  \
  __global__ void gr_bias_act64_##suffix(const T* x, T* y, const float* b, long long total, long long C,             \
                                         long long HW, bool relu) {                                                  \
    bias_act(x, y, b, total, C, HW, relu);                                                                           \
  }                                                                                                                  \
  __global__ void gr_relu_bias_spatial_##suffix(const T* y, T* dy, long long n, int C, int HW, bool relu,            \
                                                float* partial, int splits) {                                        \
    relu_bias_spatial(y, dy, n, C, HW, relu, partial, splits);                                                       \
  }                                                                                                                  \
  __global__ void gr_relu_bias_dense_##suffix(const T* y, T* dy, long long n, int C, bool relu, float* partial,      \
                                              int splits) {                                                          \
    relu_bias_dense(y, dy, n, C, relu, partial, splits);                                                             \
  }                                                                                                                  \
  __global__ void gr_bias_finalize_##suffix(const float* partial, BiasSums sums, T* grad) {                          \
    bias_finalize(partial, sums, grad);                                                                              \
  }                                                                                                                  \
  __global__ void gr_softmax_xent_##suffix(const float* logits, const float* b, const int* labels, int n,            \
                                           int classes, T* dlogits, StepState* state) {                              \
    softmax_xent(logits, b, labels, n, classes, dlogits, state);                                                     \
  }                                                                                                                  \
  __global__ void gr_adam_##suffix(float* p, const T* g, float* m, float* v, long long count, const StepState* state, \
                                   float beta1, float beta2, float eps, bf16* copy) {                                \
    adam(p, g, m, v, count, state, beta1, beta2, eps, copy);                                                         \
  }
GR_BY_ACT(GR_TRAIN)

__global__ void gr_advance(StepState* state, int n, double lr, double beta1, double beta2) {
  state->cursor += n;
  const long long t = ++state->t;
  state->lr_t = lr * sqrt(1.0 - pow(beta2, static_cast<double>(t + 1))) / (1.0 - pow(beta1, static_cast<double>(t + 1)));
}

__global__ void gr_to_bf16(const float* src, bf16* dst, long long count) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    dst[i] = __float2bfloat16(src[i]);
}

}  // extern "C"
