#include "train/reference.h"

#include <algorithm>
#include <cmath>

#include "train/dataset.h"

namespace gpuready::train {

Dims conv_out(const Dims& x, int k, int r, int s) { return {x.n, k, x.h - r + 1, x.w - s + 1}; }

void conv_forward(const Dims& xd, const std::vector<double>& x, int k, int r, int s, const std::vector<double>& w,
                  const std::vector<double>& b, std::vector<double>* y) {
  const Dims yd = conv_out(xd, k, r, s);
  y->assign(yd.count(), 0.0);
  for (int n = 0; n < xd.n; ++n)
    for (int o = 0; o < k; ++o)
      for (int p = 0; p < yd.h; ++p)
        for (int q = 0; q < yd.w; ++q) {
          double acc = b[static_cast<size_t>(o)];
          for (int c = 0; c < xd.c; ++c)
            for (int i = 0; i < r; ++i)
              for (int j = 0; j < s; ++j)
                acc += x[((static_cast<size_t>(n) * xd.c + c) * xd.h + p + i) * xd.w + q + j] *
                       w[((static_cast<size_t>(o) * xd.c + c) * r + i) * s + j];
          (*y)[((static_cast<size_t>(n) * k + o) * yd.h + p) * yd.w + q] = acc;
        }
}

void conv_backward(const Dims& xd, const std::vector<double>& x, int k, int r, int s, const std::vector<double>& w,
                   const std::vector<double>& dy, std::vector<double>* dx, std::vector<double>* dw,
                   std::vector<double>* db) {
  const Dims yd = conv_out(xd, k, r, s);
  if (dx) dx->assign(xd.count(), 0.0);
  dw->assign(w.size(), 0.0);
  db->assign(static_cast<size_t>(k), 0.0);
  for (int n = 0; n < xd.n; ++n)
    for (int o = 0; o < k; ++o)
      for (int p = 0; p < yd.h; ++p)
        for (int q = 0; q < yd.w; ++q) {
          const double g = dy[((static_cast<size_t>(n) * k + o) * yd.h + p) * yd.w + q];
          (*db)[static_cast<size_t>(o)] += g;
          for (int c = 0; c < xd.c; ++c)
            for (int i = 0; i < r; ++i)
              for (int j = 0; j < s; ++j) {
                const size_t xi = ((static_cast<size_t>(n) * xd.c + c) * xd.h + p + i) * xd.w + q + j;
                const size_t wi = ((static_cast<size_t>(o) * xd.c + c) * r + i) * s + j;
                (*dw)[wi] += g * x[xi];
                if (dx) (*dx)[xi] += g * w[wi];
              }
        }
}

void relu_forward(const std::vector<double>& x, std::vector<double>* y) {
  y->resize(x.size());
  for (size_t i = 0; i < x.size(); ++i) (*y)[i] = x[i] > 0 ? x[i] : 0;
}

void relu_backward(const std::vector<double>& x, const std::vector<double>& dy, std::vector<double>* dx) {
  dx->resize(x.size());
  for (size_t i = 0; i < x.size(); ++i) (*dx)[i] = x[i] > 0 ? dy[i] : 0;
}

Dims pool_out(const Dims& x) { return {x.n, x.c, x.h / 2, x.w / 2}; }

namespace {
// The input index of the largest element of window (p, q) of plane (n, c).
size_t pool_argmax(const Dims& xd, const std::vector<double>& x, int n, int c, int p, int q) {
  size_t best = ((static_cast<size_t>(n) * xd.c + c) * xd.h + 2 * p) * xd.w + 2 * q;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      const size_t at = ((static_cast<size_t>(n) * xd.c + c) * xd.h + 2 * p + i) * xd.w + 2 * q + j;
      if (x[at] > x[best]) best = at;
    }
  return best;
}
}  // namespace

void pool_forward(const Dims& xd, const std::vector<double>& x, std::vector<double>* y) {
  const Dims yd = pool_out(xd);
  y->assign(yd.count(), 0.0);
  for (int n = 0; n < xd.n; ++n)
    for (int c = 0; c < xd.c; ++c)
      for (int p = 0; p < yd.h; ++p)
        for (int q = 0; q < yd.w; ++q)
          (*y)[((static_cast<size_t>(n) * xd.c + c) * yd.h + p) * yd.w + q] = x[pool_argmax(xd, x, n, c, p, q)];
}

void pool_backward(const Dims& xd, const std::vector<double>& x, const std::vector<double>& dy,
                   std::vector<double>* dx) {
  const Dims yd = pool_out(xd);
  dx->assign(xd.count(), 0.0);
  for (int n = 0; n < xd.n; ++n)
    for (int c = 0; c < xd.c; ++c)
      for (int p = 0; p < yd.h; ++p)
        for (int q = 0; q < yd.w; ++q)
          (*dx)[pool_argmax(xd, x, n, c, p, q)] += dy[((static_cast<size_t>(n) * xd.c + c) * yd.h + p) * yd.w + q];
}

