// The oneDNN CPU engine against the reference CNN (train/reference.h) on the same batch, the same
// parameters: the loss, every gradient block, Adam steps, inference, and a batch of another size.
#include "engine.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace gpuready;

namespace {

std::vector<float> images_for(const train::ModelSpec& m, int n, std::uint64_t seed) {
  std::vector<float> v(static_cast<size_t>(n) * m.c * m.h * m.w);
  std::uint64_t s = seed;
  for (auto& x : v) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    x = static_cast<float>(s >> 40) / 16777216.0f;  // [0, 1)
  }
  return v;
}

// max |a - b| / max |b| over one block of the layout.
double block_error(const std::vector<float>& a, const std::vector<double>& b, size_t from, size_t to) {
  double diff = 0, scale = 1e-30;
  for (size_t i = from; i < to; ++i) {
    diff = std::max(diff, std::fabs(a[i] - b[i]));
    scale = std::max(scale, std::fabs(b[i]));
  }
  return diff / scale;
}

void expect_same_gradient(const train::ModelSpec& m, int n) {
  const auto params = train::init_params(m, 11);
  const auto x = images_for(m, n, 5);
  std::vector<int> y(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) y[static_cast<size_t>(i)] = (i * 7) % m.classes;
  cpu::Engine e(m, params);
  const cpu::Stats got = e.gradient(x.data(), y.data(), n);
  const train::StepResult want = train::reference_step(m, params, x.data(), y.data(), n);
  EXPECT_NEAR(got.loss, want.loss, 1e-5 * std::max(1.0, want.loss));
  EXPECT_EQ(got.correct, want.correct);
  const train::ParamLayout l = train::layout_of(m);
  const size_t bounds[] = {l.w1, l.b1, l.w2, l.b2, l.w3, l.b3, l.w4, l.b4, l.total};
  const char* names[] = {"w1", "b1", "w2", "b2", "w3", "b3", "w4", "b4"};
  for (int b = 0; b < 8; ++b)
    EXPECT_LT(block_error(e.grad(), want.grad, bounds[b], bounds[b + 1]), 1e-4) << names[b] << " n=" << n;
}

TEST(CpuEngine, GradientsMatchTheReferenceOnTheWalkthroughModel) {
  expect_same_gradient(train::ModelSpec{}, 4);  // 28x28x1, 32/64 filters, dense 128, 10 classes
}

TEST(CpuEngine, GradientsMatchTheReferenceOnOddSizesAndColour) {
  train::ModelSpec m;
  m.c = 3;
  m.h = 17;
  m.w = 21;
  m.conv1 = 5;
  m.conv2 = 6;
  m.dense = 7;
  m.classes = 4;
  expect_same_gradient(m, 3);
  expect_same_gradient(m, 1);  // a batch of one
}

TEST(CpuEngine, AdamStepsFollowTheReference) {
  train::ModelSpec m;
  m.h = m.w = 14;
  m.conv1 = 4;
  m.conv2 = 8;
  m.dense = 16;
  const int n = 8;
  auto ref_params = train::init_params(m, 3);
  cpu::Engine e(m, ref_params);
  train::Adam ref_adam;
  const auto x = images_for(m, n, 9);
  std::vector<int> y(n);
  for (int i = 0; i < n; ++i) y[static_cast<size_t>(i)] = i % m.classes;
  for (int step = 0; step < 5; ++step) {
    const auto want = train::reference_step(m, ref_params, x.data(), y.data(), n);
    ref_adam.step(&ref_params, want.grad);
    e.train_step(x.data(), y.data(), n);
  }
  double worst = 0;
  for (size_t i = 0; i < ref_params.size(); ++i)
    worst = std::max(worst, static_cast<double>(std::fabs(e.params()[i] - ref_params[i])));
  EXPECT_LT(worst, 1e-5);  // 5 steps of at most lr = 1e-3 each
  // Inference gives the loss the training pass gives, on a batch of another size.
  const auto eval = e.evaluate(x.data(), y.data(), 5);
  const auto ref = train::reference_step(m, e.params(), x.data(), y.data(), 5);
  EXPECT_NEAR(eval.loss, ref.loss, 1e-5);
  EXPECT_EQ(eval.correct, ref.correct);
}

TEST(CpuEngine, RefusesAModelTheInputIsTooSmallFor) {
  train::ModelSpec m;
  m.h = m.w = 8;
  EXPECT_THROW(cpu::Engine(m, {}), std::invalid_argument);
}

}  // namespace
