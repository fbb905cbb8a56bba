// The synthetic data set of `gpuready bench`: rendered shapes a small CNN learns in a few epochs, at any size from
// 28x28x1 to 128x128x3. Each shape is a signed distance function (in pixels, so edges are anti-aliased the same at
// every size); each image draws its position, size, rotation, colours and noise from its own splitmix64 stream seeded
// by (seed, index), so images are rendered on all cores and the bytes do not depend on the thread count. No libm
// transcendental is used (a rotation comes from tan(angle/2)), so no standard library's sin/cos changes the bytes.
#include <algorithm>
#include <cmath>
#include <thread>

#include "train/dataset.h"

namespace gpuready::train {
namespace {

float box(float x, float y, float bx, float by) {
  const float dx = std::fabs(x) - bx, dy = std::fabs(y) - by;
  const float ox = std::max(dx, 0.0f), oy = std::max(dy, 0.0f);
  return std::sqrt(ox * ox + oy * oy) + std::min(std::max(dx, dy), 0.0f);
}

// Equilateral triangle of half-side s, centred (after Inigo Quilez's sdEquilateralTriangle).
float triangle(float x, float y, float s) {
  constexpr float k = 1.7320508f;  // sqrt(3)
  y = -y + s / k;                  // apex up in image coordinates (y grows downwards)
  x = std::fabs(x) - s;
  if (x + k * y > 0.0f) {
    const float nx = (x - k * y) * 0.5f, ny = (-k * x - y) * 0.5f;
    x = nx;
    y = ny;
  }
  x -= std::clamp(x, -2.0f * s, 0.0f);
  const float len = std::sqrt(x * x + y * y);
  return y < 0.0f ? len : -len;
}

// Signed distance (pixels; < 0 inside) from local point (x, y) to shape `kind` of size r.
float shape_distance(int kind, float x, float y, float r) {
  constexpr float inv_sqrt2 = 0.70710678f;
  switch (kind) {
    case 0:  // filled circle
      return std::sqrt(x * x + y * y) - r;
    case 1:  // square
      return box(x, y, 0.8f * r, 0.8f * r);
    case 2:  // triangle
      return triangle(x, y, 0.9f * r);
    case 3:  // ring
      return std::fabs(std::sqrt(x * x + y * y) - 0.75f * r) - 0.22f * r;
    case 4:  // plus
      return std::min(box(x, y, r, 0.25f * r), box(x, y, 0.25f * r, r));
    case 5: {  // X: the plus turned by 45 degrees
      const float u = (x + y) * inv_sqrt2, v = (x - y) * inv_sqrt2;
      return std::min(box(u, v, r, 0.22f * r), box(u, v, 0.22f * r, r));
    }
    case 6:  // horizontal bar
      return box(x, y, r, 0.3f * r);
    case 7:  // vertical bar
      return box(x, y, 0.3f * r, r);
    case 8:  // diamond
      return (std::fabs(x) + std::fabs(y) - r) * inv_sqrt2;
    default:  // 9: square frame
      return std::fabs(box(x, y, 0.78f * r, 0.78f * r)) - 0.18f * r;
  }
}

// Renders image `index` of class `kind` into out (C x H x W floats).
void render(int kind, const Shape& s, std::uint64_t seed, std::uint64_t index, float* out) {
  SplitMix64 rng(seed ^ (0xD1B54A32D192ED03ull * (index + 1)));
  rng.next();
  const float side = static_cast<float>(std::min(s.h, s.w));
  const float r = rng.uniform(0.22f, 0.36f) * side;
  const float reach = 1.45f * r + 1.0f;  // no shape reaches further from its centre (corners of turned boxes)
  const float jx = std::max(static_cast<float>(s.w) * 0.5f - 1.05f * r, 0.0f);
  const float jy = std::max(static_cast<float>(s.h) * 0.5f - 1.05f * r, 0.0f);
  const float cx = static_cast<float>(s.w) * 0.5f + rng.uniform(-1.0f, 1.0f) * jx;
  const float cy = static_cast<float>(s.h) * 0.5f + rng.uniform(-1.0f, 1.0f) * jy;
  const float t = rng.uniform(-0.105f, 0.105f);  // tan(angle / 2): about +-12 degrees
  const float cos_a = (1.0f - t * t) / (1.0f + t * t), sin_a = 2.0f * t / (1.0f + t * t);
  float bg[3], fg[3];
  for (int c = 0; c < 3; ++c) {
    bg[c] = rng.uniform(0.0f, 0.3f);
    fg[c] = rng.uniform(0.55f, 1.0f);
  }
  constexpr float noise = 0.12f;
  const std::size_t plane = s.pixels();
  const int x0 = std::max(0, static_cast<int>(cx - reach)), x1 = std::min(s.w, static_cast<int>(cx + reach) + 1);
  const int y0 = std::max(0, static_cast<int>(cy - reach)), y1 = std::min(s.h, static_cast<int>(cy + reach) + 1);
  std::uint64_t bits = 0;
  int bits_left = 0;
  for (int y = 0; y < s.h; ++y) {
    for (int x = 0; x < s.w; ++x) {
      float cover = 0.0f;
      if (y >= y0 && y < y1 && x >= x0 && x < x1) {
        const float dx = static_cast<float>(x) + 0.5f - cx, dy = static_cast<float>(y) + 0.5f - cy;
        const float lx = cos_a * dx + sin_a * dy, ly = -sin_a * dx + cos_a * dy;
        cover = std::clamp(0.5f - shape_distance(kind, lx, ly, r), 0.0f, 1.0f);
      }
      const std::size_t i = static_cast<std::size_t>(y) * static_cast<std::size_t>(s.w) + static_cast<std::size_t>(x);
      for (int c = 0; c < s.c; ++c) {
        if (bits_left == 0) {
          bits = rng.next();
          bits_left = 4;
        }
        const float u = static_cast<float>(bits & 0xFFFF) * (1.0f / 65535.0f);
        bits >>= 16;
        --bits_left;
        const float v = bg[c] + cover * (fg[c] - bg[c]) + (u - 0.5f) * 2.0f * noise;
        out[static_cast<std::size_t>(c) * plane + i] = std::clamp(v, 0.0f, 1.0f);
      }
    }
  }
}

}  // namespace

const std::vector<std::string>& synthetic_class_names() {
  static const std::vector<std::string> names = {"circle", "square", "triangle", "ring",    "plus",
                                                 "x",      "hbar",   "vbar",     "diamond", "frame"};
  return names;
}

Dataset synthetic(const SyntheticOptions& options) {
  Dataset d;
  d.shape = options.shape;
  d.shape.h = std::clamp(d.shape.h, 1, kMaxSide);
  d.shape.w = std::clamp(d.shape.w, 1, kMaxSide);
  d.shape.c = d.shape.c == 3 ? 3 : 1;
  d.classes = std::clamp(options.classes, 2, kSyntheticShapeKinds);
  const std::size_t n = static_cast<std::size_t>(std::max(options.images, 0));
  d.class_names.assign(synthetic_class_names().begin(), synthetic_class_names().begin() + d.classes);
  d.source = "synthetic shapes, " + std::to_string(n) + " images " + shape_to_string(d.shape) + ", " +
             std::to_string(d.classes) + " classes, seed " + std::to_string(options.seed);

  // Balanced labels (i mod classes), shuffled by the seed (Fisher-Yates).
  d.labels.resize(n);
  for (std::size_t i = 0; i < n; ++i) d.labels[i] = static_cast<int>(i % static_cast<std::size_t>(d.classes));
  SplitMix64 order(options.seed);
  for (std::size_t i = n; i > 1; --i) std::swap(d.labels[i - 1], d.labels[order.below(i)]);

  const std::size_t floats = d.shape.floats();
  d.images.resize(n * floats);
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t workers = std::min<std::size_t>({hw, 64, std::max<std::size_t>(1, n * floats / 200000)});
  auto work = [&](std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) render(d.labels[i], d.shape, options.seed, i, &d.images[i * floats]);
  };
  if (workers <= 1) {
    work(0, n);
  } else {
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < workers; ++t) threads.emplace_back(work, n * t / workers, n * (t + 1) / workers);
    for (auto& th : threads) th.join();
  }
  return d;
}

}  // namespace gpuready::train
