// The parser for what the framework check script (src/probe/checks/framework_check.py) prints: its answer
// line on stdout, its stage lines on stderr, and what the framework itself printed. The inputs below are
// shaped as the script's code paths emit them (json.dumps with its default separators, the "\n" before the
// marker, the stage order of check_pytorch / check_tensorflow / check_jax).
#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parse/child_reply.h"
#include "parse/framework_answer.h"

using namespace gpuready;
using namespace gpuready::parse;

namespace {

// What main() writes on stdout: "\n" + MARK + json.dumps(R) + "\n".
std::string answer(std::string_view json) {
  return "\n" + std::string(kFrameworkCheckMarker) + std::string(json) + "\n";
}

// nlohmann's dump() throws on invalid UTF-8.
bool valid_utf8(const std::string& s) {
  try {
    (void)nlohmann::json(s).dump();
    return true;
  } catch (const nlohmann::json::exception&) {
    return false;
  }
}

// check_pytorch() on a machine with an H200, all stages done.
constexpr std::string_view kPytorchH200 =
    R"({"framework": "pytorch", "python": "3.12.3", "stage": "done", "import_seconds": 1.75, )"
    R"("version": "2.9.1+cu130", "built_cuda": "13.0", "built_hip": null, "built_cudnn": "9.10.2", )"
    R"("arch_list": ["sm_75", "sm_80", "sm_90", "sm_100", "sm_120", "compute_120"], "gpu_available": true, )"
    R"("devices": [{"index": 0, "name": "NVIDIA H200", "capability": "9.0", "memory_bytes": 150109028352}], )"
    R"("runtime_cudnn": 91002, )"
    R"("ops": [{"name": "matmul", "gpu_ms": 212.5, "max_error": 0.0, "values": 65536}, )"
    R"({"name": "conv2d", "gpu_ms": 48.25, "max_error": 1.5e-07, "values": 131072}], )"
    R"("libraries": [{"path": "/usr/lib/x86_64-linux-gnu/libcuda.so.580.95.05", )"
    R"("version": {"query": "cuDriverGetVersion", "value": 13000}}, )"
    R"({"path": "/venv/lib/python3.12/site-packages/nvidia/cudnn/lib/libcudnn.so.9", )"
    R"("version": {"query": "cudnnGetVersion", "value": 91002}}, )"
    R"({"path": "/venv/lib/python3.12/site-packages/nvidia/cublas/lib/libcublas.so.13", )"
    R"("version": {"query": "cublasGetProperty", "text": "13.1.0"}}, )"
    R"({"path": "/venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2", )"
    R"("version": {"query": "ncclGetVersion", "value": 22803}}, )"
    R"({"path": "/venv/lib/python3.12/site-packages/nvidia/cuda_runtime/lib/libcudart.so.13", )"
    R"("version": {"query": "cudaRuntimeGetVersion", "value": 13000}}, )"
    R"({"path": "/venv/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so"}], "seconds": 4.5})";

// check_tensorflow() with TensorFlow 2.10 on Windows: build_info's "64_112" / "64_8", no memory size.
constexpr std::string_view kTensorflowWindows =
    R"({"framework": "tensorflow", "python": "3.10.11", "stage": "done", "import_seconds": 3.5, )"
    R"("version": "2.10.1", "built_cuda": "64_112", "built_cudnn": "64_8", "cuda_build": true, )"
    R"("arch_list": ["sm_35", "sm_50", "sm_60", "sm_70", "sm_75", "compute_80"], "gpu_available": true, )"
    R"("devices": [{"index": 0, "name": "NVIDIA GeForce RTX 3080", "capability": "8.6"}], )"
    R"("ops": [{"name": "matmul", "gpu_ms": 95.0, "max_error": 0.0, "values": 65536}], )"
    R"("libraries": [{"path": "C:\\Windows\\SYSTEM32\\nvcuda.dll", )"
    R"("version": {"query": "cuDriverGetVersion", "value": 12080}}, )"
    R"({"path": "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2\\bin\\cudart64_110.dll", )"
    R"("version": {"query": "cudaRuntimeGetVersion", "value": 11020}}, )"
    R"({"path": "C:\\tools\\cudnn\\bin\\cudnn64_8.dll", "version": {"query": "cudnnGetVersion", "value": 8100}}], )"
    R"("seconds": 9.25})";

// check_jax() with the CUDA 13 plugin and two GPUs: the versions come as integers from cuda_versions.
constexpr std::string_view kJaxCuda13 =
    R"({"framework": "jax", "python": "3.12.3", "stage": "done", "import_seconds": 0.5, "version": "0.7.2", )"
    R"("jaxlib": "0.7.2", "default_backend": "gpu", "built_cuda_int": 13000, "runtime_cuda_int": 13010, )"
    R"("built_cudnn_int": 91200, "runtime_cudnn": 91002, "driver_cuda_int": 13000, "gpu_available": true, )"
    R"("devices": [{"index": 0, "name": "NVIDIA H200", "capability": "9.0"}, )"
    R"({"index": 1, "name": "NVIDIA H200", "capability": "9.0"}], )"
    R"("ops": [{"name": "matmul", "gpu_ms": 310.0, "max_error": 0.0, "values": 65536}, )"
    R"({"name": "conv2d", "gpu_ms": 120.0, "max_error": 0.0, "values": 131072}], "libraries": [], "seconds": 6.0})";

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// Version integers.

TEST(FrameworkVersionInts, CudaRuntimeAndDriverVersions) {
  EXPECT_EQ(cuda_version_of_int(12080), "12.8");
  EXPECT_EQ(cuda_version_of_int(13000), "13.0");
  EXPECT_EQ(cuda_version_of_int(11020), "11.2");
  EXPECT_EQ(cuda_version_of_int(13010), "13.1");
  EXPECT_EQ(cuda_version_of_int(1000), "1.0");
  EXPECT_EQ(cuda_version_of_int(999990), "999.99");
  EXPECT_EQ(cuda_version_of_int(999), "");
  EXPECT_EQ(cuda_version_of_int(999991), "");
  EXPECT_EQ(cuda_version_of_int(0), "");
  EXPECT_EQ(cuda_version_of_int(-12080), "");
}

TEST(FrameworkVersionInts, CudnnNineAndEightSchemes) {
  EXPECT_EQ(cudnn_version_of_int(91002), "9.10.2");  // cuDNN 9: major * 10000 + minor * 100 + patch
  EXPECT_EQ(cudnn_version_of_int(90000), "9.0.0");
  EXPECT_EQ(cudnn_version_of_int(8907), "8.9.7");  // cuDNN 7/8: major * 1000 + minor * 100 + patch
  EXPECT_EQ(cudnn_version_of_int(8100), "8.1.0");
  EXPECT_EQ(cudnn_version_of_int(7605), "7.6.5");
  // Neither scheme: between them, below and above, negative.
  EXPECT_EQ(cudnn_version_of_int(89999), "");
  EXPECT_EQ(cudnn_version_of_int(10000), "");
  EXPECT_EQ(cudnn_version_of_int(999), "");
  EXPECT_EQ(cudnn_version_of_int(1000000), "");
  EXPECT_EQ(cudnn_version_of_int(-91002), "");
}

TEST(FrameworkVersionInts, NcclOldAndNewSchemes) {
  EXPECT_EQ(nccl_version_of_int(22803), "2.28.3");
  EXPECT_EQ(nccl_version_of_int(20900), "2.9.0");
  EXPECT_EQ(nccl_version_of_int(2708), "2.7.8");
  EXPECT_EQ(nccl_version_of_int(20899), "");
  EXPECT_EQ(nccl_version_of_int(999), "");
  EXPECT_EQ(nccl_version_of_int(1000000), "");
  EXPECT_EQ(nccl_version_of_int(-1), "");
}

// ---------------------------------------------------------------------------------------------------------------
// parse_framework_answer: the script's answers.

TEST(FrameworkAnswer, PytorchWithDevicesOpsAndLibraries) {
  FrameworkCheck c;
  const auto a =
      parse_framework_answer("/venv/torch/cuda/__init__.py:63: FutureWarning: x\n" + answer(kPytorchH200), c);
  ASSERT_TRUE(a.has_value());
  EXPECT_TRUE(a->gpu_available);
  EXPECT_EQ(a->error_stage, "");
  EXPECT_EQ(c.stage, "done");
  EXPECT_EQ(c.version.value_or(""), "2.9.1+cu130");
  EXPECT_EQ(c.built_cuda.value_or(""), "13.0");
  EXPECT_EQ(c.built_cudnn.value_or(""), "9.10.2");
  EXPECT_EQ(c.runtime_cudnn.value_or(""), "9.10.2");
  EXPECT_FALSE(c.runtime_cuda.has());
  EXPECT_EQ(c.runtime_cuda.why(), "the framework does not say");
  EXPECT_DOUBLE_EQ(c.import_seconds.value_or(-1), 1.75);
  EXPECT_EQ(c.error, "");
  EXPECT_EQ(c.gpu_error, "");
  EXPECT_EQ(c.arch_list, (std::vector<std::string>{"sm_75", "sm_80", "sm_90", "sm_100", "sm_120", "compute_120"}));

  ASSERT_EQ(c.devices.size(), 1u);
  EXPECT_EQ(c.devices[0].index, 0);
  EXPECT_EQ(c.devices[0].name, "NVIDIA H200");
  EXPECT_EQ(c.devices[0].compute_capability.value_or(""), "9.0");
  EXPECT_EQ(c.devices[0].memory_bytes.value_or(0), 150109028352ull);

  ASSERT_EQ(c.ops.size(), 2u);
  EXPECT_EQ(c.ops[0].name, "matmul");
  EXPECT_DOUBLE_EQ(c.ops[0].max_error.value_or(-1), 0.0);
  EXPECT_DOUBLE_EQ(c.ops[0].gpu_ms.value_or(-1), 212.5);
  EXPECT_EQ(c.ops[0].error, "");
  EXPECT_EQ(c.ops[1].name, "conv2d");
  EXPECT_DOUBLE_EQ(c.ops[1].max_error.value_or(-1), 1.5e-07);
  EXPECT_DOUBLE_EQ(c.ops[1].gpu_ms.value_or(-1), 48.25);

  ASSERT_EQ(c.libraries.size(), 6u);
  EXPECT_EQ(c.libraries[0].path, "/usr/lib/x86_64-linux-gnu/libcuda.so.580.95.05");
  EXPECT_EQ(c.libraries[0].version.value_or(""), "13.0");
  EXPECT_EQ(c.libraries[0].version_source, "cuDriverGetVersion");
  EXPECT_EQ(c.libraries[1].path, "/venv/lib/python3.12/site-packages/nvidia/cudnn/lib/libcudnn.so.9");
  EXPECT_EQ(c.libraries[1].version.value_or(""), "9.10.2");
  EXPECT_EQ(c.libraries[1].version_source, "cudnnGetVersion");
  EXPECT_EQ(c.libraries[2].version.value_or(""), "13.1.0");
  EXPECT_EQ(c.libraries[2].version_source, "cublasGetProperty");
  EXPECT_EQ(c.libraries[3].version.value_or(""), "2.28.3");
  EXPECT_EQ(c.libraries[3].version_source, "ncclGetVersion");
  EXPECT_EQ(c.libraries[4].version.value_or(""), "13.0");
  EXPECT_EQ(c.libraries[4].version_source, "cudaRuntimeGetVersion");
  // library_version() found no query for libtorch_cuda.so: the entry has no "version" key.
  EXPECT_EQ(c.libraries[5].path, "/venv/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so");
  EXPECT_FALSE(c.libraries[5].version.has());
  EXPECT_EQ(c.libraries[5].version.why(), "not asked");
  EXPECT_EQ(c.libraries[5].version_source, "");
  // The answer does not say these: they stay as the caller set them.
  EXPECT_EQ(c.framework, "");
  EXPECT_EQ(c.output, "");
}

TEST(FrameworkAnswer, TensorflowOnWindowsNormalisesBuildInfoVersions) {
  FrameworkCheck c;
  const auto a = parse_framework_answer(answer(kTensorflowWindows), c);
  ASSERT_TRUE(a.has_value());
  EXPECT_TRUE(a->gpu_available);
  EXPECT_EQ(c.version.value_or(""), "2.10.1");
  EXPECT_EQ(c.built_cuda.value_or(""), "11.2");  // "64_112"
  EXPECT_EQ(c.built_cudnn.value_or(""), "8");    // "64_8"
  EXPECT_FALSE(c.runtime_cudnn.has());
  EXPECT_EQ(c.arch_list.size(), 6u);
  ASSERT_EQ(c.devices.size(), 1u);
  EXPECT_EQ(c.devices[0].name, "NVIDIA GeForce RTX 3080");
  EXPECT_EQ(c.devices[0].compute_capability.value_or(""), "8.6");
  EXPECT_FALSE(c.devices[0].memory_bytes.has());
  EXPECT_EQ(c.devices[0].memory_bytes.why(), "the framework does not say");
  ASSERT_EQ(c.libraries.size(), 3u);
  EXPECT_EQ(c.libraries[0].path, R"(C:\Windows\SYSTEM32\nvcuda.dll)");
  EXPECT_EQ(c.libraries[0].version.value_or(""), "12.8");
  EXPECT_EQ(c.libraries[1].path, R"(C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v11.2\bin\cudart64_110.dll)");
  EXPECT_EQ(c.libraries[1].version.value_or(""), "11.2");
  EXPECT_EQ(c.libraries[2].version.value_or(""), "8.1.0");
}

TEST(FrameworkAnswer, TensorflowCpuOnlyBuildSaysSo) {
  // A CPU-only wheel: get_build_info() has no cuda_version, is_cuda_build is False, no GPU listed.
  FrameworkCheck c;
  const auto a = parse_framework_answer(
      answer(R"({"framework": "tensorflow", "python": "3.12.3", "stage": "done", "import_seconds": 2.0, )"
             R"("version": "2.20.0", "built_cuda": null, "built_cudnn": null, "cuda_build": false, )"
             R"("gpu_available": false, "libraries": [], "seconds": 3.0})"),
      c);
  ASSERT_TRUE(a.has_value());
  EXPECT_FALSE(a->gpu_available);
  EXPECT_FALSE(c.built_cuda.has());
  EXPECT_NE(c.built_cuda.why().find("CPU-only"), std::string::npos) << c.built_cuda.why();
  EXPECT_NE(c.built_cuda.why().find("is_cuda_build"), std::string::npos) << c.built_cuda.why();
  EXPECT_FALSE(c.built_cudnn.has());
  EXPECT_EQ(c.built_cudnn.why(), "the framework does not say");
  EXPECT_TRUE(c.devices.empty());
  EXPECT_TRUE(c.ops.empty());
}

TEST(FrameworkAnswer, TensorflowWithoutBuildInfoFallsBackToIsBuiltWithCuda) {
  // get_build_info() raised: only "cuda_build" (tf.test.is_built_with_cuda()) is there.
  FrameworkCheck c;
  ASSERT_TRUE(parse_framework_answer(
      answer(R"({"framework": "tensorflow", "stage": "done", "version": "2.4.0", "cuda_build": true})"), c));
  EXPECT_FALSE(c.built_cuda.has());
  EXPECT_EQ(c.built_cuda.why(), "the framework does not say");
}

TEST(FrameworkAnswer, JaxVersionsAreIntegers) {
  FrameworkCheck c;
  const auto a = parse_framework_answer(answer(kJaxCuda13), c);
  ASSERT_TRUE(a.has_value());
  EXPECT_TRUE(a->gpu_available);
  EXPECT_EQ(c.version.value_or(""), "0.7.2");
  EXPECT_EQ(c.built_cuda.value_or(""), "13.0");
  EXPECT_EQ(c.runtime_cuda.value_or(""), "13.1");
  EXPECT_EQ(c.built_cudnn.value_or(""), "9.12.0");
  EXPECT_EQ(c.runtime_cudnn.value_or(""), "9.10.2");
  ASSERT_EQ(c.devices.size(), 2u);
  EXPECT_EQ(c.devices[1].index, 1);
  EXPECT_EQ(c.devices[1].name, "NVIDIA H200");
  EXPECT_EQ(c.devices[1].compute_capability.value_or(""), "9.0");
  EXPECT_FALSE(c.devices[1].memory_bytes.has());
  ASSERT_EQ(c.ops.size(), 2u);
  EXPECT_DOUBLE_EQ(c.ops[1].gpu_ms.value_or(-1), 120.0);
  EXPECT_TRUE(c.libraries.empty());
}

TEST(FrameworkAnswer, JaxWithoutCudaPlugin) {
  FrameworkCheck c;
  const auto a = parse_framework_answer(
      answer(R"({"framework": "jax", "python": "3.12.3", "stage": "done", "import_seconds": 0.25, )"
             R"("version": "0.7.2", "jaxlib": "0.7.2", "gpu_error": "RuntimeError: Unknown backend: 'gpu' )"
             R"(requested, but no platforms that are instances of gpu are present. Platforms present are: cpu", )"
             R"("default_backend": "cpu", "gpu_available": false, "libraries": [], "seconds": 1.0})"),
      c);
  ASSERT_TRUE(a.has_value());
  EXPECT_FALSE(a->gpu_available);
  EXPECT_FALSE(c.built_cuda.has());
  EXPECT_EQ(c.built_cuda.why(), "no CUDA plugin loaded (jax._src.lib.cuda_versions is None)");
  EXPECT_FALSE(c.runtime_cuda.has());
  EXPECT_EQ(c.gpu_error,
            "RuntimeError: Unknown backend: 'gpu' requested, but no platforms that are instances of gpu are present. "
            "Platforms present are: cpu");
}

