// Launching the training engine's own kernels (device/gpuready.cu, through driver.h's launch()):
// only what no cuDNN or cuBLAS call does — gathering a shuffled batch, bias + ReLU, ReLU's
// backward with the bias gradient, the softmax cross-entropy, Adam. Activations are fp32 or bf16
// (Elem); parameters, Adam's moments, the logits and the bias sums stay fp32. Each returns the
// launch's CUresult.
#pragma once

#include <cstdint>

#include "device/shared.h"
#include "kernels.h"

namespace gpuready::gpu {

// x[i] = images[row(i)] converted to xt, y[i] = labels[row(i)], for i < n, where
// row(i) = order ? order[state->cursor + i] : i.
CUresult gather_batch(const float* images, const int* labels, const int* order, const StepState* state, int n,
                      long long image_elems, void* x, Elem xt, int* y, CUstream s);

// y[n, c, hw] = act(x[n, c, hw] + b[c]) over n x C x HW (NCHW; a dense layer is HW = 1); x may be y.
CUresult bias_act(const void* x, void* y, Elem t, const float* b, long long n, int C, int HW, bool relu, CUstream s);

// dy = dy * (y > 0) in place when relu, and the bias gradient's partial sums over n and HW of
// the result: partial[c * splits + j] for j < splits. bias_splits() says how many to allocate.
int bias_splits(long long n, int HW);
CUresult relu_backward_bias(const void* y, void* dy, Elem t, long long n, int C, int HW, bool relu, float* partial,
                            int splits, CUstream s);

// grad[offset + c] = sum_j partial[from + c * splits + j], for up to four bias vectors at once.
CUresult bias_finalize(const float* partial, const BiasSum* sums, int count, void* grad, Elem gt, CUstream s);

// Softmax cross-entropy of logits + b over n rows of `classes`: adds the rows' losses and correct
// predictions (largest logit, the first on ties, is the label's) to state->loss_sum / hits, and,
// when dlogits is not null, writes (softmax - onehot) / n there.
CUresult softmax_xent(const float* logits, const float* b, const int* labels, int n, int classes, void* dlogits,
                      Elem dt, StepState* state, CUstream s);

// Keras' Adam (train::Adam) over `count` parameters at state->lr_t; writes a bf16 copy of the new
// parameters when `copy` is not null.
CUresult adam_update(float* p, const void* g, Elem gt, float* m, float* v, long long count, const StepState* state,
                     float beta1, float beta2, float eps, void* copy, CUstream s);

// After a step of n images: cursor += n, t += 1, lr_t for the next step.
CUresult advance_step(StepState* state, int n, double lr, double beta1, double beta2, CUstream s);

// dst[i] = bf16(src[i]).
CUresult to_bf16(const float* src, void* dst, long long count, CUstream s);

}  // namespace gpuready::gpu
