// The CPU engine with oneDNN primitives. The master parameters and their gradients stay in the reference's flat,
// plain layout (what train::reference_step and the tests compare); everything on the hot path takes the layouts
// oneDNN's fastest implementations ask for (format_tag::any): the activations of both convolutions and poolings in
// the blocked layout the convolution chose (nChw16c with AVX-512), each convolution's weights reordered into its own
// layout once per step (a few thousand values) and its weight gradient reordered back. ReLU is fused into the
// convolutions and the first dense layer as a post-op; its backward pass reads the layer's output
// (eltwise_relu_use_dst_for_bwd), in place. The first dense layer is a plain product (its weights are most of the
// parameters: reordering them twice a step would cost more than the one reorder of its input). Adam runs on all
// threads in float. One set of primitives and buffers per batch size (the last, partial batch gets its own).
#include "engine.h"

#include <oneapi/dnnl/dnnl_version.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <oneapi/dnnl/dnnl.hpp>
#include <stdexcept>
#include <thread>
#include <unordered_map>

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace gpuready::cpu {

using dnnl::algorithm;
using dnnl::memory;
using dnnl::prop_kind;
using tag = memory::format_tag;
using dt = memory::data_type;

struct Engine::Impl {
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{eng};
  std::vector<float> m, v;  // Adam's moments, in the parameters' layout
  std::string implementations;
};

namespace {

memory::desc md(const memory::dims& d, tag t) { return memory::desc(d, dt::f32, t); }

struct Step {
  dnnl::primitive p;
  std::unordered_map<int, memory> args;
};

// `from` as a memory of descriptor `want`: itself when the layouts agree, else a new buffer that a reorder appended
// to `steps` fills.
memory as_layout(const memory& from, const memory::desc& want, const dnnl::engine& eng, std::vector<Step>* steps) {
  if (from.get_desc() == want) return from;
  memory to(want, eng);
  steps->push_back({dnnl::reorder(from, to), {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}}});
  return to;
}

// The reverse: a primitive writes a result of layout `produced` into the returned memory (`target` itself when the
// layouts agree, else a new buffer whose reorder into `target` is appended to `after`).
memory into_layout(const memory& target, const memory::desc& produced, const dnnl::engine& eng,
                   std::vector<Step>* after) {
  if (target.get_desc() == produced) return target;
  memory tmp(produced, eng);
  after->push_back({dnnl::reorder(tmp, target), {{DNNL_ARG_FROM, tmp}, {DNNL_ARG_TO, target}}});
  return tmp;
}

dnnl::primitive_attr relu_fused() {
  dnnl::post_ops po;
  po.append_eltwise(1.0f, algorithm::eltwise_relu, 0.0f, 0.0f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(po);
  return attr;
}

template <class Pd>
std::string impl_of(const Pd& pd) {
  const char* s = pd.impl_info_str();
  return s ? s : "?";
}

}  // namespace

struct Engine::Net {
  std::vector<Step> forward, backward;
  memory x, logits, dlogits;
  std::vector<float> logits_buf, dlogits_buf;
};

Engine::Engine(const train::ModelSpec& m, std::vector<float> params) : m_(m), impl_(std::make_unique<Impl>()) {
  std::string why;
  l_ = train::layout_of(m, &why);
  if (l_.total == 0) throw std::invalid_argument(why);
  if (params.size() != l_.total) throw std::invalid_argument("the parameters do not fit the model");
  params_ = std::move(params);
  grad_.assign(l_.total, 0.0f);
}

Engine::~Engine() = default;

std::string Engine::describe() {
  const dnnl_version_t* v = dnnl_version();
  int threads = static_cast<int>(std::thread::hardware_concurrency());
#if defined(_OPENMP)
  threads = omp_get_max_threads();
#else
  // Built without OpenMP (clang without libomp): oneDNN's own runtime still follows OMP_NUM_THREADS.
  if (const char* env = std::getenv("OMP_NUM_THREADS"); env && std::atoi(env) > 0) threads = std::atoi(env);
#endif
  return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch) + " (" +
         std::to_string(threads) + " threads)";
}

