// Parser for TensorFlow's generated tensorflow/python/platform/build_info.py: the CUDA and
// cuDNN versions a TensorFlow wheel was built for, read without importing TensorFlow.
// Formats seen in released wheels:
//   TF 2.5+:  build_info = collections.OrderedDict([('cuda_version', '12.3'), ('cudnn_version', '8'), ...])
//   TF 2.3:   build_info = {'cuda_version': '64_101', 'cudnn_version': '64_7', ...}   (Windows: "64_" + digits)
//   TF 1.x-2.2: cuda_version_number = '10.0' / cudnn_version_number = '7' module variables
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gpuready::parse {

struct TfBuildInfo {
  std::optional<std::string> cuda_version;      // normalised: "12.3", "11.0" (from "64_110")
  std::optional<std::string> cudnn_version;     // normalised: "8" (from "64_8"), "9"
  std::optional<std::string> cuda_version_raw;  // as written: "64_110"
  std::optional<std::string> cudnn_version_raw;
  std::optional<bool> is_cuda_build;
  std::optional<bool> is_rocm_build;
  std::optional<bool> is_tensorrt_build;
  std::optional<std::string> cudart_dll_name;  // Windows: "cudart64_110.dll"
  std::optional<std::string> cudnn_dll_name;   // Windows: "cudnn64_8.dll"
  [[nodiscard]] bool empty() const { return !cuda_version && !cudnn_version && !is_cuda_build && !is_rocm_build; }
};

TfBuildInfo tf_build_info(std::string_view text);

// Windows builds write versions as "64_" + the DLL suffix: "64_110" -> "11.0", "64_101" -> "10.1",
// "64_8" -> "8". Other texts are returned trimmed and unchanged.
std::string normalize_tf_cuda_version(std::string_view raw);

}  // namespace gpuready::parse
