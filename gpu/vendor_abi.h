// The parts of cuBLAS and cuDNN the module calls, declared here rather than taken from their
// headers: the module builds with a bare CUDA toolkit (no cuDNN headers) and loads whichever
// cuBLAS (11-13) and cuDNN (8-9) the machine has at run time. Every name below has kept its
// value and signature across those versions (checked against the cuBLAS 13 and cuDNN 9.19
// headers by tests/unit/gpu_vendor_abi_test.cpp where the headers are installed).
#pragma once

#include <cstddef>

namespace gpuready::gpu {

// ---- cuBLAS (cublas_api.h, library_types.h)
using cublasHandle_t = struct cublasContext*;
using cublasStatus_t = int;
inline constexpr int CUBLAS_STATUS_SUCCESS = 0;
inline constexpr int CUBLAS_OP_N = 0;
inline constexpr int CUBLAS_OP_T = 1;
inline constexpr int CUBLAS_GEMM_DEFAULT = -1;
inline constexpr int CUBLAS_DEFAULT_MATH = 0;
inline constexpr int CUBLAS_COMPUTE_32F = 68;
inline constexpr int CUBLAS_COMPUTE_32F_FAST_TF32 = 77;
inline constexpr int CUDA_R_32F = 0;
inline constexpr int CUDA_R_16F = 2;
inline constexpr int CUDA_R_16BF = 14;

// X(name, return, params): the symbols looked up in libcublas; `optional` ones may be missing
// (cublasSetWorkspace_v2 arrived in CUDA 12.0, cublasGetStatusString in 11.4).
#define GPUREADY_CUBLAS_REQUIRED(X)                                                                                   \
  X(cublasCreate_v2, cublasStatus_t, (cublasHandle_t*))                                                               \
  X(cublasDestroy_v2, cublasStatus_t, (cublasHandle_t))                                                               \
  X(cublasSetStream_v2, cublasStatus_t, (cublasHandle_t, void*))                                                      \
  X(cublasGetVersion_v2, cublasStatus_t, (cublasHandle_t, int*))                                                      \
  X(cublasSetMathMode, cublasStatus_t, (cublasHandle_t, int))                                                         \
  X(cublasGemmEx, cublasStatus_t,                                                                                     \
    (cublasHandle_t, int, int, int, int, int, const void*, const void*, int, int, const void*, int, int, const void*, \
     void*, int, int, int, int))
#define GPUREADY_CUBLAS_OPTIONAL(X)                                              \
  X(cublasSetWorkspace_v2, cublasStatus_t, (cublasHandle_t, void*, std::size_t)) \
  X(cublasGetStatusString, const char*, (cublasStatus_t))

// ---- cuDNN (cudnn_graph.h, cudnn_ops.h, cudnn_cnn.h: the "legacy" API, in cuDNN 7, 8 and 9)
using cudnnHandle_t = struct cudnnContext*;
using cudnnTensorDescriptor_t = struct cudnnTensorStruct*;
using cudnnFilterDescriptor_t = struct cudnnFilterStruct*;
using cudnnConvolutionDescriptor_t = struct cudnnConvolutionStruct*;
using cudnnPoolingDescriptor_t = struct cudnnPoolingStruct*;
using cudnnStatus_t = int;
inline constexpr int CUDNN_STATUS_SUCCESS = 0;
inline constexpr int CUDNN_DATA_FLOAT = 0;
inline constexpr int CUDNN_DATA_BFLOAT16 = 9;
inline constexpr int CUDNN_TENSOR_NCHW = 0;
inline constexpr int CUDNN_CROSS_CORRELATION = 1;
inline constexpr int CUDNN_DEFAULT_MATH = 0;  // tensor cores allowed: TF32 for fp32 data on Ampere and newer
inline constexpr int CUDNN_TENSOR_OP_MATH = 1;
inline constexpr int CUDNN_FMA_MATH = 3;  // no tensor cores: fp32 stays fp32
inline constexpr int CUDNN_POOLING_MAX_DETERMINISTIC = 3;
inline constexpr int CUDNN_NOT_PROPAGATE_NAN = 0;

// cudnnConvolution{Fwd,BwdData,BwdFilter}AlgoPerf_t: one layout for all three.
struct cudnnAlgoPerf {
  int algo;
  cudnnStatus_t status;
  float time;
  std::size_t memory;
  int determinism;
  int mathType;
  int reserved[3];
};

#define GPUREADY_CUDNN_REQUIRED(X)                                                                                     \
  X(cudnnGetVersion, std::size_t, ())                                                                                  \
  X(cudnnGetCudartVersion, std::size_t, ())                                                                            \
  X(cudnnGetErrorString, const char*, (cudnnStatus_t))                                                                 \
  X(cudnnCreate, cudnnStatus_t, (cudnnHandle_t*))                                                                      \
  X(cudnnDestroy, cudnnStatus_t, (cudnnHandle_t))                                                                      \
  X(cudnnSetStream, cudnnStatus_t, (cudnnHandle_t, void*))                                                             \
  X(cudnnCreateTensorDescriptor, cudnnStatus_t, (cudnnTensorDescriptor_t*))                                            \
  X(cudnnDestroyTensorDescriptor, cudnnStatus_t, (cudnnTensorDescriptor_t))                                            \
  X(cudnnSetTensor4dDescriptor, cudnnStatus_t, (cudnnTensorDescriptor_t, int, int, int, int, int, int))                \
  X(cudnnCreateFilterDescriptor, cudnnStatus_t, (cudnnFilterDescriptor_t*))                                            \
  X(cudnnDestroyFilterDescriptor, cudnnStatus_t, (cudnnFilterDescriptor_t))                                            \
  X(cudnnSetFilter4dDescriptor, cudnnStatus_t, (cudnnFilterDescriptor_t, int, int, int, int, int, int))                \
  X(cudnnCreateConvolutionDescriptor, cudnnStatus_t, (cudnnConvolutionDescriptor_t*))                                  \
  X(cudnnDestroyConvolutionDescriptor, cudnnStatus_t, (cudnnConvolutionDescriptor_t))                                  \
  X(cudnnSetConvolution2dDescriptor, cudnnStatus_t,                                                                    \
    (cudnnConvolutionDescriptor_t, int, int, int, int, int, int, int, int))                                            \
  X(cudnnSetConvolutionMathType, cudnnStatus_t, (cudnnConvolutionDescriptor_t, int))                                   \
  X(cudnnGetConvolution2dForwardOutputDim, cudnnStatus_t,                                                              \
    (cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t, cudnnFilterDescriptor_t, int*, int*, int*, int*))          \
  X(cudnnGetConvolutionForwardAlgorithm_v7, cudnnStatus_t,                                                             \
    (cudnnHandle_t, cudnnTensorDescriptor_t, cudnnFilterDescriptor_t, cudnnConvolutionDescriptor_t,                    \
     cudnnTensorDescriptor_t, int, int*, cudnnAlgoPerf*))                                                              \
  X(cudnnGetConvolutionBackwardDataAlgorithm_v7, cudnnStatus_t,                                                        \
    (cudnnHandle_t, cudnnFilterDescriptor_t, cudnnTensorDescriptor_t, cudnnConvolutionDescriptor_t,                    \
     cudnnTensorDescriptor_t, int, int*, cudnnAlgoPerf*))                                                              \
  X(cudnnGetConvolutionBackwardFilterAlgorithm_v7, cudnnStatus_t,                                                      \
    (cudnnHandle_t, cudnnTensorDescriptor_t, cudnnTensorDescriptor_t, cudnnConvolutionDescriptor_t,                    \
     cudnnFilterDescriptor_t, int, int*, cudnnAlgoPerf*))                                                              \
  X(cudnnGetConvolutionForwardWorkspaceSize, cudnnStatus_t,                                                            \
    (cudnnHandle_t, cudnnTensorDescriptor_t, cudnnFilterDescriptor_t, cudnnConvolutionDescriptor_t,                    \
     cudnnTensorDescriptor_t, int, std::size_t*))                                                                      \
  X(cudnnGetConvolutionBackwardDataWorkspaceSize, cudnnStatus_t,                                                       \
    (cudnnHandle_t, cudnnFilterDescriptor_t, cudnnTensorDescriptor_t, cudnnConvolutionDescriptor_t,                    \
     cudnnTensorDescriptor_t, int, std::size_t*))                                                                      \
  X(cudnnGetConvolutionBackwardFilterWorkspaceSize, cudnnStatus_t,                                                     \
    (cudnnHandle_t, cudnnTensorDescriptor_t, cudnnTensorDescriptor_t, cudnnConvolutionDescriptor_t,                    \
     cudnnFilterDescriptor_t, int, std::size_t*))                                                                      \
  X(cudnnConvolutionForward, cudnnStatus_t,                                                                            \
    (cudnnHandle_t, const void*, cudnnTensorDescriptor_t, const void*, cudnnFilterDescriptor_t, const void*,           \
     cudnnConvolutionDescriptor_t, int, void*, std::size_t, const void*, cudnnTensorDescriptor_t, void*))              \
  X(cudnnConvolutionBackwardData, cudnnStatus_t,                                                                       \
    (cudnnHandle_t, const void*, cudnnFilterDescriptor_t, const void*, cudnnTensorDescriptor_t, const void*,           \
     cudnnConvolutionDescriptor_t, int, void*, std::size_t, const void*, cudnnTensorDescriptor_t, void*))              \
  X(cudnnConvolutionBackwardFilter, cudnnStatus_t,                                                                     \
    (cudnnHandle_t, const void*, cudnnTensorDescriptor_t, const void*, cudnnTensorDescriptor_t, const void*,           \
     cudnnConvolutionDescriptor_t, int, void*, std::size_t, const void*, cudnnFilterDescriptor_t, void*))              \
  X(cudnnFindConvolutionForwardAlgorithmEx, cudnnStatus_t,                                                             \
    (cudnnHandle_t, cudnnTensorDescriptor_t, const void*, cudnnFilterDescriptor_t, const void*,                        \
     cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t, void*, int, int*, cudnnAlgoPerf*, void*, std::size_t))     \
  X(cudnnFindConvolutionBackwardDataAlgorithmEx, cudnnStatus_t,                                                        \
    (cudnnHandle_t, cudnnFilterDescriptor_t, const void*, cudnnTensorDescriptor_t, const void*,                        \
     cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t, void*, int, int*, cudnnAlgoPerf*, void*, std::size_t))     \
  X(cudnnFindConvolutionBackwardFilterAlgorithmEx, cudnnStatus_t,                                                      \
    (cudnnHandle_t, cudnnTensorDescriptor_t, const void*, cudnnTensorDescriptor_t, const void*,                        \
     cudnnConvolutionDescriptor_t, cudnnFilterDescriptor_t, void*, int, int*, cudnnAlgoPerf*, void*, std::size_t))     \
  X(cudnnCreatePoolingDescriptor, cudnnStatus_t, (cudnnPoolingDescriptor_t*))                                          \
  X(cudnnDestroyPoolingDescriptor, cudnnStatus_t, (cudnnPoolingDescriptor_t))                                          \
  X(cudnnSetPooling2dDescriptor, cudnnStatus_t, (cudnnPoolingDescriptor_t, int, int, int, int, int, int, int, int))    \
  X(cudnnPoolingForward, cudnnStatus_t,                                                                                \
    (cudnnHandle_t, cudnnPoolingDescriptor_t, const void*, cudnnTensorDescriptor_t, const void*, const void*,          \
     cudnnTensorDescriptor_t, void*))                                                                                  \
  X(cudnnPoolingBackward, cudnnStatus_t,                                                                               \
    (cudnnHandle_t, cudnnPoolingDescriptor_t, const void*, cudnnTensorDescriptor_t, const void*,                       \
     cudnnTensorDescriptor_t, const void*, cudnnTensorDescriptor_t, const void*, const void*, cudnnTensorDescriptor_t, \
     void*))

// Algorithm names, by enum value (cudnn_cnn.h).
inline const char* conv_fwd_algo_name(int a) {
  static const char* const k[] = {"IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT", "FFT", "FFT_TILING",
                                  "WINOGRAD",      "WINOGRAD_NONFUSED"};
  return a >= 0 && a < 8 ? k[a] : "unknown";
}
inline const char* conv_bwd_data_algo_name(int a) {
  static const char* const k[] = {"ALGO_0", "ALGO_1", "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
  return a >= 0 && a < 6 ? k[a] : "unknown";
}
inline const char* conv_bwd_filter_algo_name(int a) {
  static const char* const k[] = {"ALGO_0", "ALGO_1", "FFT", "ALGO_3", "WINOGRAD", "WINOGRAD_NONFUSED", "FFT_TILING"};
  return a >= 0 && a < 7 ? k[a] : "unknown";
}

}  // namespace gpuready::gpu