const std::string& Engine::implementations() const { return impl_->implementations; }

Engine::Net& Engine::net(int n, bool training) {
  auto& slot = nets_[{n, training}];
  if (slot) return *slot;
  auto net = std::make_unique<Net>();
  const auto& eng = impl_->eng;
  const int k = m_.kernel, K1 = m_.conv1, K2 = m_.conv2, D = m_.dense, NC = m_.classes;
  const train::Dims xd{n, m_.c, m_.h, m_.w};
  const train::Dims c1d = train::conv_out(xd, K1, k, k), p1d = train::pool_out(c1d);
  const train::Dims c2d = train::conv_out(p1d, K2, k, k), p2d = train::pool_out(c2d);
  const prop_kind fwd = training ? prop_kind::forward_training : prop_kind::forward_inference;
  const memory::dims one{1, 1}, zero{0, 0}, two{2, 2};
  float* P = params_.data();
  float* G = grad_.data();
  auto mem = [&](const memory::desc& d) { return memory(d, eng); };
  auto at = [&](const memory::desc& d, float* p) { return memory(d, eng, p); };
  auto any = [&](const memory::dims& d) { return md(d, tag::any); };

  // plain descriptors: the user's images, the flat parameters and gradients, the dense layers
  const auto x_md = md({n, m_.c, m_.h, m_.w}, tag::nchw);
  const auto w1_md = md({K1, m_.c, k, k}, tag::oihw), b1_md = md({K1}, tag::x);
  const auto w2_md = md({K2, K1, k, k}, tag::oihw), b2_md = md({K2}, tag::x);
  const auto p2_plain_md = md({n, K2, p2d.h, p2d.w}, tag::nchw);
  const auto w3_md = md({D, K2, p2d.h, p2d.w}, tag::oihw), b3_md = md({D}, tag::x);
  const auto d3_md = md({n, D}, tag::nc);
  const auto w4_md = md({NC, D}, tag::oi), b4_md = md({NC}, tag::x);
  const auto o_md = md({n, NC}, tag::nc);

  net->x = mem(x_md);
  net->logits_buf.assign(static_cast<size_t>(n) * NC, 0.0f);
  net->dlogits_buf.assign(static_cast<size_t>(n) * NC, 0.0f);
  net->logits = at(o_md, net->logits_buf.data());
  net->dlogits = at(o_md, net->dlogits_buf.data());
  memory w1 = at(w1_md, P + l_.w1), b1 = at(b1_md, P + l_.b1), w2 = at(w2_md, P + l_.w2), b2 = at(b2_md, P + l_.b2),
         w3 = at(w3_md, P + l_.w3), b3 = at(b3_md, P + l_.b3), w4 = at(w4_md, P + l_.w4), b4 = at(b4_md, P + l_.b4);

  // forward: each convolution picks its layouts; the poolings keep the convolution's
  const auto relu = relu_fused();
  dnnl::convolution_forward::primitive_desc conv1_pd(
      {fwd, algorithm::convolution_direct, any({n, m_.c, m_.h, m_.w}), any({K1, m_.c, k, k}), b1_md,
       any({n, K1, c1d.h, c1d.w}), one, zero, zero},
      relu, eng);
  const auto c1_md = conv1_pd.dst_desc();
  dnnl::pooling_forward::primitive_desc pool1_pd(
      {fwd, algorithm::pooling_max, c1_md, any({n, K1, p1d.h, p1d.w}), two, two, zero, zero}, eng);
  const auto p1_md = pool1_pd.dst_desc();
  dnnl::convolution_forward::primitive_desc conv2_pd(
      {fwd, algorithm::convolution_direct, any({n, K1, p1d.h, p1d.w}), any({K2, K1, k, k}), b2_md,
       any({n, K2, c2d.h, c2d.w}), one, zero, zero},
      relu, eng);
  const auto c2_md = conv2_pd.dst_desc();
  dnnl::pooling_forward::primitive_desc pool2_pd(
      {fwd, algorithm::pooling_max, c2_md, any({n, K2, p2d.h, p2d.w}), two, two, zero, zero}, eng);
  const auto p2_md = pool2_pd.dst_desc();
  dnnl::inner_product_forward::primitive_desc fc3_pd({fwd, p2_plain_md, w3_md, b3_md, d3_md}, relu, eng);
  dnnl::inner_product_forward::primitive_desc fc4_pd({fwd, d3_md, w4_md, b4_md, o_md}, eng);
  if (n > 1 && impl_->implementations.empty())
    impl_->implementations = "convolutions " + impl_of(conv1_pd) + ", " + impl_of(conv2_pd) + "; pooling " +
                             impl_of(pool1_pd) + "; dense " + impl_of(fc3_pd) + "; activations " +
                             std::string(c1_md == md({n, K1, c1d.h, c1d.w}, tag::nchw) ? "plain" : "blocked");

  auto& F = net->forward;
  const memory x1 = as_layout(net->x, conv1_pd.src_desc(), eng, &F);
  const memory w1c = as_layout(w1, conv1_pd.weights_desc(), eng, &F);
  const memory w2c = as_layout(w2, conv2_pd.weights_desc(), eng, &F);
  memory c1 = mem(c1_md), p1 = mem(p1_md), c2 = mem(c2_md), p2 = mem(p2_md), d3 = mem(d3_md);
  memory ws1, ws2;
  if (training) {
    ws1 = mem(pool1_pd.workspace_desc());
    ws2 = mem(pool2_pd.workspace_desc());
  }
  F.push_back({dnnl::convolution_forward(conv1_pd),
               {{DNNL_ARG_SRC, x1}, {DNNL_ARG_WEIGHTS, w1c}, {DNNL_ARG_BIAS, b1}, {DNNL_ARG_DST, c1}}});
  Step pool1{dnnl::pooling_forward(pool1_pd), {{DNNL_ARG_SRC, c1}, {DNNL_ARG_DST, p1}}};
  if (training) pool1.args[DNNL_ARG_WORKSPACE] = ws1;
  F.push_back(pool1);
  const memory p1c = as_layout(p1, conv2_pd.src_desc(), eng, &F);
  F.push_back({dnnl::convolution_forward(conv2_pd),
               {{DNNL_ARG_SRC, p1c}, {DNNL_ARG_WEIGHTS, w2c}, {DNNL_ARG_BIAS, b2}, {DNNL_ARG_DST, c2}}});
  Step pool2{dnnl::pooling_forward(pool2_pd), {{DNNL_ARG_SRC, c2}, {DNNL_ARG_DST, p2}}};
  if (training) pool2.args[DNNL_ARG_WORKSPACE] = ws2;
  F.push_back(pool2);
  const memory p2_plain = as_layout(p2, p2_plain_md, eng, &F);
  F.push_back({dnnl::inner_product_forward(fc3_pd),
               {{DNNL_ARG_SRC, p2_plain}, {DNNL_ARG_WEIGHTS, w3}, {DNNL_ARG_BIAS, b3}, {DNNL_ARG_DST, d3}}});
  F.push_back({dnnl::inner_product_forward(fc4_pd),
               {{DNNL_ARG_SRC, d3}, {DNNL_ARG_WEIGHTS, w4}, {DNNL_ARG_BIAS, b4}, {DNNL_ARG_DST, net->logits}}});
  if (!training) {
    slot = std::move(net);
    return *slot;
  }

  // backward, last layer first; gradients land in the flat gradient vector (reordered there from the
  // convolutions' own weight layouts). ReLU's backward reads the fused layer's output and works in place.
  memory gw1 = at(w1_md, G + l_.w1), gb1 = at(b1_md, G + l_.b1), gw2 = at(w2_md, G + l_.w2), gb2 = at(b2_md, G + l_.b2),
         gw3 = at(w3_md, G + l_.w3), gb3 = at(b3_md, G + l_.b3), gw4 = at(w4_md, G + l_.w4), gb4 = at(b4_md, G + l_.b4);
  auto relu_back = [&](const memory::desc& d) {
    const dnnl::eltwise_forward::primitive_desc hint(
        {prop_kind::forward_training, algorithm::eltwise_relu_use_dst_for_bwd, d, 0.f, 0.f}, eng);
    return dnnl::eltwise_backward::primitive_desc({algorithm::eltwise_relu_use_dst_for_bwd, d, d, 0.f, 0.f}, eng,
                                                  hint);
  };
  dnnl::inner_product_backward_data::primitive_desc fc4_bd({d3_md, w4_md, o_md}, eng, fc4_pd);
  dnnl::inner_product_backward_weights::primitive_desc fc4_bw({d3_md, w4_md, b4_md, o_md}, eng, fc4_pd);
  const auto relu3_b = relu_back(d3_md);
  dnnl::inner_product_backward_data::primitive_desc fc3_bd({p2_plain_md, w3_md, d3_md}, eng, fc3_pd);
  dnnl::inner_product_backward_weights::primitive_desc fc3_bw({p2_plain_md, w3_md, b3_md, d3_md}, eng, fc3_pd);
  dnnl::pooling_backward::primitive_desc pool2_b({algorithm::pooling_max, c2_md, p2_md, two, two, zero, zero}, eng,
                                                 pool2_pd);
  const auto relu2_b = relu_back(c2_md);
  dnnl::convolution_backward_data::primitive_desc conv2_bd(
      {algorithm::convolution_direct, any({n, K1, p1d.h, p1d.w}), any({K2, K1, k, k}), any({n, K2, c2d.h, c2d.w}), one,
       zero, zero},
      eng, conv2_pd);
  dnnl::convolution_backward_weights::primitive_desc conv2_bw(
      {algorithm::convolution_direct, any({n, K1, p1d.h, p1d.w}), any({K2, K1, k, k}), b2_md,
       any({n, K2, c2d.h, c2d.w}), one, zero, zero},
      eng, conv2_pd);
  dnnl::pooling_backward::primitive_desc pool1_b({algorithm::pooling_max, c1_md, p1_md, two, two, zero, zero}, eng,
                                                 pool1_pd);
  const auto relu1_b = relu_back(c1_md);
  dnnl::convolution_backward_weights::primitive_desc conv1_bw(
      {algorithm::convolution_direct, any({n, m_.c, m_.h, m_.w}), any({K1, m_.c, k, k}), b1_md,
       any({n, K1, c1d.h, c1d.w}), one, zero, zero},
      eng, conv1_pd);

  auto& B = net->backward;
  memory dd3 = mem(d3_md), dp2_plain = mem(p2_plain_md), dc2 = mem(c2_md), dc1 = mem(c1_md);
  B.push_back({dnnl::inner_product_backward_data(fc4_bd),
               {{DNNL_ARG_DIFF_DST, net->dlogits}, {DNNL_ARG_WEIGHTS, w4}, {DNNL_ARG_DIFF_SRC, dd3}}});
  B.push_back({dnnl::inner_product_backward_weights(fc4_bw),
               {{DNNL_ARG_SRC, d3}, {DNNL_ARG_DIFF_DST, net->dlogits}, {DNNL_ARG_DIFF_WEIGHTS, gw4},
                {DNNL_ARG_DIFF_BIAS, gb4}}});
  B.push_back(
      {dnnl::eltwise_backward(relu3_b), {{DNNL_ARG_DST, d3}, {DNNL_ARG_DIFF_DST, dd3}, {DNNL_ARG_DIFF_SRC, dd3}}});
  B.push_back({dnnl::inner_product_backward_data(fc3_bd),
               {{DNNL_ARG_DIFF_DST, dd3}, {DNNL_ARG_WEIGHTS, w3}, {DNNL_ARG_DIFF_SRC, dp2_plain}}});
  B.push_back({dnnl::inner_product_backward_weights(fc3_bw),
               {{DNNL_ARG_SRC, p2_plain}, {DNNL_ARG_DIFF_DST, dd3}, {DNNL_ARG_DIFF_WEIGHTS, gw3},
                {DNNL_ARG_DIFF_BIAS, gb3}}});
  const memory dp2 = as_layout(dp2_plain, p2_md, eng, &B);
  B.push_back({dnnl::pooling_backward(pool2_b),
               {{DNNL_ARG_DIFF_DST, dp2}, {DNNL_ARG_DIFF_SRC, dc2}, {DNNL_ARG_WORKSPACE, ws2}}});
  B.push_back(
      {dnnl::eltwise_backward(relu2_b), {{DNNL_ARG_DST, c2}, {DNNL_ARG_DIFF_DST, dc2}, {DNNL_ARG_DIFF_SRC, dc2}}});
  // The convolutions' backward passes: their layouts are the forward's in practice; reorders only where they are
  // not (the inputs before the primitive, the result into its plain buffer after it).
  auto conv_backward_data = [&](const dnnl::convolution_backward_data::primitive_desc& pd, const memory& diff_dst,
                                const memory& weights, const memory& diff_src) {
    std::vector<Step> after;
    const memory dd = as_layout(diff_dst, pd.diff_dst_desc(), eng, &B);
    const memory w = as_layout(weights, pd.weights_desc(), eng, &B);
    const memory ds = into_layout(diff_src, pd.diff_src_desc(), eng, &after);
    B.push_back({dnnl::convolution_backward_data(pd),
                 {{DNNL_ARG_DIFF_DST, dd}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DIFF_SRC, ds}}});
    for (auto& s : after) B.push_back(std::move(s));
  };
  auto conv_backward_weights = [&](const dnnl::convolution_backward_weights::primitive_desc& pd, const memory& src,
                                   const memory& diff_dst, const memory& diff_weights, const memory& diff_bias) {
    std::vector<Step> after;
    const memory dd = as_layout(diff_dst, pd.diff_dst_desc(), eng, &B);
    const memory x = as_layout(src, pd.src_desc(), eng, &B);
    const memory dw = into_layout(diff_weights, pd.diff_weights_desc(), eng, &after);
    B.push_back({dnnl::convolution_backward_weights(pd),
                 {{DNNL_ARG_SRC, x}, {DNNL_ARG_DIFF_DST, dd}, {DNNL_ARG_DIFF_WEIGHTS, dw},
                  {DNNL_ARG_DIFF_BIAS, diff_bias}}});
    for (auto& s : after) B.push_back(std::move(s));
  };
  memory dp1 = mem(p1_md);
  conv_backward_data(conv2_bd, dc2, w2, dp1);
  conv_backward_weights(conv2_bw, p1c, dc2, gw2, gb2);
  B.push_back({dnnl::pooling_backward(pool1_b),
               {{DNNL_ARG_DIFF_DST, dp1}, {DNNL_ARG_DIFF_SRC, dc1}, {DNNL_ARG_WORKSPACE, ws1}}});
  B.push_back(
      {dnnl::eltwise_backward(relu1_b), {{DNNL_ARG_DST, c1}, {DNNL_ARG_DIFF_DST, dc1}, {DNNL_ARG_DIFF_SRC, dc1}}});
  conv_backward_weights(conv1_bw, x1, dc1, gw1, gb1);
  slot = std::move(net);
  return *slot;
}