TEST(FrameworkAnswer, PytorchCpuOnlyAndRocmBuilds) {
  FrameworkCheck cpu;
  ASSERT_TRUE(parse_framework_answer(
      answer(R"({"framework": "pytorch", "stage": "done", "version": "2.9.1+cpu", "built_cuda": null, )"
             R"("built_hip": null, "gpu_available": false})"),
      cpu));
  EXPECT_FALSE(cpu.built_cuda.has());
  EXPECT_EQ(cpu.built_cuda.why(), "a CPU-only build (torch.version.cuda is None)");

  FrameworkCheck rocm;
  ASSERT_TRUE(parse_framework_answer(
      answer(R"({"framework": "pytorch", "stage": "done", "version": "2.9.1+rocm6.4", "built_cuda": null, )"
             R"("built_hip": "6.4.43482-0f2d60242", "gpu_available": false})"),
      rocm));
  EXPECT_FALSE(rocm.built_cuda.has());
  EXPECT_EQ(rocm.built_cuda.why(), "a ROCm build (HIP 6.4.43482-0f2d60242), not a CUDA one");
}

TEST(FrameworkAnswer, PytorchWithoutGpuReportsTheInitError) {
  FrameworkCheck c;
  const auto a = parse_framework_answer(
      answer(R"({"framework": "pytorch", "stage": "done", "import_seconds": 1.5, "version": "2.9.1+cu130", )"
             R"("built_cuda": "13.0", "built_hip": null, "built_cudnn": "9.10.2", "arch_list": [], )"
             R"("gpu_available": false, "gpu_error": "RuntimeError: The NVIDIA driver on your system is too old )"
             R"((found version 12020).", "libraries": [], "seconds": 2.0})"),
      c);
  ASSERT_TRUE(a.has_value());
  EXPECT_FALSE(a->gpu_available);
  EXPECT_EQ(c.gpu_error, "RuntimeError: The NVIDIA driver on your system is too old (found version 12020).");
  EXPECT_EQ(c.built_cuda.value_or(""), "13.0");
  EXPECT_FALSE(c.runtime_cudnn.has());
  EXPECT_TRUE(c.arch_list.empty());
  EXPECT_TRUE(c.devices.empty());
}

