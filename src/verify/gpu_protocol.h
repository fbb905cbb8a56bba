// What gpuready and its optional CUDA module (gpu/, libgpuready-cuda) say to each other. The
// module measures; gpuready judges. gpuready's hidden child `__verify-gpu` loads the module,
// hands it a GpuRequest as JSON through the C entry points of gpu_abi.h and reads a GpuReply
// back: raw timings, and the values of sampled result elements that gpuready recomputes on the
// CPU from the same inputs (test_values.h). Absent keys keep their defaults, so an older or a
// partial reply still reads.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/snapshot.h"

namespace gpuready::verify {

// The module's checks, by key (`gpuready verify -t KEY`), in the order they run.
//   gemm.fp32 gemm.tf32 gemm.fp16 gemm.bf16   cuBLAS GemmEx, C = A * B, square, fp32 accumulate
//   cudnn.conv_fwd cudnn.conv_bwd_data cudnn.conv_bwd_filter   cuDNN's convolution, fp32
//   memory.pattern                            write/read patterns over a share of free memory
inline std::vector<std::string> gpu_check_keys() {
  return {"gemm.fp32",
          "gemm.tf32",
          "gemm.fp16",
          "gemm.bf16",
          "cudnn.conv_fwd",
          "cudnn.conv_bwd_data",
          "cudnn.conv_bwd_filter",
          "memory.pattern"};
}

struct GpuRequest {
  std::string cuda_driver;          // the CUDA driver library's absolute path (the probe's); empty: the platform's name
  int device = 0;                   // CUDA ordinal
  std::vector<std::string> checks;  // keys above; empty = all
  std::uint64_t seed = 0x6770757265616479ull;
  int points = 256;  // result elements sampled per check for the CPU reference
  // GEMM: m = n = k = gemm_size; gemm_warmup untimed calls, then gemm_samples timed samples of
  // enough back-to-back calls to last ~gemm_sample_ms each.
  int gemm_size = 8192;
  int gemm_warmup = 3;
  int gemm_samples = 10;
  double gemm_sample_ms = 20;
  std::vector<std::string> cublas;  // libcublas files or names to try, in order (each with its libcublasLt beside it)
  // cuDNN: the set of files of one folder (the probe's CudnnSet), loaded by full path before the main
  // library so that it cannot pull a sub-library from elsewhere; empty = the loader's libcudnn.
  std::string cudnn_dir;
  std::vector<std::string> cudnn_files;
  int conv_n = 32, conv_c = 64, conv_hw = 56, conv_k = 64, conv_rs = 3;  // pad (rs-1)/2, stride 1
  int conv_warmup = 2, conv_samples = 10;
  // Memory: this share of the free memory, in chunks; `memory_rounds` random patterns after the
  // walking-ones/zeros and address patterns (more for --long).
  double memory_share = 0.5;
  int memory_rounds = 1;
  bool memory_walking = true;     // the 64 walking-one and walking-zero passes
  bool plant_corruption = false;  // damage one result of each check after it ran (the checker must catch it)
};

struct GpuDeviceInfo {
  std::string name, pci_bus_id, uuid;
  int cc_major = 0, cc_minor = 0, sm_count = 0;
  int clock_mhz = 0;  // the SM clock the runtime reports (cudaDevAttrClockRate), 0 unknown
  std::uint64_t memory_total = 0, memory_free = 0;
  int driver_version = 0;     // cuDriverGetVersion: 13000 = 13.0
  int runtime_version = 0;    // no longer filled: the module has no CUDA runtime (kept for older replies)
  std::string kernel_image;   // which of the module's images the driver runs here: "SASS sm_90", "PTX compute_90 (JIT ...)"
};

struct SampledValue {
  std::uint64_t index = 0;  // linear index into the result (column-major for GEMM, NCHW/KCRS for cuDNN)
  double value = 0;
};

// NVML's view of the GPU while one check ran (filled by the child, not the module).
struct ClockWindow {
  std::vector<std::string> reasons;  // clocks-event reasons seen ("sw_power_cap", "hw_thermal_slowdown", ...)
  int sm_clock_min_mhz = 0, sm_clock_max_mhz = 0;
  int temperature_max_c = 0;
  double power_max_w = 0;
  int samples = 0;
};

struct GemmResult {
  std::string key;  // "gemm.bf16"
  int m = 0, n = 0, k = 0;
  std::uint64_t seed_a = 0, seed_b = 0;
  int calls_per_sample = 0;
  std::vector<double> seconds;  // per sample, per call
  std::vector<SampledValue> points;
  std::string skip;   // why it did not run (cuBLAS missing, no memory): the check is skipped
  std::string error;  // the call that failed; empty when it ran
  std::string method;
  ClockWindow clocks;
};

struct ConvResult {
  std::string key;           // "cudnn.conv_fwd"
  std::vector<int> x, w, y;  // N C H W / K C R S / N K P Q
  int pad = 1, stride = 1;
  std::uint64_t seed_x = 0, seed_w = 0, seed_dy = 0;
  std::string algo;  // cuDNN's algorithm name
  std::uint64_t workspace = 0;
  std::vector<double> seconds;       // per sample, per call
  std::vector<SampledValue> points;  // of y (fwd), dx (bwd_data) or dw (bwd_filter)
  std::string skip;
  std::string error;
  std::string method;
  ClockWindow clocks;
};

struct MemoryFault {
  std::uint64_t address = 0;  // device virtual address of the 32-bit word
  std::uint64_t offset = 0;   // from the start of the tested memory
  std::uint32_t expected = 0, got = 0;
  std::string pattern;
};

struct MemoryResult {
  std::string key = "memory.pattern";
  std::uint64_t bytes = 0, free_before = 0;
  std::vector<std::string> patterns;
  std::uint64_t errors = 0;
  std::vector<MemoryFault> faults;  // the first few
  double seconds = 0;
  double write_read_gbps = 0;  // bytes written and read per second over all passes
  std::string skip;
  std::string error;
  std::string method;
  ClockWindow clocks;
};

struct GpuReply {
  int abi = 0;
  std::vector<DriverStep> steps;  // cudart init, device, cuBLAS load, cuDNN load, ...: the first failure says why
  GpuDeviceInfo device;
  std::string module_cuda;  // the CUDA version the module's device code was compiled with, "11.8"
  std::string driver_path;  // the CUDA driver library the module opened
  std::string cublas_path;
  int cublas_version = 0;  // 130100 = 13.1.0
  std::string cudnn_path;
  long long cudnn_version = 0, cudnn_cudart_version = 0;
  std::vector<std::string> loaded;  // every cuBLAS / cuDNN file mapped in the process after the checks
  std::vector<GemmResult> gemm;
  std::vector<ConvResult> conv;
  std::vector<MemoryResult> memory;
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(GpuRequest, cuda_driver, device, checks, seed, points, gemm_size, gemm_warmup,
                                                gemm_samples, gemm_sample_ms, cublas, cudnn_dir, cudnn_files, conv_n,
                                                conv_c, conv_hw, conv_k, conv_rs, conv_warmup, conv_samples,
                                                memory_share, memory_rounds, memory_walking, plant_corruption)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(GpuDeviceInfo, name, pci_bus_id, uuid, cc_major, cc_minor, sm_count,
                                                clock_mhz, memory_total, memory_free, driver_version, runtime_version,
                                                kernel_image)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SampledValue, index, value)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ClockWindow, reasons, sm_clock_min_mhz, sm_clock_max_mhz,
                                                temperature_max_c, power_max_w, samples)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(GemmResult, key, m, n, k, seed_a, seed_b, calls_per_sample, seconds,
                                                points, skip, error, method, clocks)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ConvResult, key, x, w, y, pad, stride, seed_x, seed_w, seed_dy, algo,
                                                workspace, seconds, points, skip, error, method, clocks)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(MemoryFault, address, offset, expected, got, pattern)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(MemoryResult, key, bytes, free_before, patterns, errors, faults,
                                                seconds, write_read_gbps, skip, error, method, clocks)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(GpuReply, abi, steps, device, module_cuda, driver_path, cublas_path, cublas_version,
                                                cudnn_path, cudnn_version, cudnn_cudart_version, loaded, gemm, conv,
                                                memory)

}  // namespace gpuready::verify
