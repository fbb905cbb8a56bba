// The reference CNN (src/train/reference.h) against finite differences, layer by layer and as a
// whole model, against Keras' own parameter count for the walkthrough's model, and on a tiny
// problem it must learn. The fast engines are checked against this reference, so it is checked
// against the definitions themselves.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "train/reference.h"

using namespace gpuready::train;

namespace {

std::vector<double> randoms(size_t n, std::uint64_t seed, double scale = 1.0) {
  std::vector<double> v(n);
  std::uint64_t s = seed;
  for (auto& x : v) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    x = (static_cast<double>(s >> 11) / 9007199254740992.0 * 2 - 1) * scale;
  }
  return v;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// Checks d/dv of f at v against `analytic` by central differences on every element.
void expect_gradient(std::vector<double> v, const std::function<double(const std::vector<double>&)>& f,
                     const std::vector<double>& analytic, const char* what) {
  ASSERT_EQ(v.size(), analytic.size()) << what;
  const double h = 1e-6;
  for (size_t i = 0; i < v.size(); ++i) {
    const double keep = v[i];
    v[i] = keep + h;
    const double up = f(v);
    v[i] = keep - h;
    const double down = f(v);
    v[i] = keep;
    const double numeric = (up - down) / (2 * h);
    EXPECT_NEAR(analytic[i], numeric, 1e-6 * std::max(1.0, std::fabs(numeric))) << what << "[" << i << "]";
  }
}

TEST(Reference, ConvForwardByHand) {
  // x = [[1 2 3] [4 5 6] [7 8 9]], w = [[1 0] [0 -1]], b = 0.5: y = x[p][q] - x[p+1][q+1] + 0.5 = -3.5 everywhere.
  std::vector<double> y;
  conv_forward({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}, 1, 2, 2, {1, 0, 0, -1}, {0.5}, &y);
  EXPECT_EQ(y, (std::vector<double>{-3.5, -3.5, -3.5, -3.5}));
}

TEST(Reference, ConvGradientsMatchFiniteDifferences) {
  const Dims xd{2, 3, 6, 5};
  const int k = 4, r = 3, s = 2;
  const auto x = randoms(xd.count(), 1), w = randoms(static_cast<size_t>(k) * 3 * r * s, 2), b = randoms(4, 3);
  const Dims yd = conv_out(xd, k, r, s);
  const auto dy = randoms(yd.count(), 4);
  std::vector<double> dx, dw, db;
  conv_backward(xd, x, k, r, s, w, dy, &dx, &dw, &db);
  auto loss = [&](const std::vector<double>& xx, const std::vector<double>& ww, const std::vector<double>& bb) {
    std::vector<double> y;
    conv_forward(xd, xx, k, r, s, ww, bb, &y);
    return dot(y, dy);
  };
  expect_gradient(
      x, [&](const std::vector<double>& v) { return loss(v, w, b); }, dx, "dx");
  expect_gradient(
      w, [&](const std::vector<double>& v) { return loss(x, v, b); }, dw, "dw");
  expect_gradient(
      b, [&](const std::vector<double>& v) { return loss(x, w, v); }, db, "db");
}

TEST(Reference, PoolReluDenseAndLossGradientsMatchFiniteDifferences) {
  const Dims xd{2, 2, 5, 4};  // an odd height: the last row is dropped
  const auto x = randoms(xd.count(), 5);
  const auto dy = randoms(pool_out(xd).count(), 6);
  std::vector<double> dx;
  pool_backward(xd, x, dy, &dx);
  expect_gradient(
      x,
      [&](const std::vector<double>& v) {
        std::vector<double> y;
        pool_forward(xd, v, &y);
        return dot(y, dy);
      },
      dx, "pool dx");
  const auto dr = randoms(x.size(), 7);
  relu_backward(x, dr, &dx);
  expect_gradient(
      x,
      [&](const std::vector<double>& v) {
        std::vector<double> y;
        relu_forward(v, &y);
        return dot(y, dr);
      },
      dx, "relu dx");
  const int n = 3, in = 7, out = 4;
  const auto dx_in = randoms(static_cast<size_t>(n) * in, 8), w = randoms(static_cast<size_t>(out) * in, 9),
             b = randoms(out, 10), ddy = randoms(static_cast<size_t>(n) * out, 11);
  std::vector<double> gx, gw, gb;
  dense_backward(n, in, out, dx_in, w, ddy, &gx, &gw, &gb);
  auto dense_loss = [&](const std::vector<double>& xx, const std::vector<double>& ww, const std::vector<double>& bb) {
    std::vector<double> y;
    dense_forward(n, in, out, xx, ww, bb, &y);
    return dot(y, ddy);
  };
  expect_gradient(
      dx_in, [&](const std::vector<double>& v) { return dense_loss(v, w, b); }, gx, "dense dx");
  expect_gradient(
      w, [&](const std::vector<double>& v) { return dense_loss(dx_in, v, b); }, gw, "dense dw");
  expect_gradient(
      b, [&](const std::vector<double>& v) { return dense_loss(dx_in, w, v); }, gb, "dense db");
  const std::vector<int> labels = {2, 0, 3};
  const auto logits = randoms(static_cast<size_t>(n) * out, 12, 3.0);
  std::vector<double> dl;
  int correct = -1;
  const double l = softmax_xent(n, out, logits, labels, &dl, &correct);
  EXPECT_GT(l, 0);
  EXPECT_GE(correct, 0);
  expect_gradient(
      logits,
      [&](const std::vector<double>& v) {
        std::vector<double> unused;
        return softmax_xent(n, out, v, labels, &unused, nullptr);
      },
      dl, "softmax xent");
}

TEST(Reference, TheWalkthroughModelHasKerasParameterCount) {
  // Keras' model.summary() for this model on 28x28x1: 320 + 18,496 + 204,928 + 1,290 = 225,034.
  ModelSpec m;
  const ParamLayout l = layout_of(m);
  EXPECT_EQ(l.flat, 1600);  // 28 -> 26 -> 13 -> 11 -> 5: 64 x 5 x 5
  EXPECT_EQ(l.total, 225034u);
  EXPECT_EQ(l.b1 - l.w1, 288u);
  m.h = m.w = 8;  // 8 -> 6 -> 3 -> 1 -> 0: too small
  std::string why;
  EXPECT_EQ(layout_of(m, &why).total, 0u);
  EXPECT_FALSE(why.empty());
}

TEST(Reference, InitIsGlorotUniformDeterministicWithZeroBiases) {
  ModelSpec m;
  const auto a = init_params(m, 1), b = init_params(m, 1), c = init_params(m, 2);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  const ParamLayout l = layout_of(m);
  const double limit1 = std::sqrt(6.0 / (9 + 32 * 9));
  double biggest = 0;
  for (size_t i = l.w1; i < l.b1; ++i) biggest = std::max(biggest, std::fabs(static_cast<double>(a[i])));
  EXPECT_LE(biggest, limit1);
  EXPECT_GT(biggest, 0.9 * limit1);  // the range is used
  for (size_t i = l.b1; i < l.w2; ++i) EXPECT_EQ(a[i], 0.0f);
  for (size_t i = l.b4; i < l.total; ++i) EXPECT_EQ(a[i], 0.0f);
}

ModelSpec tiny() {
  ModelSpec m;
  m.c = 2;
  m.h = 12;
  m.w = 11;  // 12x11 -> 10x9 -> 5x4 -> 3x2 -> 1x1
  m.conv1 = 3;
  m.conv2 = 4;
  m.dense = 5;
  m.classes = 3;
  return m;
}

TEST(Reference, WholeModelGradientMatchesFiniteDifferences) {
  const ModelSpec m = tiny();
  auto params = init_params(m, 7);
  const ParamLayout l = layout_of(m);
  for (size_t i = l.b1; i < l.w2; ++i) params[i] = 0.05f;  // biases away from zero too
  const int n = 3;
  std::vector<float> images(static_cast<size_t>(n) * m.c * m.h * m.w);
  const auto r = randoms(images.size(), 13);
  for (size_t i = 0; i < images.size(); ++i) images[i] = static_cast<float>(0.5 + 0.5 * r[i]);
  const std::vector<int> labels = {0, 2, 1};
  const StepResult base = reference_step(m, params, images.data(), labels.data(), n);
  ASSERT_EQ(base.grad.size(), l.total);
  int checked = 0;
  for (size_t i = 0; i < l.total; ++i) {
    // Parameters are floats: difference over the values really stored, not over h. A small step: a
    // larger one (1e-3) crosses ReLU and max-pool switches for a few of conv1's weights.
    const float keep = params[i];
    const float up = keep + 2e-4f, down = keep - 2e-4f;
    params[i] = up;
    const double lu = reference_step(m, params, images.data(), labels.data(), n).loss;
    params[i] = down;
    const double ld = reference_step(m, params, images.data(), labels.data(), n).loss;
    params[i] = keep;
    const double numeric = (lu - ld) / (static_cast<double>(up) - static_cast<double>(down));
    EXPECT_NEAR(base.grad[i], numeric, 1e-4 + 1e-3 * std::fabs(numeric)) << "parameter " << i;
    ++checked;
  }
  EXPECT_EQ(checked, static_cast<int>(l.total));
}

TEST(Reference, AdamTakesKerasFirstStep) {
  // From zero moments the first step moves each parameter by lr * g / (|g| + eps/sqrt(1-b2)) ~ lr * sign(g).
  Adam adam;
  std::vector<float> p = {1.0f, -2.0f, 0.5f};
  adam.step(&p, {0.3, -4.0, 0.0});
  EXPECT_NEAR(p[0], 1.0 - 1e-3, 1e-6);
  EXPECT_NEAR(p[1], -2.0 + 1e-3, 1e-6);
  EXPECT_EQ(p[2], 0.5f);  // no gradient, no move
  EXPECT_EQ(adam.t, 1);
}

TEST(Reference, LearnsATinyProblem) {
  // Class 0: the left half bright; class 1: the right half; class 2: the top half. Adam must get every
  // training image right within 150 steps (1.10 -> 0.47 after 60).
  const ModelSpec m = tiny();
  auto params = init_params(m, 3);
  const int n = 12;
  std::vector<float> images(static_cast<size_t>(n) * m.c * m.h * m.w);
  std::vector<int> labels(n);
  const auto noise = randoms(images.size(), 21, 0.1);
  for (int i = 0; i < n; ++i) {
    labels[static_cast<size_t>(i)] = i % 3;
    for (int c = 0; c < m.c; ++c)
      for (int y = 0; y < m.h; ++y)
        for (int x = 0; x < m.w; ++x) {
          const bool on = (i % 3 == 0 && x < m.w / 2) || (i % 3 == 1 && x >= m.w / 2) || (i % 3 == 2 && y < m.h / 2);
          const size_t at = ((static_cast<size_t>(i) * m.c + c) * m.h + y) * m.w + x;
          images[at] = static_cast<float>((on ? 0.9 : 0.1) + noise[at]);
        }
  }
  Adam adam;
  adam.lr = 1e-2;
  const double first = reference_step(m, params, images.data(), labels.data(), n).loss;
  StepResult last;
  for (int step = 0; step < 150; ++step) {
    last = reference_step(m, params, images.data(), labels.data(), n);
    adam.step(&params, last.grad);
  }
  last = reference_step(m, params, images.data(), labels.data(), n);
  EXPECT_LT(last.loss, first / 4);
  EXPECT_EQ(last.correct, n);
}

}  // namespace