TEST(FrameworkAnswer, FailedImportGivesTheErrorAndItsStage) {
  // record_error("import", e), then the libraries loaded before it failed, then stage("done").
  FrameworkCheck c;
  const auto a = parse_framework_answer(
      answer(R"({"framework": "pytorch", "python": "3.12.3", "stage": "done", "error": {"stage": "import", )"
             R"("message": "ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory"}, )"
             R"("libraries": [{"path": "/usr/lib/x86_64-linux-gnu/libcuda.so.580.95.05", )"
             R"("version": {"query": "cuDriverGetVersion", "value": 13000}}], "seconds": 0.5})"),
      c);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->error_stage, "import");
  EXPECT_FALSE(a->gpu_available);
  EXPECT_EQ(c.error, "ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory");
  EXPECT_EQ(c.stage, "done");
  EXPECT_FALSE(c.version.has());
  EXPECT_EQ(c.version.why(), "the import did not get that far");
  EXPECT_FALSE(c.import_seconds.has());
  EXPECT_EQ(c.import_seconds.why(), "the import did not finish");
  EXPECT_FALSE(c.built_cuda.has());
  // No built_cuda key at all: not a CPU-only build, the check never got that far.
  EXPECT_EQ(c.built_cuda.why(), "the check did not get that far");
  ASSERT_EQ(c.libraries.size(), 1u);
  EXPECT_EQ(c.libraries[0].version.value_or(""), "13.0");
}

