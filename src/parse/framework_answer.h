// Parser for what gpuready's framework check script (probe/checks/framework_check.py) prints: its
// answer line on stdout (one JSON object after kFrameworkCheckMarker), the stages it announced on
// stderr, and everything else, which is what the framework itself printed. Values are normalised
// here: CUDA/cuDNN/NCCL version integers become "12.8" / "9.10.2" / "2.28.3".
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/snapshot.h"

namespace gpuready::parse {

inline constexpr std::string_view kFrameworkCheckMarker = "gpuready-framework-check: ";
inline constexpr std::string_view kFrameworkStageMarker = "gpuready-check-stage: ";

// What the answer says beyond the FrameworkCheck fields it fills.
struct FrameworkAnswer {
  bool gpu_available = false;
  std::string error_stage;  // where the exception was raised ("" none)
};

// Fills `c` from the last answer line in `out` (version, builds, devices, ops, loaded libraries,
// error). nullopt when there is no answer line or it is not the expected JSON object; every field
// of the wrong type is skipped, every text cleaned and bounded.
std::optional<FrameworkAnswer> parse_framework_answer(std::string_view out, FrameworkCheck& c);

// The last stage the script announced on stderr ("import", "gpu-op matmul"), "" when none.
std::string last_check_stage(std::string_view err);

// What the framework printed: stderr without the stage lines, then stdout without the answer
// line; valid UTF-8, at most max_bytes (the middle is cut: imports print their problems first,
// exceptions come last).
std::string framework_output(std::string_view out, std::string_view err, size_t max_bytes);

// Version integers as the libraries report them.
std::string cuda_version_of_int(long long v);   // cudaRuntimeGetVersion/cuDriverGetVersion: 12080 -> "12.8"
std::string cudnn_version_of_int(long long v);  // cudnnGetVersion: 91002 -> "9.10.2", 8907 -> "8.9.7"
std::string nccl_version_of_int(long long v);   // ncclGetVersion: 22803 -> "2.28.3", 2708 -> "2.7.8"

}  // namespace gpuready::parse