void dense_forward(int n, int in, int out, const std::vector<double>& x, const std::vector<double>& w,
                   const std::vector<double>& b, std::vector<double>* y) {
  y->assign(static_cast<size_t>(n) * out, 0.0);
  for (int i = 0; i < n; ++i)
    for (int o = 0; o < out; ++o) {
      double acc = b[static_cast<size_t>(o)];
      for (int j = 0; j < in; ++j) acc += w[static_cast<size_t>(o) * in + j] * x[static_cast<size_t>(i) * in + j];
      (*y)[static_cast<size_t>(i) * out + o] = acc;
    }
}

void dense_backward(int n, int in, int out, const std::vector<double>& x, const std::vector<double>& w,
                    const std::vector<double>& dy, std::vector<double>* dx, std::vector<double>* dw,
                    std::vector<double>* db) {
  dx->assign(static_cast<size_t>(n) * in, 0.0);
  dw->assign(static_cast<size_t>(out) * in, 0.0);
  db->assign(static_cast<size_t>(out), 0.0);
  for (int i = 0; i < n; ++i)
    for (int o = 0; o < out; ++o) {
      const double g = dy[static_cast<size_t>(i) * out + o];
      (*db)[static_cast<size_t>(o)] += g;
      for (int j = 0; j < in; ++j) {
        (*dw)[static_cast<size_t>(o) * in + j] += g * x[static_cast<size_t>(i) * in + j];
        (*dx)[static_cast<size_t>(i) * in + j] += g * w[static_cast<size_t>(o) * in + j];
      }
    }
}

double softmax_xent(int n, int classes, const std::vector<double>& logits, const std::vector<int>& labels,
                    std::vector<double>* dlogits, int* correct) {
  dlogits->assign(logits.size(), 0.0);
  double loss = 0;
  int right = 0;
  for (int i = 0; i < n; ++i) {
    const double* z = logits.data() + static_cast<size_t>(i) * classes;
    const double top = *std::max_element(z, z + classes);
    double sum = 0;
    for (int c = 0; c < classes; ++c) sum += std::exp(z[c] - top);
    const int label = labels[static_cast<size_t>(i)];
    loss += -(z[label] - top - std::log(sum));
    right += static_cast<int>(std::max_element(z, z + classes) - z) == label;
    for (int c = 0; c < classes; ++c)
      (*dlogits)[static_cast<size_t>(i) * classes + c] = (std::exp(z[c] - top) / sum - (c == label ? 1.0 : 0.0)) / n;
  }
  if (correct) *correct = right;
  return n > 0 ? loss / n : 0;
}

ParamLayout layout_of(const ModelSpec& m, std::string* why) {
  ParamLayout l;
  const Dims c1 = conv_out({1, m.c, m.h, m.w}, m.conv1, m.kernel, m.kernel);
  const Dims p1 = pool_out(c1);
  const Dims c2 = conv_out(p1, m.conv2, m.kernel, m.kernel);
  const Dims p2 = pool_out(c2);
  if (m.c < 1 || m.kernel < 1 || m.conv1 < 1 || m.conv2 < 1 || m.dense < 1 || m.classes < 2 || p2.h < 1 || p2.w < 1) {
    if (why) *why = "the input is too small for two 'valid' convolutions and poolings, or a layer size is below 1";
    return l;
  }
  l.flat = m.conv2 * p2.h * p2.w;
  const size_t k2 = static_cast<size_t>(m.kernel) * m.kernel;
  size_t at = 0;
  auto take = [&](size_t n) {
    const size_t here = at;
    at += n;
    return here;
  };
  l.w1 = take(static_cast<size_t>(m.conv1) * m.c * k2);
  l.b1 = take(static_cast<size_t>(m.conv1));
  l.w2 = take(static_cast<size_t>(m.conv2) * m.conv1 * k2);
  l.b2 = take(static_cast<size_t>(m.conv2));
  l.w3 = take(static_cast<size_t>(m.dense) * l.flat);
  l.b3 = take(static_cast<size_t>(m.dense));
  l.w4 = take(static_cast<size_t>(m.classes) * m.dense);
  l.b4 = take(static_cast<size_t>(m.classes));
  l.total = at;
  return l;
}

