// What `gpuready bench` and a training engine (engine_abi.h) say to each other, as JSON. The
// engine trains and times; gpuready loads the data, splits it, and reports.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "train/dataset.h"
#include "train/reference.h"

namespace gpuready::train {

struct TrainRequest {
  int c = 1, h = 28, w = 28, classes = 10;  // the data's shape
  int conv1 = 32, conv2 = 64, kernel = 3, dense = 128;
  int batch = 128;
  int epochs = 3;          // timed epochs after the first (the first is reported on its own)
  std::uint64_t seed = 1;  // initial weights (the same on every device) and the shuffling
  double lr = 1e-3;
  std::string precision = "fp32";
  int threads = 0;  // CPU: 0 = every core
  // GPU: which device, and where cuBLAS and cuDNN are (gpuready's probe finds them; empty: the
  // loader's default sonames).
  std::string cuda_driver;  // the CUDA driver library's absolute path (the probe's); empty: the platform's name
  int device = 0;
  std::vector<std::string> cublas;
  std::string cudnn_dir;
  std::vector<std::string> cudnn_files;
  std::string data_placement = "auto";  // GPU: "auto", "device" (all images in GPU memory) or "stream"
  bool graphs = true;                   // GPU: replay each step from a CUDA graph
  // GPU: how cuDNN's convolution algorithms are chosen for the full batch: "find" (time them all,
  // as frameworks' benchmark mode), "heuristic" (cuDNN's first guess, no search) or "auto" (find
  // for fp32 and tf32, heuristic for bf16: measured faster per epoch there, see docs/bench.md).
  std::string algorithms = "auto";
};

struct EpochResult {
  double seconds = 0;     // training only (forward, backward, update), not the evaluation
  double train_loss = 0;  // mean over the epoch's batches
  double train_accuracy = 0;
  double test_loss = 0, test_accuracy = 0;
};

// One operation of a training step, timed on its own (the GPU engine profiles a few eager steps
// after training): what bounds the step, with the arithmetic behind it.
struct OpProfile {
  std::string op;
  double seconds = 0;
  double flop = 0;   // 2 x multiply-adds (convolutions, products)
  double bytes = 0;  // what an ideal pass reads and writes
};

struct TrainReply {
  int abi = 0;
  std::string engine;  // "oneDNN 2.6.3 (16 threads)"
  std::string device;  // "CPU: AMD EPYC 7B13 (2 threads)" / the GPU's name
  std::string precision;
  std::vector<EpochResult> epochs;  // epochs[0] is the first (warm-up) epoch
  long long steps_per_epoch = 0;
  std::vector<std::string> details;  // how it ran: algorithms, graphs, where the data lived
  double setup_seconds = 0;          // before the first epoch: libraries, device, data upload
  std::vector<OpProfile> profile;    // one full-batch step, operation by operation (GPU)
  std::string error;                 // empty when it trained
  // GPU engines: the device memory in use (cuMemGetInfo: total - free, the whole GPU's) with this process's CUDA
  // context and kernels loaded, and the most seen during training (sampled after setup, after each epoch and after
  // the profile; the engine keeps its buffers and workspaces for its whole life). 0 = not measured.
  std::uint64_t gpu_context_bytes = 0;
  std::uint64_t gpu_peak_bytes = 0;
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TrainRequest, c, h, w, classes, conv1, conv2, kernel, dense, batch,
                                                epochs, seed, lr, precision, threads, cuda_driver, device, cublas,
                                                cudnn_dir, cudnn_files, data_placement, graphs, algorithms)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(EpochResult, seconds, train_loss, train_accuracy, test_loss,
                                                test_accuracy)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(OpProfile, op, seconds, flop, bytes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TrainReply, abi, engine, device, precision, epochs, steps_per_epoch,
                                                details, setup_seconds, profile, error, gpu_context_bytes,
                                                gpu_peak_bytes)

// The model a request describes (every engine builds the same one).
inline ModelSpec model_of(const TrainRequest& q) {
  ModelSpec m;
  m.c = q.c;
  m.h = q.h;
  m.w = q.w;
  m.classes = q.classes;
  m.conv1 = q.conv1;
  m.conv2 = q.conv2;
  m.kernel = q.kernel;
  m.dense = q.dense;
  return m;
}

// The order an epoch visits the training images in: the same on every device for the same seed.
inline std::vector<long long> epoch_order(long long n, std::uint64_t seed, int epoch) {
  std::vector<long long> order(static_cast<std::size_t>(n < 0 ? 0 : n));
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<long long>(i);
  SplitMix64 rng((seed + 1000003ull * static_cast<std::uint64_t>(epoch + 1)) * 0x9e3779b97f4a7c15ull + 1);
  shuffle(order, rng);
  return order;
}

}  // namespace gpuready::train