TEST(FrameworkAnswer, UnknownFrameworkAndAnErrorWithoutStage) {
  FrameworkCheck unknown;
  const auto a = parse_framework_answer(
      answer(R"({"framework": "mxnet", "python": "3.12.3", "stage": "done", )"
             R"("error": {"stage": "start", "message": "unknown framework 'mxnet'"}, "seconds": 0.0})"),
      unknown);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->error_stage, "start");
  EXPECT_EQ(unknown.error, "unknown framework 'mxnet'");
  EXPECT_EQ(unknown.built_cuda.why(), "the check did not get that far");

  // Without its own stage, the error happened where the answer's stage says.
  FrameworkCheck c;
  const auto b = parse_framework_answer(
      answer(R"({"framework": "jax", "stage": "gpu-op matmul", "error": {"message": "XlaRuntimeError: INTERNAL"}})"),
      c);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->error_stage, "gpu-op matmul");
  EXPECT_EQ(c.error, "XlaRuntimeError: INTERNAL");
}

TEST(FrameworkAnswer, FailedOperations) {
  FrameworkCheck c;
  ASSERT_TRUE(parse_framework_answer(
      answer(R"({"framework": "pytorch", "stage": "done", "version": "2.9.1", "ops": [)"
             // It raised before timing: no gpu_ms, no max_error.
             R"({"name": "matmul", "error": "RuntimeError: CUDA error: no kernel image is available for execution )"
             R"(on the device"}, )"
             // The lengths differ: timed, not compared.
             R"({"name": "conv2d", "gpu_ms": 3.5, "error": "the GPU result has 10 values, the CPU's 131072"}]})"),
      c));
  ASSERT_EQ(c.ops.size(), 2u);
  EXPECT_EQ(c.ops[0].name, "matmul");
  EXPECT_EQ(c.ops[0].error, "RuntimeError: CUDA error: no kernel image is available for execution on the device");
  EXPECT_FALSE(c.ops[0].max_error.has());
  EXPECT_EQ(c.ops[0].max_error.why(), "it failed");
  EXPECT_FALSE(c.ops[0].gpu_ms.has());
  EXPECT_EQ(c.ops[0].gpu_ms.why(), "it did not finish");
  EXPECT_EQ(c.ops[1].error, "the GPU result has 10 values, the CPU's 131072");
  EXPECT_FALSE(c.ops[1].max_error.has());
  EXPECT_DOUBLE_EQ(c.ops[1].gpu_ms.value_or(-1), 3.5);
}

