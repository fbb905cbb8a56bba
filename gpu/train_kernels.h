// The training engine's own kernels (train_kernels.cu): only what no cuDNN or cuBLAS call does —
// gathering a shuffled batch, bias + ReLU, ReLU's backward with the bias gradient, the softmax
// cross-entropy, Adam. Activations are fp32 or bf16 (Elem); parameters, Adam's moments, the
// logits and the bias sums stay fp32. Every launcher returns cudaGetLastError() of its launch.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels.h"

namespace gpuready::gpu {

// What a step leaves on the device, so a whole epoch runs without the host in the loop (and a
// step can be replayed from a CUDA graph): where the next batch starts in the epoch's order, the
// Adam step count and its bias-corrected rate for the coming step, and the epoch's running sums.
struct StepState {
  long long cursor;  // index into the epoch's order of the next batch's first image
  long long t;       // Adam steps taken
  double lr_t;       // lr * sqrt(1 - beta2^(t+1)) / (1 - beta1^(t+1)): the coming step's rate
  double loss_sum;   // sum over images of the loss
  unsigned long long hits;
};

// x[i] = images[row(i)] converted to xt, y[i] = labels[row(i)], for i < n, where
// row(i) = order ? order[state->cursor + i] : i.
cudaError_t gather_batch(const float* images, const int* labels, const int* order, const StepState* state, int n,
                         long long image_elems, void* x, Elem xt, int* y, cudaStream_t s);

// y[n, c, hw] = act(x[n, c, hw] + b[c]) over n x C x HW (NCHW; a dense layer is HW = 1); x may be y.
cudaError_t bias_act(const void* x, void* y, Elem t, const float* b, long long n, int C, int HW, bool relu,
                     cudaStream_t s);

// dy = dy * (y > 0) in place when relu, and the bias gradient's partial sums over n and HW of
// the result: partial[c * splits + j] for j < splits. bias_splits() says how many to allocate.
int bias_splits(long long n, int HW);
cudaError_t relu_backward_bias(const void* y, void* dy, Elem t, long long n, int C, int HW, bool relu, float* partial,
                               int splits, cudaStream_t s);

// grad[offset + c] = sum_j partial[from + c * splits + j], for up to four bias vectors at once.
struct BiasSum {
  long long from = 0;    // first partial sum of this bias
  long long offset = 0;  // the bias' place in the gradient
  int C = 0, splits = 0;
};
cudaError_t bias_finalize(const float* partial, const BiasSum* sums, int count, void* grad, Elem gt, cudaStream_t s);

// Softmax cross-entropy of logits + b over n rows of `classes`: adds the rows' losses and correct
// predictions (largest logit, the first on ties, is the label's) to state->loss_sum / hits, and,
// when dlogits is not null, writes (softmax - onehot) / n there.
cudaError_t softmax_xent(const float* logits, const float* b, const int* labels, int n, int classes, void* dlogits,
                         Elem dt, StepState* state, cudaStream_t s);

// Keras' Adam (train::Adam) over `count` parameters at state->lr_t; writes a bf16 copy of the new
// parameters when `copy` is not null.
cudaError_t adam_update(float* p, const void* g, Elem gt, float* m, float* v, long long count, const StepState* state,
                        float beta1, float beta2, float eps, void* copy, cudaStream_t s);

// After a step of n images: cursor += n, t += 1, lr_t for the next step.
cudaError_t advance_step(StepState* state, int n, double lr, double beta1, double beta2, cudaStream_t s);

// dst[i] = bf16(src[i]).
cudaError_t to_bf16(const float* src, void* dst, long long count, cudaStream_t s);

}  // namespace gpuready::gpu
