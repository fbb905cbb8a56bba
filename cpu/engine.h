// The CPU engine of `gpuready bench`: the walkthrough's CNN (train/reference.h: ModelSpec,
// ParamLayout) trained with oneDNN primitives, the library TensorFlow and PyTorch use on the CPU,
// on all cores. Parameters and gradients live in flat vectors in the reference's layout, so the
// engine can be checked against train::reference_step on the same batch, and its Adam is
// train::Adam. Part of the optional CPU module (cpu/), built where CMake finds oneDNN.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "train/reference.h"

namespace gpuready::cpu {

struct Stats {
  double loss = 0;  // mean over the batch
  int correct = 0;
};

class Engine {
 public:
  // Throws std::invalid_argument for a model the input is too small for.
  Engine(const train::ModelSpec& m, std::vector<float> params);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Forward, loss and backward on n images (NCHW floats): grad() then holds the gradient.
  Stats gradient(const float* images, const int* labels, int n);
  // gradient() and then one Adam step on the parameters.
  Stats train_step(const float* images, const int* labels, int n);
  // Forward only (inference), for the held-out split.
  Stats evaluate(const float* images, const int* labels, int n);

  const std::vector<float>& params() const { return params_; }
  const std::vector<float>& grad() const { return grad_; }
  train::Adam& adam() { return adam_; }
  // "oneDNN 2.6.3 (16 threads)": what ran.
  static std::string describe();
  // The implementations oneDNN chose for the full batch ("convolutions jit:avx512_core, ..."; empty before the
  // first step of more than one image).
  const std::string& implementations() const;

 private:
  struct Net;  // the primitives and buffers for one batch size
  Net& net(int n, bool training);
  // Copies the images in and runs the forward primitives; the logits are in the returned Net.
  Net& forward(const float* images, int n, bool training);
  train::ModelSpec m_;
  train::ParamLayout l_;
  std::vector<float> params_, grad_;
  train::Adam adam_;
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::map<std::pair<int, bool>, std::unique_ptr<Net>> nets_;
};

}  // namespace gpuready::cpu