TEST(FrameworkAnswer, NegativeOrAbsurdNumbersAreNotTaken) {
  FrameworkCheck c;
  ASSERT_TRUE(parse_framework_answer(answer(R"({"framework": "pytorch", "import_seconds": -1.0, "ops": [)"
                                            R"({"name": "matmul", "max_error": -0.5, "gpu_ms": -3.0}, )"
                                            R"({"name": "conv2d", "max_error": 1e300, "gpu_ms": 2e12}, )"
                                            R"({"name": "add", "max_error": "0.0", "gpu_ms": true}, )"
                                            R"({"name": "mul", "max_error": 2, "gpu_ms": 7}]})"),
                                     c));
  EXPECT_FALSE(c.import_seconds.has());
  ASSERT_EQ(c.ops.size(), 4u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_FALSE(c.ops[i].max_error.has()) << c.ops[i].name;
    EXPECT_EQ(c.ops[i].max_error.why(), "no result to compare") << c.ops[i].name;
    EXPECT_FALSE(c.ops[i].gpu_ms.has()) << c.ops[i].name;
  }
  // Integers are numbers too.
  EXPECT_DOUBLE_EQ(c.ops[3].max_error.value_or(-1), 2.0);
  EXPECT_DOUBLE_EQ(c.ops[3].gpu_ms.value_or(-1), 7.0);
}

TEST(FrameworkAnswer, LibraryVersionsThatDoNotResolve) {
  FrameworkCheck c;
  ASSERT_TRUE(parse_framework_answer(
      answer(R"({"framework": "pytorch", "libraries": [)"
             R"({"path": "/a/libcudnn.so.9", "version": {"query": "cudnnGetVersion", "value": 5}}, )"
             R"({"path": "/a/libcudnn.so.8", "version": {"query": "cudnnGetVersion"}}, )"
             R"({"path": "/a/libfoo_cuda.so", "version": {"query": "fooGetVersion", "value": 12}}, )"
             R"({"path": "/a/libnvrtc.so.13", "version": "13.0"}, )"
             R"({"path": "/a/libcudart.so.13", "version": {"query": "cudaRuntimeGetVersion", "value": "13000"}}, )"
             R"({"path": ""}, {"path": 7}, {"version": {"text": "1.0"}}, "libcuda.so.1"]})"),
      c));
  // The last four entries have no usable path or are not an object: skipped.
  ASSERT_EQ(c.libraries.size(), 5u);
  EXPECT_EQ(c.libraries[0].version.why(), "cudnnGetVersion gave 5");
  EXPECT_EQ(c.libraries[1].version.why(), "cudnnGetVersion gave no number");
  EXPECT_EQ(c.libraries[2].version.why(), "fooGetVersion gave 12");
  EXPECT_EQ(c.libraries[3].version.why(), "the library has no version query gpuready knows");
  EXPECT_EQ(c.libraries[4].version.why(), "cudaRuntimeGetVersion gave no number");
  for (const auto& l : c.libraries) {
    EXPECT_FALSE(l.version.has()) << l.path;
    EXPECT_EQ(l.version_source, "") << l.path;
  }
}

TEST(FrameworkAnswer, WrongTypedFieldsAreSkipped) {
  FrameworkCheck c;
  std::optional<FrameworkAnswer> a;
  ASSERT_NO_THROW(
      a = parse_framework_answer(
          answer(R"({"framework": 3, "stage": ["x"], "version": 5, "built_cuda": 13.0, "built_cudnn": {"a": 1}, )"
                 R"("runtime_cudnn": "91002", "runtime_cuda_int": 12.8, "import_seconds": "1.5", )"
                 R"("gpu_available": "yes", "gpu_error": false, "arch_list": ["sm_90", 90, null, "sm_100"], )"
                 R"("devices": "x", "ops": [1, 2], "libraries": {"path": "/a/libcuda.so.1"}, )"
                 R"("error": "ImportError: no"})"),
          c));
  ASSERT_TRUE(a.has_value());
  EXPECT_FALSE(a->gpu_available);
  EXPECT_EQ(a->error_stage, "");
  EXPECT_EQ(c.stage, "");
  EXPECT_FALSE(c.version.has());
  EXPECT_FALSE(c.built_cuda.has());
  EXPECT_EQ(c.built_cuda.why(), "the framework does not say");
  EXPECT_FALSE(c.built_cudnn.has());
  EXPECT_FALSE(c.runtime_cudnn.has());
  EXPECT_FALSE(c.runtime_cuda.has());
  EXPECT_FALSE(c.import_seconds.has());
  EXPECT_EQ(c.gpu_error, "");
  EXPECT_EQ(c.arch_list, (std::vector<std::string>{"sm_90", "sm_100"}));
  EXPECT_TRUE(c.devices.empty());
  EXPECT_TRUE(c.ops.empty());
  EXPECT_TRUE(c.libraries.empty());
  EXPECT_EQ(c.error, "");
}

