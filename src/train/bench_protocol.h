// What `gpuready bench` and a training engine (engine_abi.h) say to each other, as JSON. The
// engine trains and times; gpuready loads the data, splits it, and reports.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

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
};

struct EpochResult {
  double seconds = 0;     // training only (forward, backward, update), not the evaluation
  double train_loss = 0;  // mean over the epoch's batches
  double train_accuracy = 0;
  double test_loss = 0, test_accuracy = 0;
};

struct TrainReply {
  int abi = 0;
  std::string engine;  // "oneDNN 2.6.3 (16 threads)"
  std::string device;  // "CPU: AMD EPYC 7B13 (2 threads)" / the GPU's name
  std::string precision;
  std::vector<EpochResult> epochs;  // epochs[0] is the first (warm-up) epoch
  long long steps_per_epoch = 0;
  std::string error;  // empty when it trained
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TrainRequest, c, h, w, classes, conv1, conv2, kernel, dense, batch,
                                                epochs, seed, lr, precision, threads)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(EpochResult, seconds, train_loss, train_accuracy, test_loss,
                                                test_accuracy)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TrainReply, abi, engine, device, precision, epochs, steps_per_epoch,
                                                error)

}  // namespace gpuready::train
