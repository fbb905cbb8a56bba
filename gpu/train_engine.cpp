// The GPU training engine (train_engine.h). Layouts as the reference: activations NCHW, conv
// weights KCRS, dense weights [out][in] row-major. cuBLAS is column-major, so a row-major
// [rows x cols] matrix is its [cols x rows] transpose; the three products of a dense layer
// y = x W^T (x: n x in, W: out x in) become
//   forward   y^T  (out x n)  = op_T(W^T: in x out) . x^T (in x n)       gemm(T, N, out, n, in)
//   dx        dx^T (in x n)   = W^T (in x out) . dy^T (out x n)          gemm(N, N, in, n, out)
//   dW        dW^T (in x out) = x^T (in x n) . op_T(dy^T: out x n)       gemm(N, T, in, out, n)
#include "train_engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace gpuready::gpu {

std::optional<Precision> parse_precision(const std::string& s) {
  if (s == "fp32") return Precision::fp32;
  if (s == "tf32") return Precision::tf32;
  if (s == "bf16") return Precision::bf16;
  return std::nullopt;
}

namespace {

std::size_t elem_size(Elem t) { return t == Elem::bf16 ? 2 : 4; }

struct Algo {
  int algo = -1;
  std::size_t ws = 0;
  int math = 0;
};

const char* math_name(int m) {
  switch (m) {
    case CUDNN_DEFAULT_MATH:
      return "default math";
    case CUDNN_TENSOR_OP_MATH:
      return "tensor ops";
    case CUDNN_FMA_MATH:
      return "FMA";
    default:
      return "tensor ops, conversions allowed";
  }
}

}  // namespace

// The descriptors and the chosen algorithms for one batch size, and the graphs captured for it.
struct TrainEngine::Net {
  const Cudnn& d;
  int n = 0;
  cudnnTensorDescriptor_t x = nullptr, a1 = nullptr, p1 = nullptr, a2 = nullptr, p2 = nullptr;
  // One convolution descriptor per layer and direction: each carries its algorithm's math type.
  cudnnConvolutionDescriptor_t c1f = nullptr, c1bf = nullptr, c2f = nullptr, c2bd = nullptr, c2bf = nullptr;
  Algo fwd1, bf1, fwd2, bd2, bf2;
  struct Graph {
    int seen = 0;
    CUgraphExec exec = nullptr;
    bool failed = false;
  };
  std::map<std::tuple<BatchSource, bool>, Graph> graphs;
  explicit Net(const Cudnn& lib) : d(lib) {}
  ~Net() {
    for (auto& [k, g] : graphs)
      if (g.exec) cu().cuGraphExecDestroy(g.exec);
    for (auto t : {x, a1, p1, a2, p2})
      if (t) d.cudnnDestroyTensorDescriptor(t);
    for (auto c : {c1f, c1bf, c2f, c2bd, c2bf})
      if (c) d.cudnnDestroyConvolutionDescriptor(c);
  }
};

