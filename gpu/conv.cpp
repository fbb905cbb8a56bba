// cudnn.conv_fwd / conv_bwd_data / conv_bwd_filter: one convolution layer (default N=32, C=64,
// 56x56, K=64, 3x3, pad 1, stride 1: a ResNet layer) through cuDNN's legacy API, which cuDNN 7, 8
// and 9 all have: the algorithm cuDNN's heuristics rank first (as frameworks do without
// benchmark mode), default math (tf32 allowed on Ampere and newer, as PyTorch allows it), fp32
// NCHW tensors of test values. The module reads back sampled outputs; gpuready recomputes them.
#include <fmt/format.h>

#include "module.h"

namespace gpuready::gpu {
namespace {

constexpr std::size_t kMaxWorkspace = 1ull << 30;

struct Descs {
  const Cudnn& d;
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  explicit Descs(const Cudnn& lib) : d(lib) {}
  ~Descs() {
    if (x) d.cudnnDestroyTensorDescriptor(x);
    if (y) d.cudnnDestroyTensorDescriptor(y);
    if (w) d.cudnnDestroyFilterDescriptor(w);
    if (conv) d.cudnnDestroyConvolutionDescriptor(conv);
  }
};

// The first algorithm the heuristics rank usable whose workspace fits.
int pick(const cudnnAlgoPerf* perf, int n, std::size_t* ws) {
  for (int i = 0; i < n; ++i)
    if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].memory <= kMaxWorkspace) {
      *ws = perf[i].memory;
      return perf[i].algo;
    }
  return -1;
}

}  // namespace

