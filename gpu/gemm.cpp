// gemm.fp32 / tf32 / fp16 / bf16: cuBLAS GemmEx, C = A * B, square n x n, column-major, fp32
// accumulate (as torch.matmul calls it), a 32 MiB cuBLAS workspace where cuBLAS takes one (as
// PyTorch gives it on Hopper). Inputs are test values (test_values.h), so gpuready can recompute
// any element of C on the CPU; the module reads back req.points of them.
#include <fmt/format.h>

#include "module.h"

namespace gpuready::gpu {
namespace {

struct Precision {
  const char* key;
  Elem elem;
  int type;     // CUDA_R_*
  int compute;  // CUBLAS_COMPUTE_*
  const char* words;
};
constexpr Precision kPrecisions[] = {
    {"gemm.fp32", Elem::f32, CUDA_R_32F, CUBLAS_COMPUTE_32F, "fp32 inputs and output, fp32 compute (no tensor cores)"},
    {"gemm.tf32", Elem::f32, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32,
     "fp32 inputs and output, tf32 tensor cores (CUBLAS_COMPUTE_32F_FAST_TF32)"},
    {"gemm.fp16", Elem::f16, CUDA_R_16F, CUBLAS_COMPUTE_32F, "fp16 inputs and output, fp32 accumulate"},
    {"gemm.bf16", Elem::bf16, CUDA_R_16BF, CUBLAS_COMPUTE_32F, "bf16 inputs and output, fp32 accumulate"},
};
constexpr std::size_t kWorkspace = 32u << 20;

std::size_t elem_size(Elem e) { return e == Elem::f32 ? 4 : 2; }

void one(Run& run, const Cublas& cb, cublasHandle_t h, const Precision& p, int index) {
  verify::GemmResult res;
  res.key = p.key;
  const int size_req = run.req.gemm_size > 0 ? run.req.gemm_size : 8192;
  res.seed_a = verify::mix64(run.req.seed + 2 * static_cast<std::uint64_t>(index) + 1);
  res.seed_b = verify::mix64(run.req.seed + 2 * static_cast<std::uint64_t>(index) + 2);
  DevBuf a, b, c;
  // The largest size up to the request that fits (halving): a small GPU still runs the check.
  int n = size_req;
  std::string alloc_err;
  for (; n >= 256; n /= 2) {
    const std::size_t bytes = static_cast<std::size_t>(n) * n * elem_size(p.elem);
    alloc_err = a.alloc(bytes);
    if (alloc_err.empty()) alloc_err = b.alloc(bytes);
    if (alloc_err.empty()) alloc_err = c.alloc(bytes);
    if (alloc_err.empty()) break;
    a.reset();
    b.reset();
    c.reset();
  }
  res.m = res.n = res.k = n;
  if (!alloc_err.empty()) {
    res.skip = "not enough free GPU memory for three 256 x 256 matrices: " + alloc_err;
    run.reply.gemm.push_back(std::move(res));
    return;
  }
  const std::uint64_t elems = static_cast<std::uint64_t>(n) * n;
  CUresult rc = fill_values(a.get(), p.elem, elems, res.seed_a, run.stream);
  if (rc == CUDA_SUCCESS) rc = fill_values(b.get(), p.elem, elems, res.seed_b, run.stream);
  if (rc != CUDA_SUCCESS) {
    res.error = cu_error("filling the inputs", rc);
    run.reply.gemm.push_back(std::move(res));
    return;
  }
  const float alpha = 1, beta = 0;
  auto call = [&]() -> std::string {
    const cublasStatus_t st = cb.cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a.get(), p.type, n, b.get(),
                                              p.type, n, &beta, c.get(), p.type, n, p.compute, CUBLAS_GEMM_DEFAULT);
    return st == CUBLAS_STATUS_SUCCESS ? "" : "cublasGemmEx failed: " + cb.status(st);
  };
  res.error = time_calls(run.stream, run.req.gemm_warmup, run.req.gemm_samples, run.req.gemm_sample_ms, call,
                         &res.seconds, &res.calls_per_sample);
  if (res.error.empty()) res.error = sample_result(run, c.get(), p.elem, elems, res.seed_a ^ res.seed_b, &res.points);
  res.method = fmt::format(
      "cublasGemmEx {0} x {0} x {0}, {1}; {2} warm-up calls, then {3} samples of {4} back-to-back calls timed by CUDA "
      "events (median reported); {5} elements of C recomputed on the CPU",
      n, p.words, run.req.gemm_warmup, run.req.gemm_samples, res.calls_per_sample, run.req.points);
  if (n != size_req) res.method += fmt::format(" ({} x {} did not fit in free memory)", size_req, size_req);
  run.reply.gemm.push_back(std::move(res));
}

}  // namespace

void run_gemm(Run& run, const Cublas* cb, const std::string& unavailable) {
  cublasHandle_t h = nullptr;
  std::string setup_err;
  DevBuf workspace;
  if (cb) {
    run.log.begin("cublasCreate");
    cublasStatus_t st = cb->cublasCreate_v2(&h);
    if (st == CUBLAS_STATUS_SUCCESS) st = cb->cublasSetStream_v2(h, run.stream);
    if (st == CUBLAS_STATUS_SUCCESS) st = cb->cublasSetMathMode(h, CUBLAS_DEFAULT_MATH);
    if (st != CUBLAS_STATUS_SUCCESS) {
      setup_err = "cublasCreate failed: " + cb->status(st);
      run.log.end(false, "cublas_init", setup_err);
    } else {
      cb->cublasGetVersion_v2(h, &run.reply.cublas_version);
      if (cb->cublasSetWorkspace_v2 && workspace.alloc(kWorkspace).empty())
        cb->cublasSetWorkspace_v2(h, workspace.get(), workspace.bytes());
      run.log.end(true, "", fmt::format("cuBLAS {}", run.reply.cublas_version));
    }
  }
  for (int i = 0; i < 4; ++i) {
    const Precision& p = kPrecisions[i];
    if (!run.wants(p.key)) continue;
    const bool tensor = p.compute == CUBLAS_COMPUTE_32F_FAST_TF32 || p.elem == Elem::bf16;
    if (!cb || !setup_err.empty()) {
      verify::GemmResult res;
      res.key = p.key;
      res.skip = cb ? setup_err : unavailable;
      run.reply.gemm.push_back(std::move(res));
      continue;
    }
    if (tensor && run.reply.device.cc_major < 8) {
      // tf32 and bf16 arrived with Ampere (compute capability 8.0).
      verify::GemmResult res;
      res.key = p.key;
      res.skip = fmt::format("{} needs compute capability 8.0 or newer; this GPU is {}.{}", p.key + 5,
                             run.reply.device.cc_major, run.reply.device.cc_minor);
      run.reply.gemm.push_back(std::move(res));
      continue;
    }
    run.log.announce(p.key);
    one(run, *cb, h, p, i);
  }
  if (h) cb->cublasDestroy_v2(h);
}

}  // namespace gpuready::gpu