namespace {

// Softmax cross-entropy over the logits (float), its gradient (mean over the batch) and the hits.
Stats loss_and_grad(const std::vector<float>& logits, const int* labels, int n, int classes, std::vector<float>* dl) {
  Stats s;
  for (int i = 0; i < n; ++i) {
    const float* z = logits.data() + static_cast<size_t>(i) * classes;
    const float top = *std::max_element(z, z + classes);
    double sum = 0;
    for (int c = 0; c < classes; ++c) sum += std::exp(static_cast<double>(z[c] - top));
    const int label = labels[i];
    s.loss += -(static_cast<double>(z[label] - top) - std::log(sum));
    s.correct += static_cast<int>(std::max_element(z, z + classes) - z) == label;
    if (dl)
      for (int c = 0; c < classes; ++c)
        (*dl)[static_cast<size_t>(i) * classes + c] =
            static_cast<float>((std::exp(static_cast<double>(z[c] - top)) / sum - (c == label ? 1.0 : 0.0)) / n);
  }
  s.loss = n > 0 ? s.loss / n : 0;
  return s;
}

}  // namespace

Engine::Net& Engine::forward(const float* images, int n, bool training) {
  Net& t = net(n, training);
  const long long count = static_cast<long long>(n) * m_.c * m_.h * m_.w;
  float* x = static_cast<float*>(t.x.get_data_handle());
  // the copy on every thread too: at 128x128x3 a batch is megabytes
  constexpr long long kChunk = 1 << 16;
#if defined(_OPENMP)
#pragma omp parallel for schedule(static)
#endif
  for (long long from = 0; from < count; from += kChunk)
    std::memcpy(x + from, images + from, static_cast<size_t>(std::min(kChunk, count - from)) * sizeof(float));
  for (auto& s : t.forward) s.p.execute(impl_->stream, s.args);
  impl_->stream.wait();
  return t;
}