void TrainEngine::check(CUresult rc, const char* what) const {
  if (rc != CUDA_SUCCESS) throw std::runtime_error(cu_error(what, rc));
}
void TrainEngine::check_dnn(cudnnStatus_t st, const char* what) const {
  if (st != CUDNN_STATUS_SUCCESS) throw std::runtime_error(fmt::format("{} failed: {}", what, dnn_.status(st)));
}
void TrainEngine::check_blas(cublasStatus_t st, const char* what) const {
  if (st != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(fmt::format("{} failed: {}", what, blas_.status(st)));
}

TrainEngine::TrainEngine(const Cublas& blas, const Cudnn& dnn, const train::ModelSpec& m, const EngineOptions& o,
                         CUstream stream)
    : blas_(blas), dnn_(dnn), m_(m), o_(o), stream_(stream) {
  std::string why;
  l_ = train::layout_of(m_, &why);
  if (l_.total == 0) throw std::runtime_error(why);
  if (o_.max_batch < 1) throw std::runtime_error("the batch size must be at least 1");
  act_ = o_.precision == Precision::bf16 ? Elem::bf16 : Elem::f32;
  h1_ = m_.h - m_.kernel + 1;
  w1_ = m_.w - m_.kernel + 1;
  h1p_ = h1_ / 2;
  w1p_ = w1_ / 2;
  h2_ = h1p_ - m_.kernel + 1;
  w2_ = w1p_ - m_.kernel + 1;
  h2p_ = h2_ / 2;
  w2p_ = w2_ / 2;

  check_blas(blas_.cublasCreate_v2(&blas_h_), "cublasCreate");
  check_blas(blas_.cublasSetStream_v2(blas_h_, stream_), "cublasSetStream");
  check_dnn(dnn_.cudnnCreate(&dnn_h_), "cudnnCreate");
  check_dnn(dnn_.cudnnSetStream(dnn_h_, stream_), "cudnnSetStream");
  check_dnn(dnn_.cudnnCreatePoolingDescriptor(&pool_), "cudnnCreatePoolingDescriptor");
  check_dnn(dnn_.cudnnSetPooling2dDescriptor(pool_, CUDNN_POOLING_MAX_DETERMINISTIC, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 0,
                                             0, 2, 2),
            "cudnnSetPooling2dDescriptor");
  const int dt = act_ == Elem::bf16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_FLOAT;
  check_dnn(dnn_.cudnnCreateFilterDescriptor(&w1d_), "cudnnCreateFilterDescriptor");
  check_dnn(dnn_.cudnnSetFilter4dDescriptor(w1d_, dt, CUDNN_TENSOR_NCHW, m_.conv1, m_.c, m_.kernel, m_.kernel),
            "cudnnSetFilter4dDescriptor");
  check_dnn(dnn_.cudnnCreateFilterDescriptor(&w2d_), "cudnnCreateFilterDescriptor");
  check_dnn(dnn_.cudnnSetFilter4dDescriptor(w2d_, dt, CUDNN_TENSOR_NCHW, m_.conv2, m_.conv1, m_.kernel, m_.kernel),
            "cudnnSetFilter4dDescriptor");

  const std::size_t B = static_cast<std::size_t>(o_.max_batch), es = elem_size(act_);
  const std::size_t image = static_cast<std::size_t>(m_.c) * m_.h * m_.w;
  const std::size_t a1 = static_cast<std::size_t>(m_.conv1) * h1_ * w1_,
                    p1 = static_cast<std::size_t>(m_.conv1) * h1p_ * w1p_;
  const std::size_t a2 = static_cast<std::size_t>(m_.conv2) * h2_ * w2_, p2 = static_cast<std::size_t>(l_.flat);
  auto alloc = [&](DevBuf& b, std::size_t bytes) {
    if (std::string e = b.alloc(std::max<std::size_t>(bytes, 16)); !e.empty()) throw std::runtime_error(e);
  };
  alloc(params_, l_.total * 4);
  alloc(grad_, l_.total * 4);
  alloc(m_buf_, l_.total * 4);
  alloc(v_buf_, l_.total * 4);
  if (act_ == Elem::bf16) {
    alloc(grad_act_, l_.total * 2);
    alloc(copy_, l_.total * 2);
  }
  alloc(state_, sizeof(StepState));
  alloc(x_, B * image * es);
  alloc(y_, B * sizeof(int));
  alloc(a1_, B * a1 * es);
  alloc(da1_, B * a1 * es);
  alloc(p1_, B * p1 * es);
  alloc(p1raw_, B * p1 * es);
  alloc(dp1_, B * p1 * es);
  alloc(a2_, B * a2 * es);
  alloc(da2_, B * a2 * es);
  alloc(p2_, B * p2 * es);
  alloc(p2raw_, B * p2 * es);
  alloc(dp2_, B * p2 * es);
  alloc(h3_, B * static_cast<std::size_t>(m_.dense) * es);
  alloc(dh3_, B * static_cast<std::size_t>(m_.dense) * es);
  alloc(logits_, B * static_cast<std::size_t>(m_.classes) * 4);
  alloc(dlogits_, B * static_cast<std::size_t>(m_.classes) * es);
  const long long Bn = o_.max_batch;
  partial_per_layer_[0] = static_cast<long long>(m_.conv1) * bias_splits(Bn, h1p_ * w1p_);
  partial_per_layer_[1] = static_cast<long long>(m_.conv2) * bias_splits(Bn, h2p_ * w2p_);
  partial_per_layer_[2] = static_cast<long long>(m_.dense) * bias_splits(Bn, 1);
  partial_per_layer_[3] = static_cast<long long>(m_.classes) * bias_splits(Bn, 1);
  alloc(partial_, static_cast<std::size_t>(partial_per_layer_[0] + partial_per_layer_[1] + partial_per_layer_[2] +
                                           partial_per_layer_[3]) *
                      4);
  if (blas_.cublasSetWorkspace_v2) {
    alloc(blas_ws_, 32u << 20);  // cuBLAS' own workspace, so a graph capture never needs it to allocate
    check_blas(blas_.cublasSetWorkspace_v2(blas_h_, blas_ws_.get(), blas_ws_.bytes()), "cublasSetWorkspace");
  }
  check(cu().cuMemsetD8Async(dptr(grad_.get()), 0, grad_.bytes(), stream_), "cuMemsetD8Async");
  set_params(train::init_params(m_, 1));
}

TrainEngine::~TrainEngine() {
  nets_.clear();
  if (w1d_) dnn_.cudnnDestroyFilterDescriptor(w1d_);
  if (w2d_) dnn_.cudnnDestroyFilterDescriptor(w2d_);
  if (pool_) dnn_.cudnnDestroyPoolingDescriptor(pool_);
  if (dnn_h_) dnn_.cudnnDestroy(dnn_h_);
  if (blas_h_) blas_.cublasDestroy_v2(blas_h_);
}

void TrainEngine::set_params(const std::vector<float>& p) {
  if (p.size() != l_.total) throw std::runtime_error("set_params: the vector does not fit the model");
  check(cu().cuMemcpyHtoDAsync_v2(dptr(params_.get()), p.data(), p.size() * 4, stream_), "cuMemcpyAsync");
  if (act_ == Elem::bf16)
    check(to_bf16(params_.as<float>(), copy_.get(), static_cast<long long>(l_.total), stream_), "to_bf16");
  check(cu().cuMemsetD8Async(dptr(m_buf_.get()), 0, m_buf_.bytes(), stream_), "cuMemsetD8Async");
  check(cu().cuMemsetD8Async(dptr(v_buf_.get()), 0, v_buf_.bytes(), stream_), "cuMemsetD8Async");
  StepState s{};
  s.lr_t = o_.lr * std::sqrt(1 - o_.beta2) / (1 - o_.beta1);
  check(cu().cuMemcpyHtoDAsync_v2(dptr(state_.get()), &s, sizeof s, stream_), "cuMemcpyAsync");
  check(cu().cuStreamSynchronize(stream_), "cuStreamSynchronize");
}

std::vector<float> TrainEngine::params() {
  std::vector<float> p(l_.total);
  check(cu().cuMemcpyDtoHAsync_v2(p.data(), dptr(params_.get()), p.size() * 4, stream_), "cuMemcpyAsync");
  check(cu().cuStreamSynchronize(stream_), "cuStreamSynchronize");
  return p;
}

std::vector<float> TrainEngine::grad() {
  std::vector<float> g(l_.total);
  if (act_ == Elem::bf16) {
    std::vector<std::uint16_t> raw(l_.total);
    check(cu().cuMemcpyDtoHAsync_v2(raw.data(), dptr(grad_act_.get()), raw.size() * 2, stream_),
          "cuMemcpyAsync");
    check(cu().cuStreamSynchronize(stream_), "cuStreamSynchronize");
    for (std::size_t i = 0; i < raw.size(); ++i) {
      const std::uint32_t bits = static_cast<std::uint32_t>(raw[i]) << 16;
      std::memcpy(&g[i], &bits, 4);
    }
    return g;
  }
  check(cu().cuMemcpyDtoHAsync_v2(g.data(), dptr(grad_.get()), g.size() * 4, stream_), "cuMemcpyAsync");
  check(cu().cuStreamSynchronize(stream_), "cuStreamSynchronize");
  return g;
}

TrainEngine::Net& TrainEngine::net(int n) {
  if (auto it = nets_.find(n); it != nets_.end()) return *it->second;
  const auto started = std::chrono::steady_clock::now();
  auto net = std::make_unique<Net>(dnn_);
  Net& t = *net;
  t.n = n;
  const int dt = act_ == Elem::bf16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_FLOAT;
  auto tensor = [&](cudnnTensorDescriptor_t* d, int c, int h, int w) {
    check_dnn(dnn_.cudnnCreateTensorDescriptor(d), "cudnnCreateTensorDescriptor");
    check_dnn(dnn_.cudnnSetTensor4dDescriptor(*d, CUDNN_TENSOR_NCHW, dt, n, c, h, w), "cudnnSetTensor4dDescriptor");
  };
  tensor(&t.x, m_.c, m_.h, m_.w);
  tensor(&t.a1, m_.conv1, h1_, w1_);
  tensor(&t.p1, m_.conv1, h1p_, w1p_);
  tensor(&t.a2, m_.conv2, h2_, w2_);
  tensor(&t.p2, m_.conv2, h2p_, w2p_);
  const int math = o_.precision == Precision::fp32   ? CUDNN_FMA_MATH
                   : o_.precision == Precision::tf32 ? CUDNN_DEFAULT_MATH
                                                     : CUDNN_TENSOR_OP_MATH;
  for (auto* c : {&t.c1f, &t.c1bf, &t.c2f, &t.c2bd, &t.c2bf}) {
    check_dnn(dnn_.cudnnCreateConvolutionDescriptor(c), "cudnnCreateConvolutionDescriptor");
    check_dnn(dnn_.cudnnSetConvolution2dDescriptor(*c, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
              "cudnnSetConvolution2dDescriptor");
    check_dnn(dnn_.cudnnSetConvolutionMathType(*c, math), "cudnnSetConvolutionMathType");
  }
  // The full batch is timed (cudnnFind*, as frameworks' benchmark mode); other sizes take the
  // heuristics' first choice. Either way the first usable algorithm whose workspace fits.
  const bool find = o_.find_algorithms && n == o_.max_batch;
  DevBuf probe_ws;
  if (find)
    if (std::string e = probe_ws.alloc(o_.max_workspace); !e.empty()) throw std::runtime_error(e);
  cudnnAlgoPerf perf[16];
  auto choose = [&](int count, const char* what, cudnnConvolutionDescriptor_t c) {
    for (int i = 0; i < count; ++i)
      if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].memory <= o_.max_workspace) {
        check_dnn(dnn_.cudnnSetConvolutionMathType(c, perf[i].mathType), "cudnnSetConvolutionMathType");
        return Algo{perf[i].algo, perf[i].memory, perf[i].mathType};
      }
    throw std::runtime_error(fmt::format("cuDNN offers no usable algorithm for {} (batch {})", what, n));
  };
  const void* w1 = act_ == Elem::bf16 ? static_cast<const char*>(copy_.get()) + l_.w1 * 2
                                      : static_cast<const void*>(params_.as<float>() + l_.w1);
  const void* w2 = act_ == Elem::bf16 ? static_cast<const char*>(copy_.get()) + l_.w2 * 2
                                      : static_cast<const void*>(params_.as<float>() + l_.w2);
  void* g = act_ == Elem::bf16 ? grad_act_.get() : grad_.get();
  void* gw1 = static_cast<char*>(g) + l_.w1 * elem_size(act_);
  void* gw2 = static_cast<char*>(g) + l_.w2 * elem_size(act_);
  int got = 0;
  if (find) {
    check_dnn(dnn_.cudnnFindConvolutionForwardAlgorithmEx(dnn_h_, t.x, x_.get(), w1d_, w1, t.c1f, t.a1, a1_.get(), 16,
                                                          &got, perf, probe_ws.get(), probe_ws.bytes()),
              "cudnnFindConvolutionForwardAlgorithmEx (conv1)");
    t.fwd1 = choose(got, "conv1 forward", t.c1f);
    check_dnn(dnn_.cudnnFindConvolutionBackwardFilterAlgorithmEx(dnn_h_, t.x, x_.get(), t.a1, da1_.get(), t.c1bf, w1d_,
                                                                 gw1, 16, &got, perf, probe_ws.get(), probe_ws.bytes()),
              "cudnnFindConvolutionBackwardFilterAlgorithmEx (conv1)");
    t.bf1 = choose(got, "conv1 backward filter", t.c1bf);
    check_dnn(dnn_.cudnnFindConvolutionForwardAlgorithmEx(dnn_h_, t.p1, p1_.get(), w2d_, w2, t.c2f, t.a2, a2_.get(), 16,
                                                          &got, perf, probe_ws.get(), probe_ws.bytes()),
              "cudnnFindConvolutionForwardAlgorithmEx (conv2)");
    t.fwd2 = choose(got, "conv2 forward", t.c2f);
    check_dnn(
        dnn_.cudnnFindConvolutionBackwardDataAlgorithmEx(dnn_h_, w2d_, w2, t.a2, da2_.get(), t.c2bd, t.p1, dp1_.get(),
                                                         16, &got, perf, probe_ws.get(), probe_ws.bytes()),
        "cudnnFindConvolutionBackwardDataAlgorithmEx (conv2)");
    t.bd2 = choose(got, "conv2 backward data", t.c2bd);
    check_dnn(
        dnn_.cudnnFindConvolutionBackwardFilterAlgorithmEx(dnn_h_, t.p1, p1_.get(), t.a2, da2_.get(), t.c2bf, w2d_, gw2,
                                                           16, &got, perf, probe_ws.get(), probe_ws.bytes()),
        "cudnnFindConvolutionBackwardFilterAlgorithmEx (conv2)");
    t.bf2 = choose(got, "conv2 backward filter", t.c2bf);
  }
  // Other batch sizes (the last, partial batch; the held-out split's) take the full batch's algorithms where cuDNN
  // supports them at that size (its workspace query says so), else the heuristics' first choice: no fresh search,
  // which costs seconds per size in bf16.
  const Net* full = nullptr;
  if (!find && n != o_.max_batch)
    if (auto it = nets_.find(o_.max_batch); it != nets_.end()) full = it->second.get();
  int reused = 0;
  auto reuse = [&](const Algo& from, cudnnConvolutionDescriptor_t c, const auto& workspace_of, Algo* to) {
    if (!full || from.algo < 0 || dnn_.cudnnSetConvolutionMathType(c, from.math) != CUDNN_STATUS_SUCCESS) return false;
    std::size_t ws = 0;
    if (workspace_of(from.algo, &ws) != CUDNN_STATUS_SUCCESS || ws > o_.max_workspace) return false;
    *to = Algo{from.algo, ws, from.math};
    ++reused;
    return true;
  };
  if (!find) {
    if (!reuse(full ? full->fwd1 : Algo{}, t.c1f,
               [&](int a, std::size_t* ws) {
                 return dnn_.cudnnGetConvolutionForwardWorkspaceSize(dnn_h_, t.x, w1d_, t.c1f, t.a1, a, ws);
               },
               &t.fwd1)) {
      check_dnn(dnn_.cudnnGetConvolutionForwardAlgorithm_v7(dnn_h_, t.x, w1d_, t.c1f, t.a1, 16, &got, perf),
                "cudnnGetConvolutionForwardAlgorithm_v7 (conv1)");
      t.fwd1 = choose(got, "conv1 forward", t.c1f);
    }
    if (!reuse(full ? full->bf1 : Algo{}, t.c1bf,
               [&](int a, std::size_t* ws) {
                 return dnn_.cudnnGetConvolutionBackwardFilterWorkspaceSize(dnn_h_, t.x, t.a1, t.c1bf, w1d_, a, ws);
               },
               &t.bf1)) {
      check_dnn(dnn_.cudnnGetConvolutionBackwardFilterAlgorithm_v7(dnn_h_, t.x, t.a1, t.c1bf, w1d_, 16, &got, perf),
                "cudnnGetConvolutionBackwardFilterAlgorithm_v7 (conv1)");
      t.bf1 = choose(got, "conv1 backward filter", t.c1bf);
    }
    if (!reuse(full ? full->fwd2 : Algo{}, t.c2f,
               [&](int a, std::size_t* ws) {
                 return dnn_.cudnnGetConvolutionForwardWorkspaceSize(dnn_h_, t.p1, w2d_, t.c2f, t.a2, a, ws);
               },
               &t.fwd2)) {
      check_dnn(dnn_.cudnnGetConvolutionForwardAlgorithm_v7(dnn_h_, t.p1, w2d_, t.c2f, t.a2, 16, &got, perf),
                "cudnnGetConvolutionForwardAlgorithm_v7 (conv2)");
      t.fwd2 = choose(got, "conv2 forward", t.c2f);
    }
    if (!reuse(full ? full->bd2 : Algo{}, t.c2bd,
               [&](int a, std::size_t* ws) {
                 return dnn_.cudnnGetConvolutionBackwardDataWorkspaceSize(dnn_h_, w2d_, t.a2, t.c2bd, t.p1, a, ws);
               },
               &t.bd2)) {
      check_dnn(dnn_.cudnnGetConvolutionBackwardDataAlgorithm_v7(dnn_h_, w2d_, t.a2, t.c2bd, t.p1, 16, &got, perf),
                "cudnnGetConvolutionBackwardDataAlgorithm_v7 (conv2)");
      t.bd2 = choose(got, "conv2 backward data", t.c2bd);
    }
    if (!reuse(full ? full->bf2 : Algo{}, t.c2bf,
               [&](int a, std::size_t* ws) {
                 return dnn_.cudnnGetConvolutionBackwardFilterWorkspaceSize(dnn_h_, t.p1, t.a2, t.c2bf, w2d_, a, ws);
               },
               &t.bf2)) {
      check_dnn(dnn_.cudnnGetConvolutionBackwardFilterAlgorithm_v7(dnn_h_, t.p1, t.a2, t.c2bf, w2d_, 16, &got, perf),
                "cudnnGetConvolutionBackwardFilterAlgorithm_v7 (conv2)");
      t.bf2 = choose(got, "conv2 backward filter", t.c2bf);
    }
  }
  const std::size_t need = std::max({t.fwd1.ws, t.bf1.ws, t.fwd2.ws, t.bd2.ws, t.bf2.ws, std::size_t{16}});
  if (!workspace_ || need > workspace_->bytes()) {
    // Graphs captured earlier keep using the old workspace: it stays allocated (retired) until the end.
    if (workspace_) retired_.push_back(std::move(workspace_));
    workspace_ = std::make_unique<DevBuf>();
    if (std::string e = workspace_->alloc(need); !e.empty()) throw std::runtime_error(e);
  }
  algo_notes_.push_back(fmt::format(
      "batch {}: conv1 forward {} ({}), backward filter {} ({}); conv2 forward {} ({}), backward data {} ({}), "
      "backward filter {} ({}){}",
      n, conv_fwd_algo_name(t.fwd1.algo), math_name(t.fwd1.math), conv_bwd_filter_algo_name(t.bf1.algo),
      math_name(t.bf1.math), conv_fwd_algo_name(t.fwd2.algo), math_name(t.fwd2.math),
      conv_bwd_data_algo_name(t.bd2.algo), math_name(t.bd2.math), conv_bwd_filter_algo_name(t.bf2.algo),
      math_name(t.bf2.math),
      fmt::format("{} ({:.2f} s)",
                  find            ? std::string(", timed by cudnnFind")
                  : reused == 5   ? fmt::format(", reused from batch {}", o_.max_batch)
                  : reused > 0    ? fmt::format(", {} of 5 reused from batch {}, the rest cuDNN's heuristics", reused, o_.max_batch)
                                  : std::string(", cuDNN's heuristics"),
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count())));
  return *nets_.emplace(n, std::move(net)).first->second;
}