TEST(FrameworkAnswer, WrongTypedDeviceFields) {
  FrameworkCheck c;
  ASSERT_TRUE(parse_framework_answer(
      answer(R"({"framework": "pytorch", "devices": [{"index": "0", "name": 3, "capability": 9.0, )"
             R"("memory_bytes": "80GB"}, 7, {"index": 3, "name": "B", "memory_bytes": -1}, )"
             R"({"name": "C", "memory_bytes": 0}]})"),
      c));
  ASSERT_EQ(c.devices.size(), 3u);
  EXPECT_EQ(c.devices[0].index, 0);  // no integer index: its position
  EXPECT_EQ(c.devices[0].name, "");
  EXPECT_FALSE(c.devices[0].compute_capability.has());
  EXPECT_FALSE(c.devices[0].memory_bytes.has());
  EXPECT_EQ(c.devices[1].index, 3);
  EXPECT_EQ(c.devices[1].name, "B");
  EXPECT_FALSE(c.devices[1].memory_bytes.has());
  EXPECT_EQ(c.devices[2].index, 2);
  EXPECT_FALSE(c.devices[2].memory_bytes.has());
}

TEST(FrameworkAnswer, TextsAreCleanedAndBounded) {
  FrameworkCheck c;
  const std::string long_message(10000, 'e');
  ASSERT_TRUE(parse_framework_answer(
      answer(R"({"framework": "pytorch", "version": "2.9.1\u0000\nrc", "devices": [{"name": "NVIDIA\tH200 \u00e9"}], )"
             R"("error": {"stage": "import", "message": ")" +
             long_message + R"("}, "ops": [{"name": "matmul", "error": ")" + long_message + R"("}], "arch_list": [")" +
             std::string(100, 's') + R"("]})"),
      c));
  EXPECT_EQ(c.version.value_or(""), "2.9.1  rc");  // control characters become spaces
  ASSERT_EQ(c.devices.size(), 1u);
  EXPECT_EQ(c.devices[0].name, "NVIDIA H200 \xC3\xA9");
  EXPECT_EQ(c.error.size(), 4000u);
  ASSERT_EQ(c.ops.size(), 1u);
  EXPECT_EQ(c.ops[0].error.size(), 4000u);
  ASSERT_EQ(c.arch_list.size(), 1u);
  EXPECT_EQ(c.arch_list[0].size(), 32u);
}

TEST(FrameworkAnswer, TooManyItemsAreCapped) {
  std::string devices, ops;
  for (int i = 0; i < 300; ++i) devices += std::string(i ? ", " : "") + R"({"index": 0, "name": "G"})";
  for (int i = 0; i < 20; ++i) ops += std::string(i ? ", " : "") + R"({"name": "matmul", "max_error": 0.0})";
  FrameworkCheck c;
  ASSERT_TRUE(parse_framework_answer(answer(R"({"devices": [)" + devices + R"(], "ops": [)" + ops + "]}"), c));
  EXPECT_EQ(c.devices.size(), 256u);
  EXPECT_EQ(c.ops.size(), 16u);
}

TEST(FrameworkAnswer, TheLastMarkerThatStartsALineWins) {
  // The framework printed something that looks like an answer first; the script's own answer comes last.
  FrameworkCheck c;
  const std::string out = "noise\n" + std::string(kFrameworkCheckMarker) + R"({"version": "first"})" + "\n" +
                          "more noise\n" + std::string(kFrameworkCheckMarker) + R"({"version": "second"})" +
                          "\ntrailing noise\n";
  ASSERT_TRUE(parse_framework_answer(out, c));
  EXPECT_EQ(c.version.value_or(""), "second");

  // A marker inside a line is not an answer, before or after the real one.
  FrameworkCheck d;
  const std::string inside = "print: " + std::string(kFrameworkCheckMarker) + R"({"version": "inside-1"})" + "\n" +
                             std::string(kFrameworkCheckMarker) + R"({"version": "real"})" + "\n" + "echo " +
                             std::string(kFrameworkCheckMarker) + R"({"version": "inside-2"})" + "\n";
  ASSERT_TRUE(parse_framework_answer(inside, d));
  EXPECT_EQ(d.version.value_or(""), "real");

  // At the very start of the output, without a newline at the end, and with Windows' "\r\n".
  FrameworkCheck e;
  ASSERT_TRUE(parse_framework_answer(std::string(kFrameworkCheckMarker) + R"({"version": "bare"})", e));
  EXPECT_EQ(e.version.value_or(""), "bare");
  FrameworkCheck f;
  ASSERT_TRUE(
      parse_framework_answer("x\r\n" + std::string(kFrameworkCheckMarker) + R"({"version": "crlf"})" + "\r\n", f));
  EXPECT_EQ(f.version.value_or(""), "crlf");

  // The last one wins even when it is broken: an earlier answer is not taken instead.
  FrameworkCheck g;
  EXPECT_FALSE(parse_framework_answer(
      std::string(kFrameworkCheckMarker) + R"({"version": "old"})" + "\n" + std::string(kFrameworkCheckMarker) + "{",
      g));
}

TEST(FrameworkAnswer, NoAnswerGivesNulloptAndLeavesTheCheckAlone) {
  const std::string marker(kFrameworkCheckMarker);
  const std::string cases[] = {
      "",
      "Segmentation fault (core dumped)\n",
      "print: " + marker + R"({"version": "1"})" + "\n",                       // not at a line start
      marker + "\n",                                                           // nothing after it
      marker + "not json\n",                                                   // not JSON
      marker + "[1, 2, 3]\n",                                                  // an array
      marker + "\"a string\"\n",                                               // a string
      marker + "null\n",                                                       // null
      marker + std::string(10000, '['),                                        // absurd nesting
      marker + std::string(5000, '{'),                                         // absurd nesting
      "\n" + marker + R"({"framework": "pytorch", "python": "3.12.3", "ver)",  // cut off by a kill
      marker + R"({"version": "1"} trailing)" + "\n",                          // more after the object
      marker + "{\"version\": \"\xff\xfe\"}\n",                                // invalid UTF-8 inside the JSON
  };
  for (const auto& out : cases) {
    FrameworkCheck c;
    c.framework = "pytorch";
    EXPECT_FALSE(parse_framework_answer(out, c).has_value()) << out.substr(0, 80);
    EXPECT_EQ(c.framework, "pytorch");
    EXPECT_EQ(c.version.why(), "not collected");  // untouched
    EXPECT_EQ(c.stage, "");
  }
}