std::vector<float> init_params(const ModelSpec& m, std::uint64_t seed) {
  const ParamLayout l = layout_of(m);
  std::vector<float> p(l.total, 0.0f);
  SplitMix64 rng(seed ^ 0x5eed5eed5eed5eedull);
  auto next_unit = [&rng]() { return static_cast<double>(rng.next() >> 11) * (1.0 / 9007199254740992.0); };  // [0, 1)
  auto glorot = [&](size_t at, size_t count, double fan_in, double fan_out) {
    const double limit = std::sqrt(6.0 / (fan_in + fan_out));
    for (size_t i = 0; i < count; ++i) p[at + i] = static_cast<float>((2 * next_unit() - 1) * limit);
  };
  const double k2 = static_cast<double>(m.kernel) * m.kernel;
  glorot(l.w1, l.b1 - l.w1, m.c * k2, m.conv1 * k2);
  glorot(l.w2, l.b2 - l.w2, m.conv1 * k2, m.conv2 * k2);
  glorot(l.w3, l.b3 - l.w3, l.flat, m.dense);
  glorot(l.w4, l.b4 - l.w4, m.dense, m.classes);
  return p;
}

StepResult reference_step(const ModelSpec& m, const std::vector<float>& params, const float* images, const int* labels,
                          int n) {
  const ParamLayout l = layout_of(m);
  auto slice = [&](size_t from, size_t to) { return std::vector<double>(params.begin() + from, params.begin() + to); };
  const std::vector<double> w1 = slice(l.w1, l.b1), b1 = slice(l.b1, l.w2), w2 = slice(l.w2, l.b2),
                            b2 = slice(l.b2, l.w3), w3 = slice(l.w3, l.b3), b3 = slice(l.b3, l.w4),
                            w4 = slice(l.w4, l.b4), b4 = slice(l.b4, l.total);
  const Dims xd{n, m.c, m.h, m.w};
  const std::vector<double> x(images, images + xd.count());
  // forward
  std::vector<double> c1, r1, p1, c2, r2, p2, d3, r3, logits;
  conv_forward(xd, x, m.conv1, m.kernel, m.kernel, w1, b1, &c1);
  const Dims c1d = conv_out(xd, m.conv1, m.kernel, m.kernel);
  relu_forward(c1, &r1);
  pool_forward(c1d, r1, &p1);
  const Dims p1d = pool_out(c1d);
  conv_forward(p1d, p1, m.conv2, m.kernel, m.kernel, w2, b2, &c2);
  const Dims c2d = conv_out(p1d, m.conv2, m.kernel, m.kernel);
  relu_forward(c2, &r2);
  pool_forward(c2d, r2, &p2);  // NCHW flattened per image: the dense layer's input
  dense_forward(n, l.flat, m.dense, p2, w3, b3, &d3);
  relu_forward(d3, &r3);
  dense_forward(n, m.dense, m.classes, r3, w4, b4, &logits);
  StepResult out;
  std::vector<double> dlogits;
  out.loss = softmax_xent(n, m.classes, logits, std::vector<int>(labels, labels + n), &dlogits, &out.correct);
  // backward
  std::vector<double> dr3, dd3, dp2, dr2, dc2, dp1, dr1, dc1, gw1, gb1, gw2, gb2, gw3, gb3, gw4, gb4;
  dense_backward(n, m.dense, m.classes, r3, w4, dlogits, &dr3, &gw4, &gb4);
  relu_backward(d3, dr3, &dd3);
  dense_backward(n, l.flat, m.dense, p2, w3, dd3, &dp2, &gw3, &gb3);
  pool_backward(c2d, r2, dp2, &dr2);
  relu_backward(c2, dr2, &dc2);
  conv_backward(p1d, p1, m.conv2, m.kernel, m.kernel, w2, dc2, &dp1, &gw2, &gb2);
  pool_backward(c1d, r1, dp1, &dr1);
  relu_backward(c1, dr1, &dc1);
  conv_backward(xd, x, m.conv1, m.kernel, m.kernel, w1, dc1, nullptr, &gw1, &gb1);
  out.grad.reserve(l.total);
  for (const auto* g : {&gw1, &gb1, &gw2, &gb2, &gw3, &gb3, &gw4, &gb4})
    out.grad.insert(out.grad.end(), g->begin(), g->end());
  return out;
}

void Adam::step(std::vector<float>* params, const std::vector<double>& grad) {
  if (m.size() != params->size()) {
    m.assign(params->size(), 0.0);
    v.assign(params->size(), 0.0);
  }
  ++t;
  const double lr_t =
      lr * std::sqrt(1 - std::pow(beta2, static_cast<double>(t))) / (1 - std::pow(beta1, static_cast<double>(t)));
  for (size_t i = 0; i < params->size(); ++i) {
    m[i] = beta1 * m[i] + (1 - beta1) * grad[i];
    v[i] = beta2 * v[i] + (1 - beta2) * grad[i] * grad[i];
    (*params)[i] = static_cast<float>((*params)[i] - lr_t * m[i] / (std::sqrt(v[i]) + eps));
  }
}

}  // namespace gpuready::train
