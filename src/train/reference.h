// The walkthrough's CNN written out in plain loops, in double precision: the oracle that the fast
// engines (oneDNN on the CPU, cuDNN/cuBLAS on the GPU) are checked against, layer by layer and
// step by step. Not fast and not meant to be: every loop is the textbook definition, so a test
// can compare it with finite differences and trust it.
//
// Layout: activations NCHW, convolution weights KCRS (as cuDNN and oneDNN's plain formats), dense
// weights [out][in]. The model (Keras' classic example): Conv2D(conv1, k x k, 'valid') + ReLU,
// MaxPool(2), Conv2D(conv2, k x k) + ReLU, MaxPool(2), Flatten, Dense(dense) + ReLU,
// Dense(classes), softmax cross-entropy; Adam.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gpuready::train {

// ---- layers (each: forward, and backward given the gradient of the loss w.r.t. its output)

struct Dims {
  int n = 0, c = 0, h = 0, w = 0;
  std::size_t count() const { return static_cast<std::size_t>(n) * c * h * w; }
};

// y[n,k,p,q] = b[k] + sum_{c,r,s} x[n,c,p+r,q+s] w[k,c,r,s]: 'valid' padding, stride 1.
Dims conv_out(const Dims& x, int k, int r, int s);
void conv_forward(const Dims& xd, const std::vector<double>& x, int k, int r, int s, const std::vector<double>& w,
                  const std::vector<double>& b, std::vector<double>* y);
// dx, dw, db from dy (dx may be null: the first layer's input needs no gradient).
void conv_backward(const Dims& xd, const std::vector<double>& x, int k, int r, int s, const std::vector<double>& w,
                   const std::vector<double>& dy, std::vector<double>* dx, std::vector<double>* dw,
                   std::vector<double>* db);

void relu_forward(const std::vector<double>& x, std::vector<double>* y);
void relu_backward(const std::vector<double>& x, const std::vector<double>& dy, std::vector<double>* dx);

// 2 x 2 max pooling, stride 2, floor (Keras 'valid'): an odd last row or column is dropped. Ties go
// to the first element in row-major order of the window.
Dims pool_out(const Dims& x);
void pool_forward(const Dims& xd, const std::vector<double>& x, std::vector<double>* y);
void pool_backward(const Dims& xd, const std::vector<double>& x, const std::vector<double>& dy,
                   std::vector<double>* dx);

// y[n,o] = b[o] + sum_i w[o,i] x[n,i]
void dense_forward(int n, int in, int out, const std::vector<double>& x, const std::vector<double>& w,
                   const std::vector<double>& b, std::vector<double>* y);
void dense_backward(int n, int in, int out, const std::vector<double>& x, const std::vector<double>& w,
                    const std::vector<double>& dy, std::vector<double>* dx, std::vector<double>* dw,
                    std::vector<double>* db);

// Mean over the batch of -log softmax(logits)[label]; *dlogits = (softmax - onehot) / n. *correct
// counts the rows whose largest logit is the label's.
double softmax_xent(int n, int classes, const std::vector<double>& logits, const std::vector<int>& labels,
                    std::vector<double>* dlogits, int* correct);

// ---- the model

struct ModelSpec {
  int c = 1, h = 28, w = 28;  // input
  int conv1 = 32, conv2 = 64, kernel = 3, dense = 128, classes = 10;
};

// Every parameter in one flat vector (what an optimizer and a device copy want), in this order:
// w1 (conv1 x c x k x k), b1, w2 (conv2 x conv1 x k x k), b2, w3 (dense x flat), b3, w4 (classes x dense), b4.
struct ParamLayout {
  std::size_t w1 = 0, b1 = 0, w2 = 0, b2 = 0, w3 = 0, b3 = 0, w4 = 0, b4 = 0, total = 0;
  int flat = 0;  // conv2 x h2 x w2 after the second pooling
};
// nullopt-like: total == 0 when the input is too small for two conv+pool stages (with why).
ParamLayout layout_of(const ModelSpec& m, std::string* why = nullptr);

// Keras' defaults: Glorot-uniform weights (limit sqrt(6 / (fan_in + fan_out)), for a convolution
// fan_in = c*k*k and fan_out = k_out*k*k), zero biases; deterministic by seed.
std::vector<float> init_params(const ModelSpec& m, std::uint64_t seed);

struct StepResult {
  double loss = 0;
  int correct = 0;
  std::vector<double> grad;  // same layout as the parameters
};
// Forward and backward over one batch of n images (NCHW floats) with their labels.
StepResult reference_step(const ModelSpec& m, const std::vector<float>& params, const float* images, const int* labels,
                          int n);

// Adam as Keras runs it: m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2;
// p -= lr * sqrt(1-b2^t)/(1-b1^t) * m / (sqrt(v) + eps), eps = 1e-7.
struct Adam {
  double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-7;
  std::vector<double> m, v;
  long long t = 0;
  void step(std::vector<float>* params, const std::vector<double>& grad);
};

}  // namespace gpuready::train
