// The checks of the optional CUDA module (gpu/): GEMM through cuBLAS, convolution through cuDNN
// and the memory pattern test. The module measures (gpu_protocol.h); this file finds and runs it
// (in the hidden child `__verify-gpu`), recomputes the sampled results on the CPU from the same
// inputs (test_values.h) and judges each check against what the hardware should reach.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/snapshot.h"
#include "knowledge/compat.h"
#include "platform/os.h"
#include "verify/gpu_protocol.h"
#include "verify/verify.h"

namespace gpuready::verify {

// The module's file name on this OS: "libgpuready-cuda.so" / "gpuready-cuda.dll".
const char* module_file_name();
// Where to look, in order: $GPUREADY_CUDA_MODULE (a file), beside the executable, and
// <exe dir>/../lib/gpuready/ (an installed layout).
std::vector<std::string> module_candidates(const Os& os);

// Loads the first candidate that exists, checks its ABI and runs the request in this process (the
// child's body). Never throws: a module that is missing, does not load or is of another ABI is a
// failed first step ("load the CUDA module") in the reply, with the loader's words.
GpuReply run_module(const Os& os, const std::vector<std::string>& candidates, const GpuRequest& req,
                    const std::function<void(const std::string&)>& progress);

// The request for the module from the machine's facts: the cuBLAS files to try (the loader's pick of
// each libcublas.so.N / cublas64_N.dll, then every copy the probe found, newest major first, none
// newer than the driver's CUDA) and the cuDNN set to load (the folder of the loader's libcudnn.so.N /
// cudnn64_N.dll, else the newest complete set, one built for the first cuBLAS's CUDA major first).
void fill_libraries(GpuRequest* req, const Snapshot& s);

// The CUDA major a library folder is built for when its path says so: cuDNN's Windows installer's
// "...\CUDNN\v9.19\bin\12.9\x64" or "...\bin\12.6" -> 12; 0 when it does not.
int cuda_major_of_folder(const std::string& dir);

// Narrows the request's cuBLAS and cuDNN (after fill_libraries) to where `libs` says: one source or several,
// comma-separated, each library taken from the first source that has it ("/opt/cublas11,system": cuBLAS from that
// folder, cuDNN from wherever the folder lacks it, the machine's pick). A source is
//   "system"                         the loader's picks and the machine's copies, as fill_libraries chose (no change)
//   "torch", "tensorflow", "jax"     the copies inside the Python environment that has that framework installed (its
//                                    pip wheels nvidia-cublas-*, nvidia-cudnn-*, or the framework's own lib folder):
//                                    the very files that framework loads
//   an absolute folder               the copies the probe found under it (ProbeOptions::library_dirs lists it)
// false + *why (each source, what they all lack, what was looked at) when no source has cuBLAS or none has cuDNN.
bool restrict_libraries(GpuRequest* req, const Snapshot& s, const std::string& libs, std::string* why);
// The sources of a --libs value, in order ("a, b" -> {"a", "b"}), and its absolute folders (for the probe to list).
std::vector<std::string> library_sources(const std::string& libs);
std::vector<std::string> library_folders(const std::string& libs);

// The exact value of one sampled element and the sum of the magnitudes of its terms (the yardstick
// the error is measured against: |got - value| / scale is the normalised error).
struct Reference {
  double value = 0;
  double scale = 0;
};
Reference gemm_reference(const GemmResult& r, std::uint64_t index);
Reference conv_reference(const ConvResult& r, std::uint64_t index);

// The largest normalised error over the points, how many exceed `tolerance`, and the first of those in words.
struct PointCheck {
  double max_error = 0;
  int bad = 0;
  std::string first_bad;
};
PointCheck check_points(const std::vector<SampledValue>& points, const std::function<Reference(std::uint64_t)>& ref,
                        double tolerance, const std::function<std::string(std::uint64_t)>& where);
// Normalised error allowed per check: fp32 accumulation of exact products, and the output's rounding
// (fp16 2^-11, bf16 2^-8 of the value); cuDNN's FFT and Winograd algorithms round more.
double tolerance_of(const std::string& key);

// How GEMM rates are judged against the datasheet peak: a full GPU under its power cap sustains
// less than the datasheet's clock gives (torch.matmul reaches 0.72-0.85 of it on the H200 test
// machine, shared/reference/h200-anchors.md), so the bar is lower than for copies.
inline constexpr Thresholds kGemmThresholds{0.60, 0.40};

// Judges a reply: one Check per result (gemm.*, cudnn.conv_*, memory.pattern), plus cudnn.load when
// cuDNN was asked for. `want` are the keys that were asked for: any without a result is skipped with
// the first failed step's reason.
std::vector<Check> judge_gpu(const GpuReply& r, const std::vector<std::string>& want, const Snapshot& s,
                             const knowledge::Compat& k, const Thresholds& gemm = kGemmThresholds);

}  // namespace gpuready::verify
