// The module's run-time loading of cuBLAS and cuDNN, without a GPU: where the CUDA toolkit's
// libraries are installed (this project's build machines have cuBLAS 13 and cuDNN 9 beside nvcc),
// every symbol the module calls binds (a slot left empty would crash the first call), and the
// values declared in vendor_abi.h equal those of NVIDIA's headers where they are installed.
#include <gtest/gtest.h>

#include <filesystem>

#include "libs.h"

#if __has_include(<cublas_api.h>)
#include <cublas_api.h>
#define GPUREADY_HAVE_CUBLAS_H 1
#endif
#if __has_include(<cudnn.h>)
#include <cudnn.h>
#define GPUREADY_HAVE_CUDNN_H 1
#endif

using namespace gpuready::gpu;

namespace {

std::string toolkit_lib(const std::string& name) {
  for (const char* dir : {GPUREADY_CUDA_LIB_DIR, "/usr/local/cuda/lib64"})
    if (std::filesystem::exists(std::string(dir) + "/" + name)) return std::string(dir) + "/" + name;
  return "";
}

TEST(ModuleLoader, BindsEveryCublasSymbol) {
  std::string path;
  for (const char* n : {"libcublas.so.13", "libcublas.so.12", "libcublas.so.11"})
    if (path.empty()) path = toolkit_lib(n);
  if (path.empty()) GTEST_SKIP() << "no cuBLAS beside the CUDA toolkit here";
  Cublas lib;
  std::string why;
  ASSERT_TRUE(load_cublas({path}, &lib, &why)) << why;
#define GPUREADY_EXPECT_BOUND(name, ret, params) EXPECT_NE(reinterpret_cast<void*>(lib.name), nullptr) << #name;
  GPUREADY_CUBLAS_REQUIRED(GPUREADY_EXPECT_BOUND)
  EXPECT_EQ(lib.lib.path.substr(0, path.rfind('/')), path.substr(0, path.rfind('/')));
}

TEST(ModuleLoader, BindsEveryCudnnSymbolFromTheSetsFolder) {
  const std::string main = toolkit_lib("libcudnn.so.9");
  if (main.empty()) GTEST_SKIP() << "no cuDNN 9 beside the CUDA toolkit here";
  const std::string dir = main.substr(0, main.rfind('/'));
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (n.rfind("libcudnn", 0) == 0 && n.size() > 5 && n.substr(n.size() - 5) == ".so.9")
      files.push_back(e.path().string());
  }
  Cudnn lib;
  std::string why;
  ASSERT_TRUE(load_cudnn(dir, files, &lib, &why)) << why;
  GPUREADY_CUDNN_REQUIRED(GPUREADY_EXPECT_BOUND)
  EXPECT_GE(lib.cudnnGetVersion(), 90000u);
  for (const auto& f : loaded_files({"cudnn"})) EXPECT_EQ(f.substr(0, f.rfind('/')), dir) << f;
}

TEST(ModuleLoader, ALibraryThatIsNotThereSaysWhy) {
  Cublas c;
  std::string why;
  EXPECT_FALSE(load_cublas({"/nonexistent/libcublas.so.13"}, &c, &why));
  EXPECT_NE(why.find("/nonexistent/libcublas.so.13"), std::string::npos) << why;
}

TEST(VendorAbi, ValuesEqualNvidiasHeaders) {
#if defined(GPUREADY_HAVE_CUBLAS_H)
  EXPECT_EQ(gpuready::gpu::CUBLAS_COMPUTE_32F, static_cast<int>(::CUBLAS_COMPUTE_32F));
  EXPECT_EQ(gpuready::gpu::CUBLAS_COMPUTE_32F_FAST_TF32, static_cast<int>(::CUBLAS_COMPUTE_32F_FAST_TF32));
  EXPECT_EQ(gpuready::gpu::CUBLAS_GEMM_DEFAULT, static_cast<int>(::CUBLAS_GEMM_DEFAULT));
  EXPECT_EQ(gpuready::gpu::CUBLAS_OP_N, static_cast<int>(::CUBLAS_OP_N));
  EXPECT_EQ(gpuready::gpu::CUBLAS_OP_T, static_cast<int>(::CUBLAS_OP_T));
  EXPECT_EQ(gpuready::gpu::CUDA_R_16BF, static_cast<int>(::CUDA_R_16BF));
  EXPECT_EQ(gpuready::gpu::CUDA_R_16F, static_cast<int>(::CUDA_R_16F));
#else
  GTEST_SKIP() << "cublas_api.h is not installed";
#endif
#if defined(GPUREADY_HAVE_CUDNN_H)
  EXPECT_EQ(gpuready::gpu::CUDNN_CROSS_CORRELATION, static_cast<int>(::CUDNN_CROSS_CORRELATION));
  EXPECT_EQ(gpuready::gpu::CUDNN_TENSOR_NCHW, static_cast<int>(::CUDNN_TENSOR_NCHW));
  EXPECT_EQ(gpuready::gpu::CUDNN_DEFAULT_MATH, static_cast<int>(::CUDNN_DEFAULT_MATH));
  EXPECT_EQ(gpuready::gpu::CUDNN_TENSOR_OP_MATH, static_cast<int>(::CUDNN_TENSOR_OP_MATH));
  EXPECT_EQ(gpuready::gpu::CUDNN_FMA_MATH, static_cast<int>(::CUDNN_FMA_MATH));
  EXPECT_EQ(gpuready::gpu::CUDNN_DATA_BFLOAT16, static_cast<int>(::CUDNN_DATA_BFLOAT16));
  EXPECT_EQ(gpuready::gpu::CUDNN_POOLING_MAX_DETERMINISTIC, static_cast<int>(::CUDNN_POOLING_MAX_DETERMINISTIC));
  EXPECT_EQ(gpuready::gpu::CUDNN_NOT_PROPAGATE_NAN, static_cast<int>(::CUDNN_NOT_PROPAGATE_NAN));
  EXPECT_EQ(sizeof(gpuready::gpu::cudnnAlgoPerf), sizeof(cudnnConvolutionFwdAlgoPerf_t));
  EXPECT_EQ(sizeof(gpuready::gpu::cudnnAlgoPerf), sizeof(cudnnConvolutionBwdFilterAlgoPerf_t));
#endif
}

}  // namespace
