// What the device code (gpuready.cu) and the host code that launches it (gpu/launch.cpp) agree
// on: the structures kernels read and write in device memory or take by value, and the block
// size. Plain C++ (no CUDA header), so the host side builds without a CUDA toolkit.
#pragma once

#include <cstdint>

namespace gpuready::gpu {

inline constexpr int kThreads = 256;  // threads per block of every one-dimensional launch

// The memory test's patterns over 32-bit words. Word w (counted from the start of all tested
// memory, so every chunk continues the pattern) holds:
//   kWalkingOnes  1 << ((param + w) % 32)       each pass moves the one bit; 32 passes cover every bit of every word
//   kWalkingZeros ~(1 << ((param + w) % 32))
//   kAddress      the low 32 bits of w, xor param (a word written to or read from the wrong address shows)
//   kRandom       a hash of (param, w)
enum MemPattern : int { kWalkingOnes = 0, kWalkingZeros = 1, kAddress = 2, kRandom = 3 };
struct DeviceFault {
  unsigned long long word;  // global word index
  unsigned expected, got;
};

// What a training step leaves on the device, so a whole epoch runs without the host in the loop
// (and a step can be replayed from a CUDA graph): where the next batch starts in the epoch's
// order, the Adam step count and its bias-corrected rate for the coming step, and the epoch's
// running sums.
struct StepState {
  long long cursor;  // index into the epoch's order of the next batch's first image
  long long t;       // Adam steps taken
  double lr_t;       // lr * sqrt(1 - beta2^(t+1)) / (1 - beta1^(t+1)): the coming step's rate
  double loss_sum;   // sum over images of the loss
  unsigned long long hits;
};

// grad[offset + c] = sum_j partial[from + c * splits + j]: one bias vector's gradient.
struct BiasSum {
  long long from = 0;    // first partial sum of this bias
  long long offset = 0;  // the bias' place in the gradient
  int C = 0, splits = 0;
};
// Up to four at once, passed by value to one launch.
struct BiasSums {
  BiasSum s[4];
  int count;
};

}  // namespace gpuready::gpu