void TrainEngine::gemm(int opa, int opb, int m, int n, int k, const void* a, int lda, const void* b, int ldb, void* c,
                       int ldc, bool c_fp32) {
  const float one = 1.f, zero = 0.f;
  const int ab = act_ == Elem::bf16 ? CUDA_R_16BF : CUDA_R_32F;
  const int ct = c_fp32 ? CUDA_R_32F : ab;
  const int compute = o_.precision == Precision::tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  check_blas(blas_.cublasGemmEx(blas_h_, opa, opb, m, n, k, &one, a, ab, lda, b, ab, ldb, &zero, c, ct, ldc, compute,
                                CUBLAS_GEMM_DEFAULT),
             "cublasGemmEx");
}

void TrainEngine::run_step(Net& t, const BatchSource& src, int n, bool update, bool forward_only) {
  const float one = 1.f, zero = 0.f;
  const std::size_t es = elem_size(act_);
  auto* st = state_.as<StepState>();
  const float* P = params_.as<float>();
  auto wptr = [&](std::size_t off) -> const void* {
    return act_ == Elem::bf16 ? static_cast<const void*>(static_cast<const char*>(copy_.get()) + off * 2)
                              : static_cast<const void*>(P + off);
  };
  void* G = act_ == Elem::bf16 ? grad_act_.get() : grad_.get();
  auto gptr = [&](std::size_t off) { return static_cast<void*>(static_cast<char*>(G) + off * es); };
  const long long image = static_cast<long long>(m_.c) * m_.h * m_.w;
  // Sizes for the profile: elements of each activation, multiply-adds of each product.
  const double N = n, E = static_cast<double>(es);
  const double a1 = N * m_.conv1 * h1_ * w1_, p1 = N * m_.conv1 * h1p_ * w1p_, a2 = N * m_.conv2 * h2_ * w2_,
               p2 = N * l_.flat, k2 = static_cast<double>(m_.kernel) * m_.kernel;
  const double conv1 = 2 * a1 * m_.c * k2, conv2 = 2 * a2 * m_.conv1 * k2, dense3 = 2 * N * l_.flat * m_.dense,
               dense4 = 2 * N * m_.dense * m_.classes;
  auto mark = [&](const char* op, double flop, double bytes) {
    if (!marks_) return;
    marks_->push_back({op, flop, bytes});
    record_event();
  };

  check(gather_batch(src.images, src.labels, src.order, st, n, image, x_.get(), act_, y_.as<int>(), stream_),
        "gather_batch");
  mark("gather the batch", 0, N * image * (4 + E));
  // Forward. ReLU and the bias commute with max pooling (max(relu(z + b)) = relu(max(z) + b)), so
  // both run on the pooled tensor, a quarter of the convolution's output.
  check_dnn(dnn_.cudnnConvolutionForward(dnn_h_, &one, t.x, x_.get(), w1d_, wptr(l_.w1), t.c1f, t.fwd1.algo,
                                         workspace_->get(), t.fwd1.ws, &zero, t.a1, a1_.get()),
            "cudnnConvolutionForward (conv1)");
  mark("conv1 forward (cuDNN)", conv1, (N * image + a1) * E);
  check_dnn(dnn_.cudnnPoolingForward(dnn_h_, pool_, &one, t.a1, a1_.get(), &zero, t.p1, p1raw_.get()),
            "cudnnPoolingForward (pool1)");
  mark("pool1 forward (cuDNN)", 0, (a1 + p1) * E);
  check(bias_act(p1raw_.get(), p1_.get(), act_, P + l_.b1, n, m_.conv1, h1p_ * w1p_, true, stream_), "bias_act");
  mark("bias1 + ReLU", 0, 2 * p1 * E);
  check_dnn(dnn_.cudnnConvolutionForward(dnn_h_, &one, t.p1, p1_.get(), w2d_, wptr(l_.w2), t.c2f, t.fwd2.algo,
                                         workspace_->get(), t.fwd2.ws, &zero, t.a2, a2_.get()),
            "cudnnConvolutionForward (conv2)");
  mark("conv2 forward (cuDNN)", conv2, (p1 + a2) * E);
  check_dnn(dnn_.cudnnPoolingForward(dnn_h_, pool_, &one, t.a2, a2_.get(), &zero, t.p2, p2raw_.get()),
            "cudnnPoolingForward (pool2)");
  mark("pool2 forward (cuDNN)", 0, (a2 + p2) * E);
  check(bias_act(p2raw_.get(), p2_.get(), act_, P + l_.b2, n, m_.conv2, h2p_ * w2p_, true, stream_), "bias_act");
  mark("bias2 + ReLU", 0, 2 * p2 * E);
  gemm(CUBLAS_OP_T, CUBLAS_OP_N, m_.dense, n, l_.flat, wptr(l_.w3), l_.flat, p2_.get(), l_.flat, h3_.get(), m_.dense,
       false);
  mark("dense3 forward (cuBLAS)", dense3, (p2 + static_cast<double>(l_.flat) * m_.dense) * E);
  check(bias_act(h3_.get(), h3_.get(), act_, P + l_.b3, n, m_.dense, 1, true, stream_), "bias_act");
  mark("bias3 + ReLU", 0, 2 * N * m_.dense * E);
  gemm(CUBLAS_OP_T, CUBLAS_OP_N, m_.classes, n, m_.dense, wptr(l_.w4), m_.dense, h3_.get(), m_.dense, logits_.get(),
       m_.classes, true);
  mark("dense4 forward (cuBLAS)", dense4, N * (m_.dense * E + m_.classes * 4.0));
  check(softmax_xent(logits_.as<float>(), P + l_.b4, y_.as<int>(), n, m_.classes,
                     forward_only ? nullptr : dlogits_.get(), act_, st, stream_),
        "softmax_xent");
  mark("softmax cross-entropy", 0, N * m_.classes * (4 + E));
  if (forward_only) return;

  // Backward: dense 4, dense 3, pool 2, conv 2, pool 1, conv 1. ReLU's backward masks the pooled
  // gradient (an element of a window gets gradient only at its maximum, and only where that maximum
  // passed the ReLU), so it too runs on the small tensor, and the bias gradient is its sum.
  float* partial = partial_.as<float>();
  float* part[4] = {partial, partial + partial_per_layer_[0], partial + partial_per_layer_[0] + partial_per_layer_[1],
                    partial + partial_per_layer_[0] + partial_per_layer_[1] + partial_per_layer_[2]};
  const int s1 = bias_splits(n, h1p_ * w1p_), s2 = bias_splits(n, h2p_ * w2p_), s3 = bias_splits(n, 1),
            s4 = bias_splits(n, 1);
  gemm(CUBLAS_OP_N, CUBLAS_OP_T, m_.dense, m_.classes, n, h3_.get(), m_.dense, dlogits_.get(), m_.classes, gptr(l_.w4),
       m_.dense, false);
  mark("dense4 weight gradient (cuBLAS)", dense4, N * (m_.dense + m_.classes) * E);
  check(relu_backward_bias(nullptr, dlogits_.get(), act_, n, m_.classes, 1, false, part[3], s4, stream_),
        "relu_backward_bias");
  mark("bias4 gradient", 0, N * m_.classes * E);
  gemm(CUBLAS_OP_N, CUBLAS_OP_N, m_.dense, n, m_.classes, wptr(l_.w4), m_.dense, dlogits_.get(), m_.classes, dh3_.get(),
       m_.dense, false);
  mark("dense4 input gradient (cuBLAS)", dense4, N * (m_.dense + m_.classes) * E);
  check(relu_backward_bias(h3_.get(), dh3_.get(), act_, n, m_.dense, 1, true, part[2], s3, stream_),
        "relu_backward_bias");
  mark("ReLU3 backward + bias3 gradient", 0, 3 * N * m_.dense * E);
  gemm(CUBLAS_OP_N, CUBLAS_OP_T, l_.flat, m_.dense, n, p2_.get(), l_.flat, dh3_.get(), m_.dense, gptr(l_.w3), l_.flat,
       false);
  mark("dense3 weight gradient (cuBLAS)", dense3, (p2 + static_cast<double>(l_.flat) * m_.dense) * E);
  gemm(CUBLAS_OP_N, CUBLAS_OP_N, l_.flat, n, m_.dense, wptr(l_.w3), l_.flat, dh3_.get(), m_.dense, dp2_.get(), l_.flat,
       false);
  mark("dense3 input gradient (cuBLAS)", dense3, (p2 + static_cast<double>(l_.flat) * m_.dense) * E);
  check(relu_backward_bias(p2_.get(), dp2_.get(), act_, n, m_.conv2, h2p_ * w2p_, true, part[1], s2, stream_),
        "relu_backward_bias");
  mark("ReLU2 backward + bias2 gradient", 0, 3 * p2 * E);
  check_dnn(dnn_.cudnnPoolingBackward(dnn_h_, pool_, &one, t.p2, p2raw_.get(), t.p2, dp2_.get(), t.a2, a2_.get(), &zero,
                                      t.a2, da2_.get()),
            "cudnnPoolingBackward (pool2)");
  mark("pool2 backward (cuDNN)", 0, (2 * a2 + 2 * p2) * E);
  check_dnn(dnn_.cudnnConvolutionBackwardFilter(dnn_h_, &one, t.p1, p1_.get(), t.a2, da2_.get(), t.c2bf, t.bf2.algo,
                                                workspace_->get(), t.bf2.ws, &zero, w2d_, gptr(l_.w2)),
            "cudnnConvolutionBackwardFilter (conv2)");
  mark("conv2 weight gradient (cuDNN)", conv2, (p1 + a2) * E);
  check_dnn(dnn_.cudnnConvolutionBackwardData(dnn_h_, &one, w2d_, wptr(l_.w2), t.a2, da2_.get(), t.c2bd, t.bd2.algo,
                                              workspace_->get(), t.bd2.ws, &zero, t.p1, dp1_.get()),
            "cudnnConvolutionBackwardData (conv2)");
  mark("conv2 input gradient (cuDNN)", conv2, (p1 + a2) * E);
  check(relu_backward_bias(p1_.get(), dp1_.get(), act_, n, m_.conv1, h1p_ * w1p_, true, part[0], s1, stream_),
        "relu_backward_bias");
  mark("ReLU1 backward + bias1 gradient", 0, 3 * p1 * E);
  check_dnn(dnn_.cudnnPoolingBackward(dnn_h_, pool_, &one, t.p1, p1raw_.get(), t.p1, dp1_.get(), t.a1, a1_.get(), &zero,
                                      t.a1, da1_.get()),
            "cudnnPoolingBackward (pool1)");
  mark("pool1 backward (cuDNN)", 0, (2 * a1 + 2 * p1) * E);
  check_dnn(dnn_.cudnnConvolutionBackwardFilter(dnn_h_, &one, t.x, x_.get(), t.a1, da1_.get(), t.c1bf, t.bf1.algo,
                                                workspace_->get(), t.bf1.ws, &zero, w1d_, gptr(l_.w1)),
            "cudnnConvolutionBackwardFilter (conv1)");
  mark("conv1 weight gradient (cuDNN)", conv1, (N * image + a1) * E);
  const BiasSum sums[4] = {
      {0, static_cast<long long>(l_.b1), m_.conv1, s1},
      {part[1] - partial, static_cast<long long>(l_.b2), m_.conv2, s2},
      {part[2] - partial, static_cast<long long>(l_.b3), m_.dense, s3},
      {part[3] - partial, static_cast<long long>(l_.b4), m_.classes, s4},
  };
  check(bias_finalize(partial, sums, 4, G, act_, stream_), "bias_finalize");
  mark("bias sums", 0, 0);
  if (!update) return;
  check(adam_update(params_.as<float>(), G, act_, m_buf_.as<float>(), v_buf_.as<float>(),
                    static_cast<long long>(l_.total), st, static_cast<float>(o_.beta1), static_cast<float>(o_.beta2),
                    static_cast<float>(o_.eps), act_ == Elem::bf16 ? copy_.get() : nullptr, stream_),
        "adam_update");
  mark("Adam", 0, static_cast<double>(l_.total) * (16 + E + (act_ == Elem::bf16 ? 2 : 0)));
  check(advance_step(st, n, o_.lr, o_.beta1, o_.beta2, stream_), "advance_step");
  mark("advance the step", 0, 0);
}

