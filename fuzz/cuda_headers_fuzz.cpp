// libFuzzer target for the CUDA version-file parsers (version.json/.txt, cuda.h, cudnn_version.h,
// nccl.h, NvInferVersion.h, cublas_api.h, nvcc output and library file names; dist-info and
// conda-meta names are python_metadata_fuzz's).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "parse/cuda_headers.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace p = gpuready::parse;
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  (void)p::parse_cuda_version_json(in);
  (void)p::parse_cuda_version_txt(in);
  (void)p::parse_cuda_h_version(in);
  (void)p::parse_cudnn_header_version(in);
  (void)p::parse_nccl_header_version(in);
  (void)p::parse_tensorrt_header_version(in);
  (void)p::parse_cublas_header_version(in);
  (void)p::parse_nvcc_version_output(in);
  (void)p::parse_library_file_name(in);
  return 0;
}
