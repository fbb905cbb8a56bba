// The data of `gpuready bench` (docs/bench.md, "Data"): a built-in synthetic set of rendered shapes that a small CNN
// can really learn, and the user's own data — an image folder with one sub-folder per class (PNG/JPEG), MNIST IDX
// files, CIFAR-10 binary batches — all turned into one in-memory form: N images of C x H x W floats in [0, 1] and
// their labels. The byte parsers are pure and fuzzed (fuzz/train_*_fuzz.cpp); files are read through the `Fs` seam.
// Every size read from a file is checked against the bytes that are there and against caps before anything is
// allocated, so a hostile or corrupt file costs a message, never a crash, a hang or gigabytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/os.h"

namespace gpuready::train {

// One image's size: height, width, channels (1 grey, 3 RGB). "HxWxC" on the command line.
struct Shape {
  int h = 28, w = 28, c = 1;
  [[nodiscard]] std::size_t pixels() const { return static_cast<std::size_t>(h) * static_cast<std::size_t>(w); }
  [[nodiscard]] std::size_t floats() const { return pixels() * static_cast<std::size_t>(c); }
  friend bool operator==(const Shape&, const Shape&) = default;
};

inline constexpr int kMaxSide = 16384;  // any image side, in a file or on the command line
// "28x28x1", "128x128x3" (also "28X28X1"); sides 1..kMaxSide, channels 1 or 3; nullopt for anything else.
std::optional<Shape> parse_shape(std::string_view text);
std::string shape_to_string(const Shape& s);  // "28x28x1"

// What a loaded data set may occupy as floats: a file that claims more is refused before allocation.
inline constexpr std::uint64_t kMaxDatasetBytes = std::uint64_t{4} << 30;  // 4 GiB
inline constexpr int kMaxClasses = 1000;

struct Dataset {
  Shape shape;
  int classes = 0;
  std::vector<float> images;             // size() images, each C x H x W (NCHW, contiguous), values in [0, 1]
  std::vector<int> labels;               // size() labels, each in [0, classes)
  std::vector<std::string> class_names;  // classes names: folder names, "0".."9", "airplane"...
  std::string source;                    // one line: "synthetic shapes, 4000 images, seed 1", "MNIST IDX: <file>", ...
  int skipped = 0;                       // unreadable or corrupt images left out (image folders)
  std::vector<std::string> skipped_examples;  // the first few (kMaxSkippedExamples), "<file>: <why>"
  [[nodiscard]] std::size_t size() const { return labels.size(); }
  // Image i's C*H*W floats.
  [[nodiscard]] const float* image(std::size_t i) const { return images.data() + i * shape.floats(); }
};
inline constexpr std::size_t kMaxSkippedExamples = 5;

// The synthetic set: `classes` kinds of rendered shapes (filled circle, square, triangle, ring, plus, X, horizontal
// bar, vertical bar, diamond, square frame) at a random position, size, small rotation and intensity (a random colour
// per image on 3 channels) over a noisy background. Balanced (image i has class i mod classes before a seeded
// shuffle), and deterministic: the same options give the same bytes. classes is clamped to 2..10, images to >= 0.
struct SyntheticOptions {
  int images = 4000;
  Shape shape;
  int classes = 10;
  std::uint64_t seed = 1;
};
Dataset synthetic(const SyntheticOptions& options);
inline constexpr int kSyntheticShapeKinds = 10;
// The names of the synthetic classes, in label order ("circle", "square", ...).
const std::vector<std::string>& synthetic_class_names();

// Byte parsers (pure, fuzzed): nullopt and *error in words for anything malformed (bad magic, sizes that do not
// agree, truncated, a label out of range, fewer than two classes).
// MNIST IDX: images 0x00000803 (N x rows x cols unsigned bytes, big-endian sizes), labels 0x00000801 (N bytes).
std::optional<Dataset> parse_mnist_idx(std::string_view images_file, std::string_view labels_file, std::string* error);
// CIFAR-10 binary batches (data_batch_*.bin, test_batch.bin): records of 1 label byte + 3072 bytes (the R, G and B
// planes of a 32x32 image), concatenated in the order given.
std::optional<Dataset> parse_cifar10(const std::vector<std::string_view>& batch_files, std::string* error);
inline constexpr std::size_t kCifarRecordBytes = 1 + 3 * 32 * 32;

// One image file (PNG or JPEG) in memory. Caps checked on the header (stbi_info_from_memory) before decoding.
struct ImageLimits {
  int max_side = kMaxSide;
  std::uint64_t max_pixels = std::uint64_t{64} << 20;  // 64 Mpixel: 256 MB decoded as RGBA at worst
};
struct ImageInfo {
  int h = 0, w = 0;
  int channels = 0;  // as stored: 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA
};
std::optional<ImageInfo> image_info(std::string_view file, std::string* error, const ImageLimits& limits = {});
// Decodes, converts to target.c channels (grey = ITU-R 601 luma; alpha dropped) and resizes to target.h x target.w;
// appends target.floats() floats (C x H x W, [0, 1]) to *out. false with *error (and *out unchanged) otherwise.
bool decode_image(std::string_view file, const Shape& target, std::vector<float>* out, std::string* error,
                  const ImageLimits& limits = {});

// Resizes every image of d (and converts its channels) to `target`; a no-op when the shape already matches.
void convert_shape(Dataset* d, const Shape& target);

// Loads `path`: a folder with one sub-folder per class of PNG/JPEG images (resized to `target`, or without one to
// the first image's size with each side capped at 128; grey when the first image is grey, else RGB; corrupt files
// counted in skipped), a folder holding MNIST IDX files (train-images-idx3-ubyte + train-labels-idx1-ubyte, or
// t10k-*; each plain or gzip-compressed, *.gz, as published), an IDX images file (its labels file beside it), a folder of CIFAR-10 batches (data_batch_*.bin, else
// test_batch.bin; also inside cifar-10-batches-bin/) or one .bin batch. IDX and CIFAR data are converted to `target`
// when one is given. nullopt with *error in words (missing path, empty folder, one class, corrupt file...).
std::optional<Dataset> load_data(const Fs& fs, const std::string& path, std::optional<Shape> target,
                                 std::string* error);
inline constexpr std::size_t kMaxImageFileBytes = std::size_t{64} << 20;

// The test split the files themselves define: for a folder holding MNIST-style IDX files of both splits
// (train-images-idx3-ubyte[.gz] and t10k-images-idx3-ubyte[.gz] with their labels), the t10k images (converted to
// `target` when given), which load_data leaves out. nullopt with *error empty when the data defines no such split;
// nullopt with *error set when the t10k files are there but cannot be read.
std::optional<Dataset> load_official_test(const Fs& fs, const std::string& path, std::optional<Shape> target,
                                          std::string* error);

// A deterministic, shuffled split: per class, round(n * test_fraction) images go to the test set, at least one in
// each side when the class has two or more (and test_fraction is in (0, 1)). Both sets are shuffled.
struct Split {
  Dataset train, test;
};
Split split(const Dataset& d, double test_fraction, std::uint64_t seed);
// The same split, made in d's own memory: the training side keeps d's buffer (its images moved into place), only the
// held-out side is copied, so the peak is d plus the held-out images rather than twice d.
Split split(Dataset&& d, double test_fraction, std::uint64_t seed);
// d's description without its images and labels: shape, classes, class names, source, what was skipped.
Dataset description_of(const Dataset& d);

// The generator every random choice here uses: splitmix64, written out so the same seed gives the same numbers with
// every compiler and standard library (std:: distributions do not).
struct SplitMix64 {
  std::uint64_t state;
  explicit SplitMix64(std::uint64_t seed) : state(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  float uniform() { return static_cast<float>(next() >> 40) * (1.0f / 16777216.0f); }  // [0, 1), 24 bits
  float uniform(float lo, float hi) { return lo + (hi - lo) * uniform(); }
  // [0, n) without modulo bias worth caring about (n << 2^64).
  std::uint64_t below(std::uint64_t n) { return n == 0 ? 0 : next() % n; }
};

// Fisher-Yates driven by `rng`: the same generator state gives the same order everywhere.
template <class T>
void shuffle(std::vector<T>& v, SplitMix64& rng) {
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.below(i)]);
}

}  // namespace gpuready::train