Stats Engine::gradient(const float* images, const int* labels, int n) {
  Net& t = forward(images, n, true);
  const Stats st = loss_and_grad(t.logits_buf, labels, n, m_.classes, &t.dlogits_buf);
  for (auto& s : t.backward) s.p.execute(impl_->stream, s.args);
  impl_->stream.wait();
  return st;
}

Stats Engine::train_step(const float* images, const int* labels, int n) {
  const Stats st = gradient(images, labels, n);
  // train::Adam's update (its hyper-parameters and step count), in float on every thread: the dense layer's
  // millions of weights made the single-threaded double loop a third of a 128x128 step.
  train::Adam& a = adam_;
  auto& mv = impl_->m;
  auto& vv = impl_->v;
  if (mv.size() != params_.size()) {
    mv.assign(params_.size(), 0.0f);
    vv.assign(params_.size(), 0.0f);
  }
  ++a.t;
  const float lr_t = static_cast<float>(a.lr * std::sqrt(1 - std::pow(a.beta2, static_cast<double>(a.t))) /
                                        (1 - std::pow(a.beta1, static_cast<double>(a.t))));
  const float b1 = static_cast<float>(a.beta1), b2 = static_cast<float>(a.beta2), eps = static_cast<float>(a.eps);
  const long long total = static_cast<long long>(params_.size());
  float* p = params_.data();
  const float* g = grad_.data();
  float* m = mv.data();
  float* v = vv.data();
#if defined(_OPENMP) && _OPENMP >= 201307
#pragma omp parallel for simd schedule(static)
#elif defined(_OPENMP)
#pragma omp parallel for schedule(static)
#endif
  for (long long i = 0; i < total; ++i) {
    m[i] = b1 * m[i] + (1 - b1) * g[i];
    v[i] = b2 * v[i] + (1 - b2) * g[i] * g[i];
    p[i] -= lr_t * m[i] / (std::sqrt(v[i]) + eps);
  }
  return st;
}

Stats Engine::evaluate(const float* images, const int* labels, int n) {
  const Net& t = forward(images, n, false);
  return loss_and_grad(t.logits_buf, labels, n, m_.classes, nullptr);
}

}  // namespace gpuready::cpu
