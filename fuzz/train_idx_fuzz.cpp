// libFuzzer target for train::parse_mnist_idx (`gpuready bench --data` reads user files): the input is split into an
// images file and a labels file at a position its first byte chooses. Any bytes parse or fail with a message; a parsed
// set is consistent (sizes agree, labels in range, pixels in [0, 1]).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "train/dataset.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view all(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::size_t cut = std::min<std::size_t>(all.size(), static_cast<std::size_t>(data[0]) * 4);
  std::string error;
  const auto d = gpuready::train::parse_mnist_idx(all.substr(cut), all.substr(0, cut), &error);
  if (!d) {
    if (error.empty()) std::abort();  // a failure always says why
    return 0;
  }
  if (d->size() == 0 || d->images.size() != d->size() * d->shape.floats() || d->shape.c != 1) std::abort();
  if (d->classes < 2 || d->class_names.size() != static_cast<std::size_t>(d->classes)) std::abort();
  for (int l : d->labels)
    if (l < 0 || l >= d->classes) std::abort();
  for (float v : d->images)
    if (!(v >= 0.0f && v <= 1.0f)) std::abort();
  return 0;
}