TEST(FrameworkAnswer, NestingLimitIsSixteen) {
  const auto nested = [](int arrays) {
    return std::string(kFrameworkCheckMarker) + R"({"version": "1", "x": )" + std::string(arrays, '[') +
           std::string(arrays, ']') + "}";
  };
  FrameworkCheck ok;
  ASSERT_TRUE(parse_framework_answer(nested(15), ok));  // 16 levels with the object
  EXPECT_EQ(ok.version.value_or(""), "1");
  FrameworkCheck deep;
  EXPECT_FALSE(parse_framework_answer(nested(16), deep));
  // Brackets inside strings do not count.
  FrameworkCheck text;
  ASSERT_TRUE(parse_framework_answer(
      std::string(kFrameworkCheckMarker) + R"({"version": "2", "gpu_error": ")" + std::string(100, '[') + R"("})",
      text));
  EXPECT_EQ(text.gpu_error, std::string(100, '['));
}

TEST(FrameworkAnswer, EmptyObjectGivesReasonsForEverything) {
  FrameworkCheck c;
  const auto a = parse_framework_answer(std::string(kFrameworkCheckMarker) + "{}", c);
  ASSERT_TRUE(a.has_value());
  EXPECT_FALSE(a->gpu_available);
  EXPECT_EQ(a->error_stage, "");
  EXPECT_EQ(c.version.why(), "the import did not get that far");
  EXPECT_EQ(c.built_cuda.why(), "the check did not get that far");
  EXPECT_EQ(c.built_cudnn.why(), "the framework does not say");
  EXPECT_EQ(c.runtime_cudnn.why(), "the framework does not say");
  EXPECT_EQ(c.runtime_cuda.why(), "the framework does not say");
  EXPECT_EQ(c.import_seconds.why(), "the import did not finish");
}

// ---------------------------------------------------------------------------------------------------------------
// last_check_stage

TEST(FrameworkStage, TheLastStageThatStartsALine) {
  // check_pytorch() crashed in the conv2d op: faulthandler printed the stack after the stage line.
  const std::string err =
      "gpuready-check-stage: import\n"
      "/venv/torch/cuda/__init__.py:63: UserWarning: CUDA initialization: x\n"
      "gpuready-check-stage: build\n"
      "gpuready-check-stage: devices\n"
      "gpuready-check-stage: gpu-op matmul\n"
      "gpuready-check-stage: gpu-op conv2d\n"
      "Fatal Python error: Segmentation fault\n"
      "  File \"<stdin>\", line 180 in check_pytorch gpuready-check-stage: inside\n";
  EXPECT_EQ(last_check_stage(err), "gpu-op conv2d");
  EXPECT_EQ(last_check_stage("gpuready-check-stage: import\r\nerror\r\n"), "import");
  EXPECT_EQ(last_check_stage("x\ngpuready-check-stage: dev"), "dev");  // killed mid-line
  EXPECT_EQ(last_check_stage("gpuready-check-stage: libraries\ngpuready-check-stage: done\n"), "done");
}

TEST(FrameworkStage, EmptyWithoutAStage) {
  EXPECT_EQ(last_check_stage(""), "");
  EXPECT_EQ(last_check_stage("Traceback (most recent call last):\nImportError: x\n"), "");
  EXPECT_EQ(last_check_stage("echo gpuready-check-stage: import\n"), "");
  EXPECT_EQ(last_check_stage("gpuready-check-stage:import\n"), "");  // the marker has its space
}

TEST(FrameworkStage, StageIsCleanedAndBounded) {
  EXPECT_EQ(last_check_stage("gpuready-check-stage: gpu-op\tmatmul \xff\n"), "gpu-op matmul \xEF\xBF\xBD");
  EXPECT_EQ(last_check_stage("gpuready-check-stage: " + std::string(500, 'x') + "\n"), std::string(64, 'x'));
}

// ---------------------------------------------------------------------------------------------------------------
// framework_output

TEST(FrameworkOutput, DropsStageAndAnswerLinesKeepsTheRest) {
  const std::string err =
      "gpuready-check-stage: import\n"
      "2026-01-01 12:00:00.1: I tensorflow/core/util/port.cc:153] oneDNN custom operations are on.\n"
      "gpuready-check-stage: build\n"
      "gpuready-check-stage: devices\n"
      "W0000 00:00:1 gpu_device.cc:2342] Cannot dlopen some GPU libraries.\n"
      "gpuready-check-stage: libraries\n"
      "gpuready-check-stage: done\n";
  const std::string out = "printed by the package\n" + answer(kTensorflowWindows);
  EXPECT_EQ(framework_output(out, err, 64 * 1024),
            "2026-01-01 12:00:00.1: I tensorflow/core/util/port.cc:153] oneDNN custom operations are on.\n"
            "W0000 00:00:1 gpu_device.cc:2342] Cannot dlopen some GPU libraries.\n"
            "printed by the package\n");
  // Nothing printed: nothing kept (the "\n" before the answer is an empty line).
  EXPECT_EQ(framework_output(answer("{}"), "gpuready-check-stage: import\ngpuready-check-stage: done\n", 1024), "");
  // A marker inside a line is the framework's text.
  EXPECT_EQ(framework_output("echo gpuready-framework-check: {}\n", "", 1024), "echo gpuready-framework-check: {}\n");
}