void TrainEngine::step(const BatchSource& src, int n, bool update) {
  if (n < 1 || n > o_.max_batch) throw std::runtime_error(fmt::format("a batch of {} (1 to {})", n, o_.max_batch));
  Net& t = net(n);
  if (!o_.graphs) return run_step(t, src, n, update, false);
  Net::Graph& g = t.graphs[{src, update}];
  if (g.exec) {
    check(cu().cuGraphLaunch(g.exec, stream_), "cuGraphLaunch");
    return;
  }
  // The first time eagerly (libraries load their kernels lazily, which a capture cannot do), the
  // second time captured, and replayed from then on. A capture that fails is said, and eager stays.
  if (g.failed || g.seen++ == 0) return run_step(t, src, n, update, false);
  if (!cu().cuStreamBeginCapture_v2 || !cu().cuStreamEndCapture || !cu().cuGraphInstantiateWithFlags ||
      !cu().cuGraphLaunch || !cu().cuGraphExecDestroy || !cu().cuGraphDestroy) {
    g.failed = true;
    if (graph_problem_.empty())
      graph_problem_ = "this driver lacks the graph entry points (cuGraphInstantiateWithFlags arrived with CUDA 11.4)";
    return run_step(t, src, n, update, false);
  }
  CUgraph graph = nullptr;
  check(cu().cuStreamBeginCapture_v2(stream_, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), "cuStreamBeginCapture");
  std::string problem;
  try {
    run_step(t, src, n, update, false);
  } catch (const std::exception& e) {
    problem = e.what();
  }
  const CUresult end = cu().cuStreamEndCapture(stream_, &graph);
  if (problem.empty() && end != CUDA_SUCCESS) problem = cu_error("cuStreamEndCapture", end);
  CUresult rc = CUDA_SUCCESS;
  if (problem.empty()) {
    rc = cu().cuGraphInstantiateWithFlags(&g.exec, graph, 0);
    if (rc != CUDA_SUCCESS) problem = cu_error("cuGraphInstantiateWithFlags", rc);
  }
  if (graph) cu().cuGraphDestroy(graph);
  if (!problem.empty()) {
    g.failed = true;
    g.exec = nullptr;
    if (graph_problem_.empty()) graph_problem_ = problem;
    return run_step(t, src, n, update, false);
  }
  ++graphs_captured_;
  check(cu().cuGraphLaunch(g.exec, stream_), "cuGraphLaunch");
}