void run_conv(Run& run, const Cudnn* dn, const std::string& unavailable) {
  static const char* const kKeys[] = {"cudnn.conv_fwd", "cudnn.conv_bwd_data", "cudnn.conv_bwd_filter"};
  const auto& q = run.req;
  auto skip_all = [&](const std::string& why) {
    for (const char* k : kKeys)
      if (run.wants(k)) {
        verify::ConvResult r;
        r.key = k;
        r.skip = why;
        run.reply.conv.push_back(std::move(r));
      }
  };
  if (!dn) return skip_all(unavailable);
  const Cudnn& d = *dn;
  cudnnHandle_t h = nullptr;
  run.log.begin("cudnnCreate");
  cudnnStatus_t st = d.cudnnCreate(&h);
  if (st == CUDNN_STATUS_SUCCESS) st = d.cudnnSetStream(h, run.stream);
  if (st != CUDNN_STATUS_SUCCESS) {
    const std::string e = "cudnnCreate failed: " + d.status(st);
    run.log.end(false, "cudnn_init", e);
    if (h) d.cudnnDestroy(h);
    return skip_all(e);
  }
  run.log.end(true, "", "");

  const int N = q.conv_n, C = q.conv_c, H = q.conv_hw, W = q.conv_hw, K = q.conv_k, R = q.conv_rs, S = q.conv_rs;
  const int pad = (R - 1) / 2;
  Descs ds(d);
  int on = 0, ok_ = 0, oh = 0, ow = 0;
  std::string setup;
  auto chk = [&](cudnnStatus_t s, const char* what) {
    if (s != CUDNN_STATUS_SUCCESS && setup.empty()) setup = std::string(what) + " failed: " + d.status(s);
  };
  chk(d.cudnnCreateTensorDescriptor(&ds.x), "cudnnCreateTensorDescriptor");
  chk(d.cudnnCreateTensorDescriptor(&ds.y), "cudnnCreateTensorDescriptor");
  chk(d.cudnnCreateFilterDescriptor(&ds.w), "cudnnCreateFilterDescriptor");
  chk(d.cudnnCreateConvolutionDescriptor(&ds.conv), "cudnnCreateConvolutionDescriptor");
  if (setup.empty()) {
    chk(d.cudnnSetTensor4dDescriptor(ds.x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, H, W),
        "cudnnSetTensor4dDescriptor");
    chk(d.cudnnSetFilter4dDescriptor(ds.w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, K, C, R, S),
        "cudnnSetFilter4dDescriptor");
    chk(d.cudnnSetConvolution2dDescriptor(ds.conv, pad, pad, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
        "cudnnSetConvolution2dDescriptor");
    chk(d.cudnnSetConvolutionMathType(ds.conv, CUDNN_DEFAULT_MATH), "cudnnSetConvolutionMathType");
    chk(d.cudnnGetConvolution2dForwardOutputDim(ds.conv, ds.x, ds.w, &on, &ok_, &oh, &ow),
        "cudnnGetConvolution2dForwardOutputDim");
    chk(d.cudnnSetTensor4dDescriptor(ds.y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, on, ok_, oh, ow),
        "cudnnSetTensor4dDescriptor");
  }
  if (!setup.empty()) {
    d.cudnnDestroy(h);
    return skip_all(setup);
  }
  const std::uint64_t nx = 1ull * N * C * H * W, nw = 1ull * K * C * R * S, ny = 1ull * on * ok_ * oh * ow;
  DevBuf x, w, y, dy, dx, dw;
  std::string alloc;
  for (auto [buf, n] : {std::pair{&x, nx}, {&w, nw}, {&y, ny}, {&dy, ny}, {&dx, nx}, {&dw, nw}})
    if (alloc.empty()) alloc = buf->alloc(n * 4);
  if (!alloc.empty()) {
    d.cudnnDestroy(h);
    return skip_all("not enough free GPU memory for the convolution's tensors: " + alloc);
  }
  const std::uint64_t seed_x = verify::mix64(q.seed + 101), seed_w = verify::mix64(q.seed + 102),
                      seed_dy = verify::mix64(q.seed + 103);
  CUresult rc = fill_values(x.get(), Elem::f32, nx, seed_x, run.stream);
  if (rc == CUDA_SUCCESS) rc = fill_values(w.get(), Elem::f32, nw, seed_w, run.stream);
  if (rc == CUDA_SUCCESS) rc = fill_values(dy.get(), Elem::f32, ny, seed_dy, run.stream);
  if (rc != CUDA_SUCCESS) {
    d.cudnnDestroy(h);
    return skip_all(cu_error("filling the inputs", rc));
  }
  const float alpha = 1, beta = 0;
  const double flop = 2.0 * static_cast<double>(ny) * C * R * S;
  for (int op = 0; op < 3; ++op) {
    if (!run.wants(kKeys[op])) continue;
    run.log.announce(kKeys[op]);
    verify::ConvResult r;
    r.key = kKeys[op];
    r.x = {N, C, H, W};
    r.w = {K, C, R, S};
    r.y = {on, ok_, oh, ow};
    r.pad = pad;
    r.stride = 1;
    r.seed_x = seed_x;
    r.seed_w = seed_w;
    r.seed_dy = seed_dy;
    cudnnAlgoPerf perf[16] = {};
    int returned = 0;
    std::size_t ws_bytes = 0;
    int algo = -1;
    if (op == 0) st = d.cudnnGetConvolutionForwardAlgorithm_v7(h, ds.x, ds.w, ds.conv, ds.y, 16, &returned, perf);
    if (op == 1) st = d.cudnnGetConvolutionBackwardDataAlgorithm_v7(h, ds.w, ds.y, ds.conv, ds.x, 16, &returned, perf);
    if (op == 2)
      st = d.cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, ds.x, ds.y, ds.conv, ds.w, 16, &returned, perf);
    if (st == CUDNN_STATUS_SUCCESS) algo = pick(perf, returned, &ws_bytes);
    if (st != CUDNN_STATUS_SUCCESS || algo < 0) {
      r.error = st != CUDNN_STATUS_SUCCESS ? "asking cuDNN for an algorithm failed: " + d.status(st)
                                           : "cuDNN offered no usable algorithm within a 1 GiB workspace";
      run.reply.conv.push_back(std::move(r));
      continue;
    }
    r.algo = op == 0   ? conv_fwd_algo_name(algo)
             : op == 1 ? conv_bwd_data_algo_name(algo)
                       : conv_bwd_filter_algo_name(algo);
    r.workspace = ws_bytes;
    DevBuf ws;
    if (ws_bytes) {
      if (std::string e = ws.alloc(ws_bytes); !e.empty()) {
        r.error = "the workspace: " + e;
        run.reply.conv.push_back(std::move(r));
        continue;
      }
    }
    auto call = [&]() -> std::string {
      cudnnStatus_t s = CUDNN_STATUS_SUCCESS;
      if (op == 0)
        s = d.cudnnConvolutionForward(h, &alpha, ds.x, x.get(), ds.w, w.get(), ds.conv, algo, ws.get(), ws_bytes, &beta,
                                      ds.y, y.get());
      if (op == 1)
        s = d.cudnnConvolutionBackwardData(h, &alpha, ds.w, w.get(), ds.y, dy.get(), ds.conv, algo, ws.get(), ws_bytes,
                                           &beta, ds.x, dx.get());
      if (op == 2)
        s = d.cudnnConvolutionBackwardFilter(h, &alpha, ds.x, x.get(), ds.y, dy.get(), ds.conv, algo, ws.get(),
                                             ws_bytes, &beta, ds.w, dw.get());
      return s == CUDNN_STATUS_SUCCESS ? "" : std::string(kKeys[op] + 6) + " failed: " + d.status(s);
    };
    int calls = 0;
    r.error = time_calls(run.stream, q.conv_warmup, q.conv_samples, 10, call, &r.seconds, &calls);
    if (r.error.empty()) {
      void* out = op == 0 ? y.get() : op == 1 ? dx.get() : dw.get();
      const std::uint64_t n = op == 0 ? ny : op == 1 ? nx : nw;
      r.error =
          sample_result(run, out, Elem::f32, n, seed_x ^ seed_w ^ seed_dy ^ static_cast<std::uint64_t>(op), &r.points);
    }
    r.method = fmt::format(
        "cuDNN {} algorithm {} (first of the heuristics' ranking), workspace {} MiB, fp32 NCHW, default math; "
        "x {}x{}x{}x{}, w {}x{}x{}x{}, pad {}, stride 1 ({:.1f} GFLOP per call); {} warm-up calls, {} samples of {} "
        "calls timed by CUDA events (median reported); {} output elements recomputed on the CPU",
        kKeys[op] + 6, r.algo, ws_bytes >> 20, N, C, H, W, K, C, R, S, pad, flop / 1e9, q.conv_warmup, q.conv_samples,
        calls, q.points);
    run.reply.conv.push_back(std::move(r));
  }
  d.cudnnDestroy(h);
}

}  // namespace gpuready::gpu