TEST(FrameworkOutput, LinesAreCleaned) {
  EXPECT_EQ(framework_output("", "warning\r\nbad \xff\xfe bytes\n\tindented\n", 1024),
            "warning\nbad \xEF\xBF\xBD\xEF\xBF\xBD bytes\nindented\n");
  const std::string out = framework_output("\xff\xfe", "\xc3\x28 \xed\xa0\x80 \xf4\x90\x80\x80", 1024);
  EXPECT_TRUE(valid_utf8(out)) << out;
  EXPECT_EQ(out.substr(out.size() - 7), "\xEF\xBF\xBD\xEF\xBF\xBD\n");
  // One line is kept up to 2000 bytes.
  EXPECT_EQ(framework_output(std::string(5000, 'x'), "", 64 * 1024), std::string(2000, 'x') + "\n");
}

TEST(FrameworkOutput, ATracebacksIndentationIsKept) {
  EXPECT_EQ(framework_output("",
                             "Traceback (most recent call last):\n  File \"<stdin>\", line 3, in <module>\n"
                             "    import torch\nImportError: x\n",
                             1024),
            "Traceback (most recent call last):\n  File \"<stdin>\", line 3, in <module>\n    import torch\n"
            "ImportError: x\n");
}

TEST(FrameworkOutput, LongOutputKeepsTheHeadAndTheTail) {
  std::string err;
  for (int i = 0; i < 1000; ++i) {
    char line[16];
    std::snprintf(line, sizeof line, "line %04d\n", i);
    err += line;
  }
  ASSERT_EQ(err.size(), 10000u);
  const std::string s = framework_output("", err, 1000);
  EXPECT_LE(s.size(), 1000u);
  EXPECT_GT(s.size(), 900u);
  EXPECT_EQ(s.substr(0, 20), "line 0000\nline 0001\n");
  EXPECT_EQ(s.substr(s.size() - 20), "line 0998\nline 0999\n");
  const std::string cut = "\n[... the middle left out of 10000 bytes ...]\n";
  const size_t at = s.find(cut);
  ASSERT_NE(at, std::string::npos) << s;
  EXPECT_EQ(s.find(cut, at + 1), std::string::npos);
  // Whole lines on both sides of the marker, and the middle is gone.
  const std::string kept = s.substr(0, at) + "\n" + s.substr(at + cut.size());
  size_t lines = 0;
  for (size_t pos = 0; pos < kept.size(); pos += 10, ++lines) {
    ASSERT_EQ(kept.substr(pos, 5), "line ") << pos;
    ASSERT_EQ(kept[pos + 9], '\n') << pos;
  }
  EXPECT_EQ(kept.size() % 10, 0u);
  EXPECT_EQ(lines, 94u);
  EXPECT_EQ(s.find("line 0500"), std::string::npos);
  EXPECT_TRUE(valid_utf8(s));

  // Non-ASCII lines are never split.
  std::string wide;
  for (int i = 0; i < 500; ++i) wide += "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80 gpu\n";
  for (size_t max : {200u, 301u, 777u, 1001u}) {
    const std::string w = framework_output(wide, "", max);
    EXPECT_LE(w.size(), max);
    EXPECT_NE(w.find("the middle left out"), std::string::npos);
    EXPECT_TRUE(valid_utf8(w)) << max;
  }
}

TEST(FrameworkOutput, FitsWhenExactlyMaxAndEmptyWhenMaxIsTiny) {
  const std::string err = "0123456789\nabcdefghij\n";
  EXPECT_EQ(framework_output("", err, 22), err);
  EXPECT_EQ(framework_output("", std::string(5000, 'y') + "\n" + std::string(5000, 'z'), 10), "");
  EXPECT_EQ(framework_output("", err, 0), "");
  EXPECT_EQ(framework_output("", "", 0), "");
}

// parse::child_reply: the reply of gpuready's own children is their last JSON line, whatever the libraries they
// load print beside it (oneDNN's verbose lines, cuDNN's log, a driver's warning).
namespace {
using gpuready::parse::child_reply;

TEST(ChildReply, TheLastJsonObjectLineWhateverIsPrintedAround) {
  ASSERT_TRUE(child_reply("{\"a\":1}\n"));
  EXPECT_EQ((*child_reply("{\"a\":1}"))["a"], 1);
  // oneDNN 2.6 with ONEDNN_VERBOSE=1, before the reply (as the CPU engine's child printed it).
  const std::string onednn =
      "onednn_verbose,info,oneDNN v2.6.3 (commit N/A)\n"
      "onednn_verbose,info,cpu,runtime:OpenMP\n"
      "onednn_verbose,exec,cpu,convolution,gemm:jit,forward_training,src_f32::blocked:abcd:f0,,alg:convolution_direct,"
      "mb64_ic3oc32_ih128oh126kh3sh1dh0ph0_iw128ow126kw3sw1dw0pw0,12.3\n"
      "{\"engine\":\"oneDNN 2.6.3\",\"epochs\":[]}\r\n";
  auto j = child_reply(onednn);
  ASSERT_TRUE(j);
  EXPECT_EQ((*j)["engine"], "oneDNN 2.6.3");
  // A line printed after the reply, and an earlier JSON line that is not the reply.
  j = child_reply("{\"early\":true}\n{\"reply\":2}\nwarning: something at exit\n\n");
  ASSERT_TRUE(j);
  EXPECT_EQ((*j)["reply"], 2);
  // Not objects, not JSON, too deep, nothing at all.
  EXPECT_FALSE(child_reply("[1,2]\n42\n\"x\"\n"));
  EXPECT_FALSE(child_reply("{not json}\n{\"cut\":"));
  EXPECT_FALSE(child_reply(std::string(100, '{') + std::string(100, '}')));
  EXPECT_FALSE(child_reply(""));
  EXPECT_FALSE(child_reply("\n\n"));
}
}  // namespace