void TrainEngine::evaluate(const BatchSource& src, int n) {
  if (n < 1 || n > o_.max_batch) throw std::runtime_error(fmt::format("a batch of {} (1 to {})", n, o_.max_batch));
  run_step(net(n), src, n, false, true);
}

void TrainEngine::reset_epoch() {
  auto* st = state_.as<StepState>();
  check(cu().cuMemsetD8Async(dptr(&st->cursor), 0, sizeof st->cursor, stream_), "cuMemsetD8Async");
  check(cu().cuMemsetD8Async(dptr(&st->loss_sum), 0, sizeof st->loss_sum, stream_), "cuMemsetD8Async");
  check(cu().cuMemsetD8Async(dptr(&st->hits), 0, sizeof st->hits, stream_), "cuMemsetD8Async");
}

EpochStats TrainEngine::read_stats() {
  StepState s{};
  check(cu().cuMemcpyDtoHAsync_v2(&s, dptr(state_.get()), sizeof s, stream_), "cuMemcpyAsync");
  check(cu().cuStreamSynchronize(stream_), "cuStreamSynchronize");
  return {s.loss_sum, static_cast<long long>(s.hits)};
}

EpochStats TrainEngine::step_host(const float* images, const int* labels, int n, bool update) {
  if (n < 1 || n > o_.max_batch) throw std::runtime_error(fmt::format("a batch of {} (1 to {})", n, o_.max_batch));
  const std::size_t image = static_cast<std::size_t>(m_.c) * m_.h * m_.w;
  if (!stage_images_.get()) {
    if (std::string e = stage_images_.alloc(static_cast<std::size_t>(o_.max_batch) * image * 4); !e.empty())
      throw std::runtime_error(e);
    if (std::string e = stage_labels_.alloc(static_cast<std::size_t>(o_.max_batch) * sizeof(int)); !e.empty())
      throw std::runtime_error(e);
  }
  check(cu().cuMemcpyHtoDAsync_v2(dptr(stage_images_.get()), images, static_cast<std::size_t>(n) * image * 4, stream_),
        "cuMemcpyAsync");
  check(cu().cuMemcpyHtoDAsync_v2(dptr(stage_labels_.get()), labels, static_cast<std::size_t>(n) * sizeof(int), stream_),
        "cuMemcpyAsync");
  reset_epoch();
  step({stage_images_.as<float>(), stage_labels_.as<int>(), nullptr}, n, update);
  return read_stats();
}

