// The training engine's own kernels (train_kernels.h). Each is a plain memory-bound pass; they
// are few and small next to cuDNN's convolutions and cuBLAS' products, and a whole step with
// them is replayed from one CUDA graph, so their launch cost is paid once per capture.
#include <cuda_bf16.h>

#include "train_kernels.h"

namespace gpuready::gpu {
namespace {

constexpr int kThreads = 256;

template <class T>
__device__ __forceinline__ float load(const T* p, long long i);
template <>
__device__ __forceinline__ float load<float>(const float* p, long long i) {
  return p[i];
}
template <>
__device__ __forceinline__ float load<__nv_bfloat16>(const __nv_bfloat16* p, long long i) {
  return __bfloat162float(p[i]);
}
__device__ __forceinline__ void store(float* p, long long i, float v) { p[i] = v; }
__device__ __forceinline__ void store(__nv_bfloat16* p, long long i, float v) { p[i] = __float2bfloat16(v); }

unsigned blocks_for(long long n, long long cap = 65535) {
  const long long b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 1 ? 1 : (b > cap ? cap : b));
}

// ---- gather

template <class T>
__global__ void gather_kernel(const float* __restrict__ images, const int* __restrict__ labels,
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

// ---- bias + activation

template <class T, class I>
__global__ void bias_act_kernel(const T* __restrict__ x, T* __restrict__ y, const float* __restrict__ b, I total, I C,
                                I HW, bool relu) {
  for (I e = blockIdx.x * static_cast<I>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<I>(gridDim.x) * blockDim.x) {
    float v = load(x, e) + b[(e / HW) % C];
    if (relu && v < 0.f) v = 0.f;
    store(y, e, v);
  }
}

// ---- ReLU backward + bias gradient

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
__global__ void relu_bias_spatial(const T* __restrict__ y, T* __restrict__ dy, long long n, int C, int HW, bool relu,
                                  float* __restrict__ partial, int splits) {
  __shared__ float shared[32];
  const int c = blockIdx.x, j = blockIdx.y;
  const long long per = (n + splits - 1) / splits, first = j * per;
  const long long last = first + per < n ? first + per : n;
  float sum = 0.f;
  const long long count = last > first ? (last - first) * HW : 0;
  const unsigned uhw = static_cast<unsigned>(HW);
  for (long long t = threadIdx.x; t < count; t += blockDim.x) {
    // count < 2^31 (bias_splits keeps a block's share small), so 32-bit division suffices.
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
__global__ void relu_bias_dense(const T* __restrict__ y, T* __restrict__ dy, long long n, int C, bool relu,
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

struct BiasSums {
  BiasSum s[4];
  int count;
};

template <class G>
__global__ void bias_finalize_kernel(const float* __restrict__ partial, BiasSums sums, G* __restrict__ grad) {
  for (int k = 0; k < sums.count; ++k) {
    const BiasSum& b = sums.s[k];
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < b.C; c += gridDim.x * blockDim.x) {
      float v = 0.f;
      for (int j = 0; j < b.splits; ++j) v += partial[b.from + static_cast<long long>(c) * b.splits + j];
      store(grad, b.offset + c, v);
    }
  }
}

// ---- softmax cross-entropy: one warp per row

template <class T>
__global__ void softmax_xent_kernel(const float* __restrict__ logits, const float* __restrict__ b,
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
    unsigned long long h = 0;
    for (int w = 0; w < kThreads / 32; ++w) {
      l += loss_s[w];
      h += hits_s[w];
    }
    atomicAdd(&state->loss_sum, l);
    atomicAdd(&state->hits, h);
  }
}

// ---- Adam

template <class G>
__global__ void adam_kernel(float* __restrict__ p, const G* __restrict__ g, float* __restrict__ m,
                            float* __restrict__ v, long long count, const StepState* __restrict__ state, float beta1,
                            float beta2, float eps, __nv_bfloat16* __restrict__ copy) {
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

__global__ void advance_kernel(StepState* state, int n, double lr, double beta1, double beta2) {
  state->cursor += n;
  const long long t = ++state->t;
  state->lr_t =
      lr * sqrt(1.0 - pow(beta2, static_cast<double>(t + 1))) / (1.0 - pow(beta1, static_cast<double>(t + 1)));
}

__global__ void to_bf16_kernel(const float* __restrict__ src, __nv_bfloat16* __restrict__ dst, long long count) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    dst[i] = __float2bfloat16(src[i]);
}

}  // namespace

cudaError_t gather_batch(const float* images, const int* labels, const int* order, const StepState* state, int n,
                         long long image_elems, void* x, Elem xt, int* y, cudaStream_t s) {
  if (n <= 0) return cudaSuccess;
  const dim3 grid(blocks_for(image_elems, 1024), static_cast<unsigned>(n < 65535 ? n : 65535));
  if (xt == Elem::bf16)
    gather_kernel<<<grid, kThreads, 0, s>>>(images, labels, order, state, n, image_elems,
                                            static_cast<__nv_bfloat16*>(x), y);
  else
    gather_kernel<<<grid, kThreads, 0, s>>>(images, labels, order, state, n, image_elems, static_cast<float*>(x), y);
  return cudaGetLastError();
}

namespace {
template <class T>
void launch_bias_act(const void* x, void* y, const float* b, long long total, int C, int HW, bool relu,
                     cudaStream_t s) {
  const unsigned blocks = blocks_for(total, 8192);
  auto* xi = static_cast<const T*>(x);
  auto* yo = static_cast<T*>(y);
  if (total < (1ll << 31))  // 32-bit index arithmetic where it fits: a 64-bit division is slow
    bias_act_kernel<<<blocks, kThreads, 0, s>>>(xi, yo, b, static_cast<unsigned>(total), static_cast<unsigned>(C),
                                                static_cast<unsigned>(HW), relu);
  else
    bias_act_kernel<<<blocks, kThreads, 0, s>>>(xi, yo, b, total, static_cast<long long>(C), static_cast<long long>(HW),
                                                relu);
}
}  // namespace

cudaError_t bias_act(const void* x, void* y, Elem t, const float* b, long long n, int C, int HW, bool relu,
                     cudaStream_t s) {
  const long long total = n * C * HW;
  if (total <= 0) return cudaSuccess;
  if (t == Elem::bf16)
    launch_bias_act<__nv_bfloat16>(x, y, b, total, C, HW, relu, s);
  else
    launch_bias_act<float>(x, y, b, total, C, HW, relu, s);
  return cudaGetLastError();
}

int bias_splits(long long n, int HW) {
  const long long per_block = HW == 1 ? 256 : 8192;
  long long s = (n * HW + per_block - 1) / per_block;
  if (s > n) s = n;
  if (s > 256) s = 256;
  return static_cast<int>(s < 1 ? 1 : s);
}

cudaError_t relu_backward_bias(const void* y, void* dy, Elem t, long long n, int C, int HW, bool relu, float* partial,
                               int splits, cudaStream_t s) {
  if (n <= 0 || C <= 0) return cudaSuccess;
  const bool bf = t == Elem::bf16;
  if (HW == 1) {
    const dim3 grid(static_cast<unsigned>((C + 31) / 32), static_cast<unsigned>(splits)), block(32, 8);
    if (bf)
      relu_bias_dense<<<grid, block, 0, s>>>(static_cast<const __nv_bfloat16*>(y), static_cast<__nv_bfloat16*>(dy), n,
                                             C, relu, partial, splits);
    else
      relu_bias_dense<<<grid, block, 0, s>>>(static_cast<const float*>(y), static_cast<float*>(dy), n, C, relu, partial,
                                             splits);
  } else {
    const dim3 grid(static_cast<unsigned>(C), static_cast<unsigned>(splits));
    if (bf)
      relu_bias_spatial<<<grid, kThreads, 0, s>>>(static_cast<const __nv_bfloat16*>(y), static_cast<__nv_bfloat16*>(dy),
                                                  n, C, HW, relu, partial, splits);
    else
      relu_bias_spatial<<<grid, kThreads, 0, s>>>(static_cast<const float*>(y), static_cast<float*>(dy), n, C, HW, relu,
                                                  partial, splits);
  }
  return cudaGetLastError();
}

cudaError_t bias_finalize(const float* partial, const BiasSum* sums, int count, void* grad, Elem gt, cudaStream_t s) {
  BiasSums all{};
  all.count = count < 4 ? count : 4;
  int widest = 1;
  for (int k = 0; k < all.count; ++k) {
    all.s[k] = sums[k];
    widest = sums[k].C > widest ? sums[k].C : widest;
  }
  const unsigned blocks = blocks_for(widest);
  if (gt == Elem::bf16)
    bias_finalize_kernel<<<blocks, kThreads, 0, s>>>(partial, all, static_cast<__nv_bfloat16*>(grad));
  else
    bias_finalize_kernel<<<blocks, kThreads, 0, s>>>(partial, all, static_cast<float*>(grad));
  return cudaGetLastError();
}

cudaError_t softmax_xent(const float* logits, const float* b, const int* labels, int n, int classes, void* dlogits,
                         Elem dt, StepState* state, cudaStream_t s) {
  if (n <= 0) return cudaSuccess;
  const unsigned blocks = static_cast<unsigned>((n + kThreads / 32 - 1) / (kThreads / 32));
  if (dt == Elem::bf16)
    softmax_xent_kernel<<<blocks, kThreads, 0, s>>>(logits, b, labels, n, classes, static_cast<__nv_bfloat16*>(dlogits),
                                                    state);
  else
    softmax_xent_kernel<<<blocks, kThreads, 0, s>>>(logits, b, labels, n, classes, static_cast<float*>(dlogits), state);
  return cudaGetLastError();
}

cudaError_t adam_update(float* p, const void* g, Elem gt, float* m, float* v, long long count, const StepState* state,
                        float beta1, float beta2, float eps, void* copy, cudaStream_t s) {
  const unsigned blocks = blocks_for(count, 4096);
  auto* c = static_cast<__nv_bfloat16*>(copy);
  if (gt == Elem::bf16)
    adam_kernel<<<blocks, kThreads, 0, s>>>(p, static_cast<const __nv_bfloat16*>(g), m, v, count, state, beta1, beta2,
                                            eps, c);
  else
    adam_kernel<<<blocks, kThreads, 0, s>>>(p, static_cast<const float*>(g), m, v, count, state, beta1, beta2, eps, c);
  return cudaGetLastError();
}

cudaError_t advance_step(StepState* state, int n, double lr, double beta1, double beta2, cudaStream_t s) {
  advance_kernel<<<1, 1, 0, s>>>(state, n, lr, beta1, beta2);
  return cudaGetLastError();
}

cudaError_t to_bf16(const float* src, void* dst, long long count, cudaStream_t s) {
  to_bf16_kernel<<<blocks_for(count, 4096), kThreads, 0, s>>>(src, static_cast<__nv_bfloat16*>(dst), count);
  return cudaGetLastError();
}

}  // namespace gpuready::gpu
