// Version files of the CUDA stack, parsed from their text: version.json / version.txt of a
// toolkit, cuda.h, cudnn_version.h (cudnn.h for cuDNN 7), nccl.h, NvInferVersion.h, cublas_api.h,
// `nvcc --version`, and the versions carried by library file names. (pip dist-info METADATA and
// conda-meta names are python_metadata.h's.)
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace gpuready::parse {

// version.json (CUDA >= 11.1): {"cuda": {"name": "CUDA SDK", "version": "12.4.1"}, "libcublas": {...}, ...}.
struct CudaVersionJson {
  std::optional<std::string> cuda;                 // "12.4.1"
  std::map<std::string, std::string> components;   // "libcublas" -> "12.4.5.8", "cuda_cudart" -> "12.4.127"
};
// nullopt on anything that is not a JSON object (garbage, truncated, nested too deep).
std::optional<CudaVersionJson> parse_cuda_version_json(std::string_view text);

// version.txt (CUDA <= 11.0): "CUDA Version 11.0.228".
std::optional<std::string> parse_cuda_version_txt(std::string_view text);

// cuda.h: "#define CUDA_VERSION 12040" -> "12.4".
std::optional<std::string> parse_cuda_h_version(std::string_view text);

// cudnn_version.h (cuDNN >= 8) or cudnn.h (cuDNN 7): CUDNN_MAJOR/MINOR/PATCHLEVEL -> "9.1.0".
std::optional<std::string> parse_cudnn_header_version(std::string_view text);

// nccl.h: NCCL_MAJOR/MINOR/PATCH -> "2.21.5".
std::optional<std::string> parse_nccl_header_version(std::string_view text);

// NvInferVersion.h: NV_TENSORRT_MAJOR/MINOR/PATCH[/BUILD] -> "10.3.0.26". TensorRT >= 10.11 defines them
// through TRT_*_ENTERPRISE macros, which are resolved.
std::optional<std::string> parse_tensorrt_header_version(std::string_view text);

// cublas_api.h: CUBLAS_VER_MAJOR/MINOR/PATCH/BUILD -> "13.1.0.3".
std::optional<std::string> parse_cublas_header_version(std::string_view text);

// `nvcc --version`: "Cuda compilation tools, release 12.4, V12.4.131" -> "12.4.131" (else "12.4").
std::optional<std::string> parse_nvcc_version_output(std::string_view text);

// A shared-library file name split into its stem and the version it carries.
//   Linux:   "libcudnn.so.9.1.0" -> stem "libcudnn", version "9.1.0"; "libcuda.so" -> stem "libcuda", version "".
//   Windows: "cudnn64_8.dll" -> stem "cudnn", version "8"; "cudart64_110.dll" -> "11.0";
//            "nvJitLink_120_0.dll" -> stem "nvJitLink", "12.0"; "nvinfer_10.dll" -> "10"; "nvcuda.dll" -> "".
// Windows names keep their case in `stem`; compare case-insensitively.
struct LibraryFileName {
  std::string stem;
  std::string version;
  bool windows = false;
};
std::optional<LibraryFileName> parse_library_file_name(std::string_view file_name);

// All simple "#define NAME VALUE" lines of a header (first definition wins), for callers that need more.
std::map<std::string, std::string> parse_defines(std::string_view text);

}  // namespace gpuready::parse
