// PNG/JPEG decoding and resizing for the image-folder loader, through stb_image and stb_image_resize (Debian's
// libstb-dev, header-only: their implementations are compiled here and nowhere else, with internal linkage). Only the
// PNG and JPEG decoders are built, and no stdio: files come in memory, read through the Fs seam. The header's size is
// checked (stbi_info_from_memory) before anything is decoded, so a 100-byte file claiming 16384x16384 pixels is
// refused instead of costing a gigabyte.
#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>

#include "train/dataset.h"

#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#define STBI_NO_STDIO
#define STBI_NO_HDR
#define STBI_NO_LINEAR
#define STBI_MAX_DIMENSIONS 16384  // = kMaxSide (a static_assert below keeps them equal)
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#include "stb_image.h"
#define STB_IMAGE_RESIZE_STATIC
#define STB_IMAGE_RESIZE_IMPLEMENTATION
#include "stb_image_resize.h"

namespace gpuready::train {
namespace {

static_assert(STBI_MAX_DIMENSIONS == kMaxSide);

struct StbiFree {
  void operator()(unsigned char* p) const { stbi_image_free(p); }
};

const stbi_uc* bytes_of(std::string_view file) { return reinterpret_cast<const stbi_uc*>(file.data()); }

std::string stb_reason(const char* fallback) {
  const char* why = stbi_failure_reason();
  return why != nullptr ? std::string(why) : std::string(fallback);
}

// Channel conversion of one planar float image (C x H x W): 1 -> 3 repeats the plane, 3 -> 1 is ITU-R 601 luma.
std::vector<float> convert_channels(const float* in, std::size_t pixels, int from, int to) {
  std::vector<float> out(pixels * static_cast<std::size_t>(to));
  if (from == to) {
    std::copy(in, in + out.size(), out.begin());
  } else if (from == 1) {
    for (int c = 0; c < to; ++c) std::copy(in, in + pixels, out.begin() + static_cast<std::ptrdiff_t>(c * pixels));
  } else {
    const float* r = in;
    const float* g = in + pixels;
    const float* b = in + 2 * pixels;
    for (std::size_t i = 0; i < pixels; ++i) out[i] = 0.299f * r[i] + 0.587f * g[i] + 0.114f * b[i];
  }
  return out;
}

// stb_image 2.27 (Debian 12's libstb-dev) writes past a Huffman table when a JPEG's DHT segment declares more than 256
// codes (the sizes are summed and used unchecked; found by fuzz/train_image_fuzz.cpp). Such a file is refused before
// stb sees it. stb may meet a DHT marker at any FF C4 its segment walk reaches, so every FF C4 in the file is checked
// the way stb parses it (bytes past the end read as 0, as stbi__get8 does). A budget bounds the work on hostile input.
const char* jpeg_huffman_problem(std::string_view f) {
  if (f.empty() || static_cast<unsigned char>(f[0]) != 0xFF) return nullptr;  // stb takes only these for JPEG
  auto at = [&f](std::size_t i) -> unsigned { return i < f.size() ? static_cast<unsigned char>(f[i]) : 0u; };
  std::size_t budget = std::size_t{1} << 22;  // table headers looked at; a real JPEG has a handful
  for (std::size_t p = 0; p + 1 < f.size(); ++p) {
    if (at(p) != 0xFF || at(p + 1) != 0xC4) continue;
    std::size_t i = p + 2;
    long left = static_cast<long>((at(i) << 8) | at(i + 1)) - 2;
    i += 2;
    while (left > 0 && i < f.size()) {
      if (budget-- == 0) return "corrupt JPEG (too many Huffman tables)";
      const unsigned q = at(i++);
      if ((q >> 4) > 1 || (q & 15) > 3) break;  // stb stops here with "bad DHT header"
      unsigned n = 0;
      for (int k = 0; k < 16; ++k) n += at(i++);
      if (n > 256) return "corrupt JPEG (a Huffman table of more than 256 codes)";
      i += n;
      left -= 17 + static_cast<long>(n);
    }
  }
  return nullptr;
}

// stb_image allocates room for a PNG IDAT chunk from the length the chunk declares (up to 2 GiB) before it looks for
// the bytes (found by fuzz/train_image_fuzz.cpp: a 100-byte file costs a 2 GiB allocation). So the chunks are walked
// first: one that runs past the end of the file makes it corrupt, as stb would conclude after the allocation.
const char* png_chunk_problem(std::string_view f) {
  static constexpr std::string_view kSignature("\x89PNG\r\n\x1a\n", 8);
  if (f.substr(0, 8) != kSignature) return nullptr;
  std::size_t at = 8;
  while (at + 8 <= f.size()) {
    const auto b = [&f](std::size_t i) { return static_cast<std::uint32_t>(static_cast<unsigned char>(f[i])); };
    const std::uint64_t length = (b(at) << 24) | (b(at + 1) << 16) | (b(at + 2) << 8) | b(at + 3);
    const std::string_view type = f.substr(at + 4, 4);
    if (length + 12 > f.size() - at) return "corrupt PNG (a chunk runs past the end of the file)";
    if (type == "IEND") break;
    at += 12 + length;
  }
  return nullptr;
}

}  // namespace

std::optional<ImageInfo> image_info(std::string_view file, std::string* error, const ImageLimits& limits) {
  if (file.size() > static_cast<std::size_t>(INT_MAX)) {
    if (error) *error = "larger than 2 GiB";
    return std::nullopt;
  }
  if (const char* problem = png_chunk_problem(file)) {
    if (error) *error = problem;
    return std::nullopt;
  }
  if (const char* problem = jpeg_huffman_problem(file)) {
    if (error) *error = problem;
    return std::nullopt;
  }
  ImageInfo info;
  if (stbi_info_from_memory(bytes_of(file), static_cast<int>(file.size()), &info.w, &info.h, &info.channels) == 0) {
    if (error) *error = "not a PNG or JPEG image (" + stb_reason("unknown format") + ")";
    return std::nullopt;
  }
  if (info.w <= 0 || info.h <= 0 || info.channels < 1 || info.channels > 4) {
    if (error) *error = "image header gives no size";
    return std::nullopt;
  }
  if (info.w > limits.max_side || info.h > limits.max_side ||
      static_cast<std::uint64_t>(info.w) * static_cast<std::uint64_t>(info.h) > limits.max_pixels) {
    if (error)
      *error = "image of " + std::to_string(info.w) + "x" + std::to_string(info.h) + " pixels is larger than " +
               std::to_string(limits.max_side) + " per side or " + std::to_string(limits.max_pixels) + " pixels";
    return std::nullopt;
  }
  return info;
}

bool decode_image(std::string_view file, const Shape& target, std::vector<float>* out, std::string* error,
                  const ImageLimits& limits) {
  if (target.h < 1 || target.w < 1 || target.h > kMaxSide || target.w > kMaxSide || (target.c != 1 && target.c != 3)) {
    if (error) *error = "target shape " + shape_to_string(target) + " is not valid";
    return false;
  }
  const auto info = image_info(file, error, limits);
  if (!info) return false;
  const int channels = target.c;  // stb converts grey <-> RGB and drops alpha while decoding
  int w = 0, h = 0, stored = 0;
  std::unique_ptr<unsigned char, StbiFree> pixels(
      stbi_load_from_memory(bytes_of(file), static_cast<int>(file.size()), &w, &h, &stored, channels));
  if (!pixels) {
    if (error) *error = "corrupt image (" + stb_reason("decoding failed") + ")";
    return false;
  }
  if (w != info->w || h != info->h) {  // the header read twice must agree; never trust a size not checked above
    if (error) *error = "image size changed while decoding";
    return false;
  }
  const unsigned char* src = pixels.get();
  std::vector<unsigned char> resized;
  if (w != target.w || h != target.h) {
    resized.resize(target.pixels() * static_cast<std::size_t>(channels));
    if (stbir_resize_uint8(src, w, h, 0, resized.data(), target.w, target.h, 0, channels) == 0) {
      if (error) *error = "resizing failed (out of memory)";
      return false;
    }
    src = resized.data();
  }
  // Interleaved HWC bytes -> planar CHW floats in [0, 1].
  const std::size_t plane = target.pixels();
  const std::size_t base = out->size();
  out->resize(base + plane * static_cast<std::size_t>(channels));
  float* dst = out->data() + base;
  for (std::size_t i = 0; i < plane; ++i)
    for (int c = 0; c < channels; ++c)
      dst[static_cast<std::size_t>(c) * plane + i] =
          static_cast<float>(src[i * static_cast<std::size_t>(channels) + static_cast<std::size_t>(c)]) *
          (1.0f / 255.0f);
  return true;
}

void convert_shape(Dataset* d, const Shape& target) {
  if (d->shape == target) return;
  const Shape from = d->shape;
  const std::size_t n = d->size();
  std::vector<float> images;
  images.reserve(n * target.floats());
  std::vector<float> plane(target.pixels());
  for (std::size_t i = 0; i < n; ++i) {
    // Channels first (fewer planes to resize), then each plane on its own: the data stay planar.
    const auto converted = convert_channels(d->image(i), from.pixels(), from.c, target.c);
    for (int c = 0; c < target.c; ++c) {
      const float* in = converted.data() + static_cast<std::size_t>(c) * from.pixels();
      if (from.h == target.h && from.w == target.w) {
        std::copy(in, in + plane.size(), plane.begin());
      } else if (stbir_resize_float(in, from.w, from.h, 0, plane.data(), target.w, target.h, 0, 1) == 0) {
        std::fill(plane.begin(), plane.end(), 0.0f);  // only on allocation failure
      }
      // The resampling filters (Mitchell, Catmull-Rom) overshoot a little at edges: keep [0, 1].
      for (float v : plane) images.push_back(std::clamp(v, 0.0f, 1.0f));
    }
  }
  d->images = std::move(images);
  d->shape = target;
}

}  // namespace gpuready::train
