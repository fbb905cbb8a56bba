// The matrix-multiply peak a GPU should reach, per precision: what `gpuready verify`'s GEMM
// check judges cuBLAS rates against. Pure and GPU-free: a function of the probe's NvidiaGpu facts
// and the knowledge tables. The order:
//   1. the datasheet row for the GPU's exact NVML name (data/gpu_peaks.csv) wins; an empty cell
//      there is the answer too (the GPU lacks that math, or nothing is published);
//   2. otherwise SM count x max SM clock x FLOP/clock/SM of the compute capability
//      (data/arch_throughput.csv), only where that rate is the same for every product of the
//      capability.
// All peaks are dense (never the "with sparsity" figures) and, for tf32/fp16/bf16, with fp32
// accumulate, which is what cuBLAS GemmEx with CUBLAS_COMPUTE_32F* measures.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/snapshot.h"
#include "knowledge/compat.h"

namespace gpuready::verify {

enum class Precision { fp32, tf32, fp16, bf16 };

// "fp32", "tf32", "fp16", "bf16".
const char* precision_name(Precision p);
// The inverse of precision_name, ASCII case ignored ("FP16" too); nullopt for anything else.
std::optional<Precision> precision_from_name(std::string_view name);

struct Peak {
  double tflops = 0;  // TFLOP/s (1e12 FLOP/s), dense, fp32 accumulate for tf32/fp16/bf16
  // How it was found, one line: "datasheet: NVIDIA H200 (NVIDIA H200 product page ...)" or
  // "computed: 132 SMs x 1980 MHz x 4096 FLOP/clock/SM (compute capability 9.0)".
  std::string basis;
};

// The GEMM peak of `g` for `p`; nullopt when the GPU lacks the precision (tf32/bf16 before
// Ampere, any tensor math on a GTX 16 part) or nothing is known (no datasheet row and no per-SM
// rate for the capability, or the SM count / clock / capability is unknown): *why says which.
std::optional<Peak> gemm_peak(const NvidiaGpu& g, Precision p, const knowledge::Compat& k, std::string* why = nullptr);

}  // namespace gpuready::verify