void TrainEngine::record_event() {
  CUevent ev = nullptr;
  check(cu().cuEventCreate(&ev, CU_EVENT_DEFAULT), "cuEventCreate");
  events_->push_back(ev);
  check(cu().cuEventRecord(ev, stream_), "cuEventRecord");
}

std::vector<OpTime> TrainEngine::profile(const BatchSource& src, int n, int repeats) {
  if (n < 1 || n > o_.max_batch) throw std::runtime_error(fmt::format("a batch of {} (1 to {})", n, o_.max_batch));
  Net& t = net(n);
  std::vector<std::vector<double>> samples;
  std::vector<Mark> marks;
  std::vector<CUevent> events;
  auto cleanup = [&] {
    marks_ = nullptr;
    events_ = nullptr;
    for (auto e : events) cu().cuEventDestroy_v2(e);
    events.clear();
  };
  try {
    for (int r = 0; r < std::max(1, repeats); ++r) {
      marks.clear();
      reset_epoch();  // each repeat reads the first batch of the order
      events_ = &events;
      record_event();  // before the first operation; run_step records one after each
      marks_ = &marks;
      run_step(t, src, n, true, false);
      marks_ = nullptr;
      check(cu().cuStreamSynchronize(stream_), "cuStreamSynchronize");
      std::vector<double> times;
      for (std::size_t i = 1; i < events.size(); ++i) {
        float ms = 0;
        check(cu().cuEventElapsedTime(&ms, events[i - 1], events[i]), "cuEventElapsedTime");
        times.push_back(ms / 1e3);
      }
      samples.push_back(std::move(times));
      cleanup();
    }
  } catch (...) {
    cleanup();
    throw;
  }
  std::vector<OpTime> out;
  for (std::size_t i = 0; i < marks.size(); ++i) {
    std::vector<double> v;
    for (const auto& s : samples)
      if (i < s.size()) v.push_back(s[i]);
    std::sort(v.begin(), v.end());
    out.push_back({marks[i].op, v.empty() ? 0 : v[v.size() / 2], marks[i].flop, marks[i].bytes});
  }
  return out;
}

int TrainEngine::blas_version() const {
  int v = 0;
  blas_.cublasGetVersion_v2(blas_h_, &v);
  return v;
}

std::vector<std::string> TrainEngine::details() const {
  std::vector<std::string> out = algo_notes_;
  if (!o_.graphs)
    out.push_back("CUDA graphs: off");
  else if (!graph_problem_.empty())
    out.push_back("CUDA graphs: a capture failed, those steps run eagerly: " + graph_problem_);
  else
    out.push_back(fmt::format("CUDA graphs: {} captured, each step replayed from one", graphs_captured_));
  return out;
}

}  // namespace gpuready::gpu
