// The library catalogue (see libraries_catalog.h). Evidence for every name is in
// shared/reference/compat/library_names.md; keep the two in step.
#include "probe/libraries_catalog.h"

#include "parse/ascii.h"
#include "parse/cuda_headers.h"
#include "probe/toolkits_layout.h"

namespace gpuready::probe_detail {

const std::vector<LibraryKind>& library_kinds() {
  static const std::vector<LibraryKind> kinds = {
      {"cudart", "libcudart", "cudart", {}, nullptr, "nvidia_cuda_runtime", "cuda_cudart"},
      {"cublas", "libcublas", "cublas", {"cublas_api.h"}, &parse::parse_cublas_header_version, "nvidia_cublas",
       "libcublas"},
      // cuBLASLt ships in the same package as cuBLAS and carries its version.
      {"cublasLt", "libcublasLt", "cublasLt", {"cublas_api.h"}, &parse::parse_cublas_header_version, "nvidia_cublas",
       "libcublas"},
      // cuDNN 7 kept the version macros in cudnn.h; Debian packages install cudnn_version_v9.h.
      {"cudnn", "libcudnn", "cudnn", {"cudnn_version.h", "cudnn.h"}, &parse::parse_cudnn_header_version,
       "nvidia_cudnn", ""},
      {"cufft", "libcufft", "cufft", {}, nullptr, "nvidia_cufft", "libcufft"},
      {"curand", "libcurand", "curand", {}, nullptr, "nvidia_curand", "libcurand"},
      {"cusolver", "libcusolver", "cusolver", {}, nullptr, "nvidia_cusolver", "libcusolver"},
      {"cusparse", "libcusparse", "cusparse", {}, nullptr, "nvidia_cusparse", "libcusparse"},
      {"nccl", "libnccl", "", {"nccl.h"}, &parse::parse_nccl_header_version, "nvidia_nccl", ""},
      {"tensorrt", "libnvinfer", "nvinfer", {"NvInferVersion.h"}, &parse::parse_tensorrt_header_version, "tensorrt",
       ""},
      {"nvjitlink", "libnvJitLink", "nvJitLink", {}, nullptr, "nvidia_nvjitlink", "libnvjitlink"},
      {"nvrtc", "libnvrtc", "nvrtc", {}, nullptr, "nvidia_cuda_nvrtc", "cuda_nvrtc"},
      // The driver's own libraries: found to see where the loader gets them (WSL keeps copies).
      {"cuda", "libcuda", "nvcuda", {}, nullptr, "", ""},
      {"nvml", "libnvidia-ml", "nvml", {}, nullptr, "", ""},
      {"dxcore", "libdxcore", "", {}, nullptr, "", ""},
  };
  return kinds;
}

const LibraryKind* kind_for_stem(const std::string& stem, bool windows) {
  for (const auto& k : library_kinds()) {
    if (windows) {
      if (*k.windows_stem && parse::iequals(stem, k.windows_stem)) return &k;
    } else if (stem == k.posix_stem) {
      return &k;
    }
  }
  return nullptr;
}

std::string posix_soname(const LibraryKind& kind, const std::string& version) {
  // Built with append() and no char* assignment: GCC 12 warns falsely there (-Wrestrict, PR105329).
  std::string out(kind.posix_stem);
  out.append(".so");
  if (version.empty()) return out;
  const auto dot = version.find('.');
  const std::string major = version.substr(0, dot);
  long m = 0;
  for (char c : major) m = m * 10 + (c - '0');
  out.append(".").append(major);
  // cudart up to 11 and NVRTC 11 keep major.minor in the soname (libcudart.so.11.0, libnvrtc.so.11.2).
  const std::string lib = kind.library;
  const bool two_parts = (lib == "cudart" && m <= 11) || (lib == "nvrtc" && m <= 11);
  if (two_parts && dot != std::string::npos) {
    const auto dot2 = version.find('.', dot + 1);
    // cudart 11.x is frozen at libcudart.so.11.0 for every minor release.
    const std::string minor = (lib == "cudart" && m == 11)
                                  ? std::string(1, '0')
                                  : version.substr(dot + 1, dot2 == std::string::npos ? std::string::npos : dot2 - dot - 1);
    out.append(".").append(minor);
  }
  return out;
}

const std::vector<WantedName>& wanted_posix_names() {
  static const std::vector<WantedName> names = {
      {"cudart", "libcudart.so.11.0", false},  {"cudart", "libcudart.so.12", false},
      {"cudart", "libcudart.so.13", false},    {"cublas", "libcublas.so.11", false},
      {"cublas", "libcublas.so.12", false},    {"cublas", "libcublas.so.13", false},
      {"cublasLt", "libcublasLt.so.11", false}, {"cublasLt", "libcublasLt.so.12", false},
      {"cublasLt", "libcublasLt.so.13", false}, {"cudnn", "libcudnn.so.8", false},
      {"cudnn", "libcudnn.so.9", false},       {"cufft", "libcufft.so.10", false},
      {"cufft", "libcufft.so.11", false},      {"cufft", "libcufft.so.12", false},
      {"curand", "libcurand.so.10", false},    {"cusolver", "libcusolver.so.10", false},  // CUDA 10.x and 11.0
      {"cusolver", "libcusolver.so.11", false},
      {"cusolver", "libcusolver.so.12", false}, {"cusparse", "libcusparse.so.11", false},
      {"cusparse", "libcusparse.so.12", false}, {"nccl", "libnccl.so.2", false},
      {"tensorrt", "libnvinfer.so.8", false},  {"tensorrt", "libnvinfer.so.10", false},
      {"nvjitlink", "libnvJitLink.so.12", false}, {"nvjitlink", "libnvJitLink.so.13", false},
      {"nvrtc", "libnvrtc.so.12", false},      {"nvrtc", "libnvrtc.so.13", false},
      // The driver: every CUDA program needs libcuda.so.1; cuDNN 8 dlopens plain "libcuda.so",
      // which WSL's ldconfig leaves out of the cache (reference/failures.md #6a).
      {"cuda", "libcuda.so.1", true},          {"cuda", "libcuda.so", false},
      {"nvml", "libnvidia-ml.so.1", true},
  };
  return names;
}

const std::vector<WantedName>& wanted_windows_names() {
  static const std::vector<WantedName> names = {
      {"cudart", "cudart64_110.dll", false},    {"cudart", "cudart64_12.dll", false},
      {"cudart", "cudart64_13.dll", false},     {"cublas", "cublas64_11.dll", false},
      {"cublas", "cublas64_12.dll", false},     {"cublas", "cublas64_13.dll", false},
      {"cublasLt", "cublasLt64_11.dll", false}, {"cublasLt", "cublasLt64_12.dll", false},
      {"cublasLt", "cublasLt64_13.dll", false}, {"cudnn", "cudnn64_8.dll", false},
      {"cudnn", "cudnn64_9.dll", false},        {"cufft", "cufft64_10.dll", false},
      {"cufft", "cufft64_11.dll", false},       {"cufft", "cufft64_12.dll", false},
      {"curand", "curand64_10.dll", false},     {"cusolver", "cusolver64_10.dll", false},  // CUDA 10.x and 11.0
      {"cusolver", "cusolver64_11.dll", false},
      {"cusolver", "cusolver64_12.dll", false}, {"cusparse", "cusparse64_11.dll", false},
      {"cusparse", "cusparse64_12.dll", false}, {"tensorrt", "nvinfer.dll", false},
      {"tensorrt", "nvinfer_10.dll", false},    {"nvjitlink", "nvJitLink_120_0.dll", false},
      {"nvjitlink", "nvJitLink_130_0.dll", false}, {"nvrtc", "nvrtc64_120_0.dll", false},
      {"cuda", "nvcuda.dll", true},             {"nvml", "nvml.dll", true},
  };
  return names;
}

const std::vector<std::string>& cudnn_sub_libraries(int major) {
  static const std::vector<std::string> v8 = {"cudnn_ops_infer", "cudnn_ops_train", "cudnn_cnn_infer",
                                              "cudnn_cnn_train", "cudnn_adv_infer", "cudnn_adv_train"};
  static const std::vector<std::string> v9 = {"cudnn_graph", "cudnn_engines_precompiled",
                                              "cudnn_engines_runtime_compiled", "cudnn_heuristic",
                                              "cudnn_ops", "cudnn_cnn", "cudnn_adv"};
  static const std::vector<std::string> none;
  return major == 8 ? v8 : major == 9 ? v9 : none;
}

}  // namespace gpuready::probe_detail
