// gpu/train_kernels.h: grid sizes and launches of the training engine's kernels. They are few and
// small next to cuDNN's convolutions and cuBLAS' products, and a whole step with them is replayed
// from one CUDA graph, so their launch cost is paid once per capture.
#include "train_kernels.h"

namespace gpuready::gpu {
namespace {

unsigned blocks_for(long long n, long long cap = 65535) {
  const long long b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 1 ? 1 : (b > cap ? cap : b));
}

const char* act(Elem t, const char* f32, const char* bf16) { return t == Elem::bf16 ? bf16 : f32; }

}  // namespace

CUresult gather_batch(const float* images, const int* labels, const int* order, const StepState* state, int n,
                      long long image_elems, void* x, Elem xt, int* y, CUstream s) {
  if (n <= 0) return CUDA_SUCCESS;
  const Dim3 grid{blocks_for(image_elems, 1024), static_cast<unsigned>(n < 65535 ? n : 65535)};
  return launch(act(xt, "gr_gather_batch_f32", "gr_gather_batch_bf16"), grid, {kThreads}, s, images, labels, order,
                state, n, image_elems, x, y);
}

CUresult bias_act(const void* x, void* y, Elem t, const float* b, long long n, int C, int HW, bool relu, CUstream s) {
  const long long total = n * C * HW;
  if (total <= 0) return CUDA_SUCCESS;
  const unsigned blocks = blocks_for(total, 8192);
  if (total < (1ll << 31))  // 32-bit index arithmetic where it fits: a 64-bit division is slow
    return launch(act(t, "gr_bias_act32_f32", "gr_bias_act32_bf16"), {blocks}, {kThreads}, s, x, y, b,
                  static_cast<unsigned>(total), static_cast<unsigned>(C), static_cast<unsigned>(HW), relu);
  return launch(act(t, "gr_bias_act64_f32", "gr_bias_act64_bf16"), {blocks}, {kThreads}, s, x, y, b, total,
                static_cast<long long>(C), static_cast<long long>(HW), relu);
}

int bias_splits(long long n, int HW) {
  const long long per_block = HW == 1 ? 256 : 8192;
  long long s = (n * HW + per_block - 1) / per_block;
  if (s > n) s = n;
  if (s > 256) s = 256;
  return static_cast<int>(s < 1 ? 1 : s);
}

CUresult relu_backward_bias(const void* y, void* dy, Elem t, long long n, int C, int HW, bool relu, float* partial,
                            int splits, CUstream s) {
  if (n <= 0 || C <= 0) return CUDA_SUCCESS;
  if (HW == 1)
    return launch(act(t, "gr_relu_bias_dense_f32", "gr_relu_bias_dense_bf16"),
                  {static_cast<unsigned>((C + 31) / 32), static_cast<unsigned>(splits)}, {32, 8}, s, y, dy, n, C, relu,
                  partial, splits);
  return launch(act(t, "gr_relu_bias_spatial_f32", "gr_relu_bias_spatial_bf16"),
                {static_cast<unsigned>(C), static_cast<unsigned>(splits)}, {kThreads}, s, y, dy, n, C, HW, relu,
                partial, splits);
}

CUresult bias_finalize(const float* partial, const BiasSum* sums, int count, void* grad, Elem gt, CUstream s) {
  BiasSums all{};
  all.count = count < 4 ? count : 4;
  int widest = 1;
  for (int k = 0; k < all.count; ++k) {
    all.s[k] = sums[k];
    widest = sums[k].C > widest ? sums[k].C : widest;
  }
  return launch(act(gt, "gr_bias_finalize_f32", "gr_bias_finalize_bf16"), {blocks_for(widest)}, {kThreads}, s, partial,
                all, grad);
}

CUresult softmax_xent(const float* logits, const float* b, const int* labels, int n, int classes, void* dlogits,
                      Elem dt, StepState* state, CUstream s) {
  if (n <= 0) return CUDA_SUCCESS;
  const unsigned blocks = static_cast<unsigned>((n + kThreads / 32 - 1) / (kThreads / 32));
  return launch(act(dt, "gr_softmax_xent_f32", "gr_softmax_xent_bf16"), {blocks}, {kThreads}, s, logits, b, labels, n,
                classes, dlogits, state);
}

CUresult adam_update(float* p, const void* g, Elem gt, float* m, float* v, long long count, const StepState* state,
                     float beta1, float beta2, float eps, void* copy, CUstream s) {
  return launch(act(gt, "gr_adam_f32", "gr_adam_bf16"), {blocks_for(count, 4096)}, {kThreads}, s, p, g, m, v, count,
                state, beta1, beta2, eps, copy);
}

CUresult advance_step(StepState* state, int n, double lr, double beta1, double beta2, CUstream s) {
  return launch("gr_advance", {1}, {1}, s, state, n, lr, beta1, beta2);
}

CUresult to_bf16(const float* src, void* dst, long long count, CUstream s) {
  return launch("gr_to_bf16", {blocks_for(count, 4096)}, {kThreads}, s, src, dst, count);
}

}  // namespace gpuready::gpu
