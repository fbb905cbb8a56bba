// libFuzzer target for train::decode_image, the function load_data decodes (stb_image PNG/JPEG) and resizes each file
// of an image folder with. The first byte picks the target shape (grey or RGB, smaller or larger than most inputs).
// Any bytes decode or fail with a message; a decoded image is exactly the target's floats, all in [0, 1], and a failed
// one appends nothing. The pixel cap is lowered to 1 Mpixel so the fuzzer spends its time on the decoders, not on
// allocating what a header claims (load_data's real cap, 64 Mpixel, is checked the same way).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "train/dataset.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  using gpuready::train::Shape;
  static const Shape kTargets[] = {{28, 28, 1}, {32, 32, 3}, {7, 13, 3}, {64, 48, 1}};
  const Shape target = kTargets[data[0] % 4];
  const std::string_view file(reinterpret_cast<const char*>(data) + 1, size - 1);
  gpuready::train::ImageLimits limits;
  limits.max_pixels = 1u << 20;
  std::vector<float> out = {0.5f};  // something already there: decoding appends
  std::string error;
  if (!gpuready::train::decode_image(file, target, &out, &error, limits)) {
    if (error.empty() || out.size() != 1) std::abort();
    return 0;
  }
  if (out.size() != 1 + target.floats()) std::abort();
  for (float v : out)
    if (!(v >= 0.0f && v <= 1.0f)) std::abort();
  return 0;
}
