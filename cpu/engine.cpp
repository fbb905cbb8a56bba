// The CPU engine with oneDNN primitives. First version: plain layouts (NCHW activations, OIHW
// weights) bound straight to the flat parameter and gradient vectors, no reorders; one set of
// primitives and buffers per batch size (the last, partial batch gets its own). The blocked
// layouts oneDNN prefers (format_tag::any) are the next step for speed.
#include "engine.h"

#include <oneapi/dnnl/dnnl_version.h>

#include <algorithm>
#include <cmath>
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
};

namespace {

memory::desc md(const memory::dims& d, tag t) { return memory::desc(d, dt::f32, t); }

struct Step {
  dnnl::primitive p;
  std::unordered_map<int, memory> args;
};

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
  grad_d_.assign(l_.total, 0.0);
}

Engine::~Engine() = default;

std::string Engine::describe() {
  const dnnl_version_t* v = dnnl_version();
  int threads = static_cast<int>(std::thread::hardware_concurrency());
#if defined(_OPENMP)
  threads = omp_get_max_threads();
#endif
  return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch) + " (" +
         std::to_string(threads) + " threads)";
}

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

  // descriptors
  const auto x_md = md({n, m_.c, m_.h, m_.w}, tag::nchw);
  const auto w1_md = md({K1, m_.c, k, k}, tag::oihw), b1_md = md({K1}, tag::x);
  const auto c1_md = md({n, K1, c1d.h, c1d.w}, tag::nchw), p1_md = md({n, K1, p1d.h, p1d.w}, tag::nchw);
  const auto w2_md = md({K2, K1, k, k}, tag::oihw), b2_md = md({K2}, tag::x);
  const auto c2_md = md({n, K2, c2d.h, c2d.w}, tag::nchw), p2_md = md({n, K2, p2d.h, p2d.w}, tag::nchw);
  const auto w3_md = md({D, K2, p2d.h, p2d.w}, tag::oihw), b3_md = md({D}, tag::x);
  const auto d3_md = md({n, D}, tag::nc);
  const auto w4_md = md({NC, D}, tag::oi), b4_md = md({NC}, tag::x);
  const auto o_md = md({n, NC}, tag::nc);

  // buffers
  net->x = mem(x_md);
  memory c1 = mem(c1_md), r1 = mem(c1_md), p1 = mem(p1_md), c2 = mem(c2_md), r2 = mem(c2_md), p2 = mem(p2_md),
         d3 = mem(d3_md), r3 = mem(d3_md);
  net->logits_buf.assign(static_cast<size_t>(n) * NC, 0.0f);
  net->dlogits_buf.assign(static_cast<size_t>(n) * NC, 0.0f);
  net->logits = at(o_md, net->logits_buf.data());
  net->dlogits = at(o_md, net->dlogits_buf.data());
  memory w1 = at(w1_md, P + l_.w1), b1 = at(b1_md, P + l_.b1), w2 = at(w2_md, P + l_.w2), b2 = at(b2_md, P + l_.b2),
         w3 = at(w3_md, P + l_.w3), b3 = at(b3_md, P + l_.b3), w4 = at(w4_md, P + l_.w4), b4 = at(b4_md, P + l_.b4);

  // forward
  dnnl::convolution_forward::primitive_desc conv1_pd(
      {fwd, algorithm::convolution_direct, x_md, w1_md, b1_md, c1_md, one, zero, zero}, eng);
  dnnl::eltwise_forward::primitive_desc relu1_pd({fwd, algorithm::eltwise_relu, c1_md, 0.f, 0.f}, eng);
  dnnl::pooling_forward::primitive_desc pool1_pd({fwd, algorithm::pooling_max, c1_md, p1_md, two, two, zero, zero},
                                                 eng);
  dnnl::convolution_forward::primitive_desc conv2_pd(
      {fwd, algorithm::convolution_direct, p1_md, w2_md, b2_md, c2_md, one, zero, zero}, eng);
  dnnl::eltwise_forward::primitive_desc relu2_pd({fwd, algorithm::eltwise_relu, c2_md, 0.f, 0.f}, eng);
  dnnl::pooling_forward::primitive_desc pool2_pd({fwd, algorithm::pooling_max, c2_md, p2_md, two, two, zero, zero},
                                                 eng);
  dnnl::inner_product_forward::primitive_desc fc3_pd({fwd, p2_md, w3_md, b3_md, d3_md}, eng);
  dnnl::eltwise_forward::primitive_desc relu3_pd({fwd, algorithm::eltwise_relu, d3_md, 0.f, 0.f}, eng);
  dnnl::inner_product_forward::primitive_desc fc4_pd({fwd, d3_md, w4_md, b4_md, o_md}, eng);
  memory ws1, ws2;
  if (training) {
    ws1 = mem(pool1_pd.workspace_desc());
    ws2 = mem(pool2_pd.workspace_desc());
  }
  auto& F = net->forward;
  F.push_back({dnnl::convolution_forward(conv1_pd),
               {{DNNL_ARG_SRC, net->x}, {DNNL_ARG_WEIGHTS, w1}, {DNNL_ARG_BIAS, b1}, {DNNL_ARG_DST, c1}}});
  F.push_back({dnnl::eltwise_forward(relu1_pd), {{DNNL_ARG_SRC, c1}, {DNNL_ARG_DST, r1}}});
  Step pool1{dnnl::pooling_forward(pool1_pd), {{DNNL_ARG_SRC, r1}, {DNNL_ARG_DST, p1}}};
  if (training) pool1.args[DNNL_ARG_WORKSPACE] = ws1;
  F.push_back(pool1);
  F.push_back({dnnl::convolution_forward(conv2_pd),
               {{DNNL_ARG_SRC, p1}, {DNNL_ARG_WEIGHTS, w2}, {DNNL_ARG_BIAS, b2}, {DNNL_ARG_DST, c2}}});
  F.push_back({dnnl::eltwise_forward(relu2_pd), {{DNNL_ARG_SRC, c2}, {DNNL_ARG_DST, r2}}});
  Step pool2{dnnl::pooling_forward(pool2_pd), {{DNNL_ARG_SRC, r2}, {DNNL_ARG_DST, p2}}};
  if (training) pool2.args[DNNL_ARG_WORKSPACE] = ws2;
  F.push_back(pool2);
  F.push_back({dnnl::inner_product_forward(fc3_pd),
               {{DNNL_ARG_SRC, p2}, {DNNL_ARG_WEIGHTS, w3}, {DNNL_ARG_BIAS, b3}, {DNNL_ARG_DST, d3}}});
  F.push_back({dnnl::eltwise_forward(relu3_pd), {{DNNL_ARG_SRC, d3}, {DNNL_ARG_DST, r3}}});
  F.push_back({dnnl::inner_product_forward(fc4_pd),
               {{DNNL_ARG_SRC, r3}, {DNNL_ARG_WEIGHTS, w4}, {DNNL_ARG_BIAS, b4}, {DNNL_ARG_DST, net->logits}}});
  if (!training) {
    slot = std::move(net);
    return *slot;
  }

  // backward, last layer first; gradients land in the flat gradient vector
  memory gw1 = at(w1_md, G + l_.w1), gb1 = at(b1_md, G + l_.b1), gw2 = at(w2_md, G + l_.w2), gb2 = at(b2_md, G + l_.b2),
         gw3 = at(w3_md, G + l_.w3), gb3 = at(b3_md, G + l_.b3), gw4 = at(w4_md, G + l_.w4), gb4 = at(b4_md, G + l_.b4);
  memory dr3 = mem(d3_md), dd3 = mem(d3_md), dp2 = mem(p2_md), dr2 = mem(c2_md), dc2 = mem(c2_md), dp1 = mem(p1_md),
         dr1 = mem(c1_md), dc1 = mem(c1_md);
  dnnl::inner_product_backward_data::primitive_desc fc4_bd({d3_md, w4_md, o_md}, eng, fc4_pd);
  dnnl::inner_product_backward_weights::primitive_desc fc4_bw({d3_md, w4_md, b4_md, o_md}, eng, fc4_pd);
  dnnl::eltwise_backward::primitive_desc relu3_b({algorithm::eltwise_relu, d3_md, d3_md, 0.f, 0.f}, eng, relu3_pd);
  dnnl::inner_product_backward_data::primitive_desc fc3_bd({p2_md, w3_md, d3_md}, eng, fc3_pd);
  dnnl::inner_product_backward_weights::primitive_desc fc3_bw({p2_md, w3_md, b3_md, d3_md}, eng, fc3_pd);
  dnnl::pooling_backward::primitive_desc pool2_b({algorithm::pooling_max, c2_md, p2_md, two, two, zero, zero}, eng,
                                                 pool2_pd);
  dnnl::eltwise_backward::primitive_desc relu2_b({algorithm::eltwise_relu, c2_md, c2_md, 0.f, 0.f}, eng, relu2_pd);
  dnnl::convolution_backward_data::primitive_desc conv2_bd(
      {algorithm::convolution_direct, p1_md, w2_md, c2_md, one, zero, zero}, eng, conv2_pd);
  dnnl::convolution_backward_weights::primitive_desc conv2_bw(
      {algorithm::convolution_direct, p1_md, w2_md, b2_md, c2_md, one, zero, zero}, eng, conv2_pd);
  dnnl::pooling_backward::primitive_desc pool1_b({algorithm::pooling_max, c1_md, p1_md, two, two, zero, zero}, eng,
                                                 pool1_pd);
  dnnl::eltwise_backward::primitive_desc relu1_b({algorithm::eltwise_relu, c1_md, c1_md, 0.f, 0.f}, eng, relu1_pd);
  dnnl::convolution_backward_weights::primitive_desc conv1_bw(
      {algorithm::convolution_direct, x_md, w1_md, b1_md, c1_md, one, zero, zero}, eng, conv1_pd);
  auto& B = net->backward;
  B.push_back({dnnl::inner_product_backward_data(fc4_bd),
               {{DNNL_ARG_DIFF_DST, net->dlogits}, {DNNL_ARG_WEIGHTS, w4}, {DNNL_ARG_DIFF_SRC, dr3}}});
  B.push_back({dnnl::inner_product_backward_weights(fc4_bw),
               {{DNNL_ARG_SRC, r3},
                {DNNL_ARG_DIFF_DST, net->dlogits},
                {DNNL_ARG_DIFF_WEIGHTS, gw4},
                {DNNL_ARG_DIFF_BIAS, gb4}}});
  B.push_back(
      {dnnl::eltwise_backward(relu3_b), {{DNNL_ARG_SRC, d3}, {DNNL_ARG_DIFF_DST, dr3}, {DNNL_ARG_DIFF_SRC, dd3}}});
  B.push_back({dnnl::inner_product_backward_data(fc3_bd),
               {{DNNL_ARG_DIFF_DST, dd3}, {DNNL_ARG_WEIGHTS, w3}, {DNNL_ARG_DIFF_SRC, dp2}}});
  B.push_back(
      {dnnl::inner_product_backward_weights(fc3_bw),
       {{DNNL_ARG_SRC, p2}, {DNNL_ARG_DIFF_DST, dd3}, {DNNL_ARG_DIFF_WEIGHTS, gw3}, {DNNL_ARG_DIFF_BIAS, gb3}}});
  B.push_back({dnnl::pooling_backward(pool2_b),
               {{DNNL_ARG_DIFF_DST, dp2}, {DNNL_ARG_DIFF_SRC, dr2}, {DNNL_ARG_WORKSPACE, ws2}}});
  B.push_back(
      {dnnl::eltwise_backward(relu2_b), {{DNNL_ARG_SRC, c2}, {DNNL_ARG_DIFF_DST, dr2}, {DNNL_ARG_DIFF_SRC, dc2}}});
  B.push_back({dnnl::convolution_backward_data(conv2_bd),
               {{DNNL_ARG_DIFF_DST, dc2}, {DNNL_ARG_WEIGHTS, w2}, {DNNL_ARG_DIFF_SRC, dp1}}});
  B.push_back(
      {dnnl::convolution_backward_weights(conv2_bw),
       {{DNNL_ARG_SRC, p1}, {DNNL_ARG_DIFF_DST, dc2}, {DNNL_ARG_DIFF_WEIGHTS, gw2}, {DNNL_ARG_DIFF_BIAS, gb2}}});
  B.push_back({dnnl::pooling_backward(pool1_b),
               {{DNNL_ARG_DIFF_DST, dp1}, {DNNL_ARG_DIFF_SRC, dr1}, {DNNL_ARG_WORKSPACE, ws1}}});
  B.push_back(
      {dnnl::eltwise_backward(relu1_b), {{DNNL_ARG_SRC, c1}, {DNNL_ARG_DIFF_DST, dr1}, {DNNL_ARG_DIFF_SRC, dc1}}});
  B.push_back(
      {dnnl::convolution_backward_weights(conv1_bw),
       {{DNNL_ARG_SRC, net->x}, {DNNL_ARG_DIFF_DST, dc1}, {DNNL_ARG_DIFF_WEIGHTS, gw1}, {DNNL_ARG_DIFF_BIAS, gb1}}});
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
  std::copy(images, images + static_cast<size_t>(n) * m_.c * m_.h * m_.w, static_cast<float*>(t.x.get_data_handle()));
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
  for (size_t i = 0; i < grad_.size(); ++i) grad_d_[i] = grad_[i];
  adam_.step(&params_, grad_d_);  // in place: the primitives see the new parameters next step
  return st;
}

Stats Engine::evaluate(const float* images, const int* labels, int n) {
  const Net& t = forward(images, n, false);
  return loss_and_grad(t.logits_buf, labels, n, m_.classes, nullptr);
}

}  // namespace gpuready::cpu
