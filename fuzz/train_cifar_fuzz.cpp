// libFuzzer target for train::parse_cifar10: the input is one to three batch files, cut where its first two bytes say.
// Any bytes parse or fail with a message; a parsed set is 32x32x3 images with labels 0..9 and pixels in [0, 1].
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "train/dataset.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  std::string_view rest(reinterpret_cast<const char*>(data) + 2, size - 2);
  std::vector<std::string_view> batches;
  for (int i = 0; i < 2; ++i) {
    // Cut points in whole records most of the time, so that valid multi-batch inputs are reached.
    const std::size_t cut =
        std::min(rest.size(), static_cast<std::size_t>(data[i]) % 4 * gpuready::train::kCifarRecordBytes);
    if (cut == 0) break;
    batches.push_back(rest.substr(0, cut));
    rest.remove_prefix(cut);
  }
  batches.push_back(rest);
  std::string error;
  const auto d = gpuready::train::parse_cifar10(batches, &error);
  if (!d) {
    if (error.empty()) std::abort();
    return 0;
  }
  if (d->shape != gpuready::train::Shape{32, 32, 3} || d->classes != 10) std::abort();
  if (d->images.size() != d->size() * 3072) std::abort();
  for (int l : d->labels)
    if (l < 0 || l >= 10) std::abort();
  for (float v : d->images)
    if (!(v >= 0.0f && v <= 1.0f)) std::abort();
  return 0;
}
