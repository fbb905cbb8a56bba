// The file formats of `gpuready bench --data` (MNIST IDX, CIFAR-10 binary, image folders), which of them a path is,
// and the train/test split. The byte parsers check every size against the bytes present and the caps in dataset.h
// before allocating; load_data reads through Fs and names the file in every message.
#include "train/dataset.h"

#include <algorithm>
#include <cmath>

#include "parse/ascii.h"
#include "parse/decompress.h"

namespace gpuready::train {
namespace {

bool fail(std::string* error, std::string why) {
  if (error) *error = std::move(why);
  return false;
}

std::uint32_t be32(std::string_view b, std::size_t at) {
  return (static_cast<std::uint32_t>(static_cast<unsigned char>(b[at])) << 24) |
         (static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + 1])) << 16) |
         (static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + 2])) << 8) |
         static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + 3]));
}

std::string hex_magic(std::string_view b) {
  static const char* digits = "0123456789abcdef";
  std::string out = "0x";
  for (std::size_t i = 0; i < 4 && i < b.size(); ++i) {
    const auto c = static_cast<unsigned char>(b[i]);
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

// The IDX header of an unsigned-byte file with `dims` dimensions: its sizes, or false with the reason.
bool idx_header(std::string_view file, int dims, const char* what, std::vector<std::uint32_t>* sizes,
                std::string* error) {
  const std::size_t header = 4 + 4 * static_cast<std::size_t>(dims);
  if (file.size() < 4)
    return fail(error, std::string(what) + ": " + std::to_string(file.size()) + " bytes, no IDX header");
  if (file[0] != 0 || file[1] != 0)
    return fail(error, std::string(what) + ": not an IDX file (magic " + hex_magic(file) + ", expected 0x0000080" +
                           std::to_string(dims) + ")");
  if (static_cast<unsigned char>(file[2]) != 0x08)
    return fail(
        error, std::string(what) + ": IDX data type " + hex_magic(file.substr(2, 1)) + " is not unsigned bytes (0x08)");
  if (file[3] != dims)
    return fail(error, std::string(what) + ": IDX file with " + std::to_string(static_cast<unsigned char>(file[3])) +
                           " dimensions, expected " + std::to_string(dims) + " (magic " + hex_magic(file) + ")");
  if (file.size() < header)
    return fail(error, std::string(what) + ": truncated IDX header (" + std::to_string(file.size()) + " of " +
                           std::to_string(header) + " bytes)");
  sizes->clear();
  for (int i = 0; i < dims; ++i) sizes->push_back(be32(file, 4 + 4 * static_cast<std::size_t>(i)));
  return true;
}

// Payload size check shared by both IDX files and CIFAR: exact, with the two ways it can be wrong in words.
bool exact_size(std::string_view what, std::uint64_t have, std::uint64_t want, std::string* error) {
  if (have < want)
    return fail(error, std::string(what) + ": truncated: the header promises " + std::to_string(want) +
                           " bytes of data, the file has " + std::to_string(have));
  if (have > want)
    return fail(error,
                std::string(what) + ": " + std::to_string(have - want) + " bytes after the data the header describes");
  return true;
}

// classes = the largest label + 1; at least two distinct labels.
bool set_classes(Dataset* d, std::string* error) {
  int largest = -1;
  bool two = false;
  for (int l : d->labels) {
    if (largest >= 0 && l != d->labels.front()) two = true;
    largest = std::max(largest, l);
  }
  if (!two)
    return fail(error, d->labels.empty() ? std::string("no images")
                                         : "every image has label " + std::to_string(d->labels.front()) +
                                               ": training needs at least two classes");
  d->classes = std::max(d->classes, largest + 1);
  return true;
}

bool has_suffix(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && parse::iequals(s.substr(s.size() - suffix.size()), suffix);
}

std::string replace_first(std::string s, std::string_view from, std::string_view to) {
  const auto at = s.find(from);
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

std::optional<std::string> read_capped(const Fs& fs, const std::string& path, std::uint64_t cap, std::string* error) {
  std::string why;
  auto bytes = fs.read_file(path, static_cast<std::size_t>(cap) + 1, &why);
  if (!bytes) {
    fail(error, path + ": cannot read (" + why + ")");
    return std::nullopt;
  }
  if (bytes->size() > cap) {
    fail(error, path + ": larger than " + std::to_string(cap >> 20) + " MiB, more than a data set here may hold");
    return std::nullopt;
  }
  return bytes;
}

// An IDX file as stored (".gz": gzip-compressed, as MNIST and Fashion-MNIST are published and Debian's
// dataset-fashion-mnist installs them), its decompressed bytes capped at `cap`.
std::optional<std::string> read_idx_file(const Fs& fs, const std::string& path, std::uint64_t cap, std::string* error) {
  if (!has_suffix(path, ".gz")) return read_capped(fs, path, cap, error);
  if (!parse::can_decompress("gz")) {
    fail(error, path + ": compressed (.gz), and this build of gpuready has no zlib: decompress it first (gunzip)");
    return std::nullopt;
  }
  auto packed = read_capped(fs, path, cap, error);
  if (!packed) return std::nullopt;
  std::string why;
  auto bytes = parse::decompressed(*packed, "gz", static_cast<std::size_t>(cap), &why);
  if (!bytes) {
    fail(error, path + ": " + why);
    return std::nullopt;
  }
  return bytes;
}

// The labels file beside an images file: "images" -> "labels", "idx3" -> "idx1", compressed or not
// as found ("t10k-images-idx3-ubyte.gz" -> "t10k-labels-idx1-ubyte.gz", else without ".gz", or with it).
std::optional<std::string> labels_beside(const Fs& fs, const std::string& images_path, std::string* error) {
  const auto slash = images_path.find_last_of("/\\");
  const std::size_t name_at = slash == std::string::npos ? 0 : slash + 1;
  const std::string name = images_path.substr(name_at);
  if (name.find("images") == std::string::npos || name.find("idx3") == std::string::npos) {
    fail(error, images_path +
                    ": an IDX images file is found by its name (*images*idx3*), with its labels beside it "
                    "(*labels*idx1*)");
    return std::nullopt;
  }
  const std::string want =
      images_path.substr(0, name_at) + replace_first(replace_first(name, "images", "labels"), "idx3", "idx1");
  const std::string plain = has_suffix(want, ".gz") ? want.substr(0, want.size() - 3) : want;
  for (const std::string& p : {want, plain, plain + ".gz"})
    if (fs.exists(p)) return p;
  fail(error, want + ": the labels file of " + images_path + " is missing");
  return std::nullopt;
}

std::optional<Dataset> load_idx(const Fs& fs, const std::string& images_path, std::string* error) {
  const auto labels_path = labels_beside(fs, images_path, error);
  if (!labels_path) return std::nullopt;
  const auto images = read_idx_file(fs, images_path, kMaxDatasetBytes / sizeof(float) + 16, error);
  if (!images) return std::nullopt;
  const auto labels = read_idx_file(fs, *labels_path, (std::uint64_t{1} << 31), error);
  if (!labels) return std::nullopt;
  std::string why;
  auto d = parse_mnist_idx(*images, *labels, &why);
  if (!d) {
    fail(error, images_path + ": " + why);
    return std::nullopt;
  }
  d->source = "MNIST IDX: " + images_path + " (" + std::to_string(d->size()) + " images " + shape_to_string(d->shape) +
              ", " + std::to_string(d->classes) + " classes)";
  return d;
}

std::optional<Dataset> load_cifar(const Fs& fs, const std::vector<std::string>& files, const std::string& where,
                                  std::string* error) {
  std::vector<std::string> contents;
  std::uint64_t total = 0;
  for (const auto& f : files) {
    auto bytes = read_capped(fs, f, kMaxDatasetBytes / sizeof(float), error);
    if (!bytes) return std::nullopt;
    total += bytes->size();
    if (total > kMaxDatasetBytes / sizeof(float)) {
      fail(error, where + ": the CIFAR batches hold more than a data set here may (" +
                      std::to_string(kMaxDatasetBytes >> 30) + " GiB as floats)");
      return std::nullopt;
    }
    contents.push_back(std::move(*bytes));
  }
  std::vector<std::string_view> views(contents.begin(), contents.end());
  std::string why;
  auto d = parse_cifar10(views, &why);
  if (!d) {
    fail(error, where + ": " + why);
    return std::nullopt;
  }
  std::string names;
  for (const auto& f : files) names += (names.empty() ? "" : ", ") + path_file_name(f);
  d->source = "CIFAR-10 binary: " + (files.size() == 1 ? files.front() : where + " (" + names + ")") + ", " +
              std::to_string(d->size()) + " images";
  return d;
}

bool is_image_name(std::string_view name) {
  return has_suffix(name, ".png") || has_suffix(name, ".jpg") || has_suffix(name, ".jpeg");
}

inline constexpr int kDefaultMaxSide = 128;  // an image folder without --size: the first image, at most this per side
inline constexpr std::size_t kMaxImageFiles = 2'000'000;

std::optional<Dataset> load_image_folder(const Fs& fs, const std::string& path, const std::vector<DirEntry>& entries,
                                         std::optional<Shape> target, std::string* error) {
  struct ClassFiles {
    std::string name;
    std::vector<std::string> files;  // full paths, sorted by name
  };
  std::vector<ClassFiles> folders;
  std::size_t count = 0;
  for (const auto& e : entries) {
    if (!e.is_dir || e.name.empty() || e.name[0] == '.') continue;
    ClassFiles cf{e.name, {}};
    const std::string dir = join_path(path, e.name);
    std::string why;
    const auto files = fs.list_dir(dir, &why);
    if (!files) {
      fail(error, dir + ": cannot list (" + why + ")");
      return std::nullopt;
    }
    for (const auto& f : *files)
      if (!f.is_dir && is_image_name(f.name)) cf.files.push_back(join_path(dir, f.name));
    std::sort(cf.files.begin(), cf.files.end());
    count += cf.files.size();
    folders.push_back(std::move(cf));
  }
  std::sort(folders.begin(), folders.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  if (folders.empty()) {
    fail(error, path +
                    ": no class sub-folders, MNIST IDX files (train-images-idx3-ubyte) or CIFAR-10 batches "
                    "(data_batch_*.bin) here");
    return std::nullopt;
  }
  if (count == 0) {
    fail(error, path + ": no PNG or JPEG images in its " + std::to_string(folders.size()) + " sub-folder(s)");
    return std::nullopt;
  }
  if (count > kMaxImageFiles) {
    fail(error, path + ": " + std::to_string(count) + " images, more than the " + std::to_string(kMaxImageFiles) +
                    " a data set here may hold");
    return std::nullopt;
  }

  Dataset d;
  auto skip = [&d](const std::string& file, const std::string& why) {
    ++d.skipped;
    if (d.skipped_examples.size() < kMaxSkippedExamples) d.skipped_examples.push_back(file + ": " + why);
  };
  std::optional<Shape> shape = target;
  auto too_big = [&] { return static_cast<std::uint64_t>(count) * shape->floats() * sizeof(float) > kMaxDatasetBytes; };
  auto refuse = [&] {
    fail(error, path + ": " + std::to_string(count) + " images of " + shape_to_string(*shape) + " need more than " +
                    std::to_string(kMaxDatasetBytes >> 30) + " GiB; choose a smaller --size");
    return std::nullopt;
  };
  if (shape && too_big()) return refuse();  // before decoding anything
  std::string bytes_error;
  int label = 0;
  for (const auto& folder : folders) {
    std::size_t loaded = 0;
    for (const auto& file : folder.files) {
      auto bytes = read_capped(fs, file, kMaxImageFileBytes, &bytes_error);
      if (!bytes) {
        ++d.skipped;
        if (d.skipped_examples.size() < kMaxSkippedExamples) d.skipped_examples.push_back(bytes_error);
        continue;
      }
      std::string why;
      if (!shape) {  // the first readable image sets the shape
        const auto info = image_info(*bytes, &why);
        if (!info) {
          skip(file, why);
          continue;
        }
        const double scale = std::min(1.0, static_cast<double>(kDefaultMaxSide) / std::max(info->h, info->w));
        shape = Shape{std::max(1, static_cast<int>(std::lround(info->h * scale))),
                      std::max(1, static_cast<int>(std::lround(info->w * scale))), info->channels >= 3 ? 3 : 1};
        if (too_big()) return refuse();
      }
      if (!decode_image(*bytes, *shape, &d.images, &why)) {
        skip(file, why);
        continue;
      }
      d.labels.push_back(label);
      ++loaded;
    }
    if (loaded > 0) {  // a folder whose every image is corrupt is no class (its files are counted in skipped)
      d.class_names.push_back(folder.name);
      ++label;
    }
  }
  d.classes = label;
  if (d.classes < 2) {
    std::string msg = path + ": training needs images in at least two class sub-folders; " +
                      (d.classes == 0 ? std::string("none has a readable image")
                                      : "only " + d.class_names.front() + " has readable images");
    if (d.skipped > 0)
      msg += " (" + std::to_string(d.skipped) + " unreadable, e.g. " + d.skipped_examples.front() + ")";
    fail(error, msg);
    return std::nullopt;
  }
  d.shape = *shape;
  d.source = "image folder: " + path + " (" + std::to_string(d.size()) + " images in " + std::to_string(d.classes) +
             " classes, as " + shape_to_string(d.shape) + ")";
  return d;
}

bool valid_shape(const Shape& s) {
  return s.h >= 1 && s.w >= 1 && s.h <= kMaxSide && s.w <= kMaxSide && (s.c == 1 || s.c == 3);
}

}  // namespace

std::optional<Shape> parse_shape(std::string_view text) {
  Shape s;
  int* parts[] = {&s.h, &s.w, &s.c};
  std::size_t at = 0;
  for (int i = 0; i < 3; ++i) {
    if (i > 0) {
      if (at >= text.size() || parse::to_lower(text[at]) != 'x') return std::nullopt;
      ++at;
    }
    const std::size_t start = at;
    long value = 0;
    while (at < text.size() && parse::is_digit(text[at]) && at - start < 6) value = value * 10 + (text[at++] - '0');
    if (at == start || (at < text.size() && parse::is_digit(text[at]))) return std::nullopt;
    *parts[i] = static_cast<int>(value);
  }
  if (at != text.size() || !valid_shape(s)) return std::nullopt;
  return s;
}

std::string shape_to_string(const Shape& s) {
  return std::to_string(s.h) + "x" + std::to_string(s.w) + "x" + std::to_string(s.c);
}

std::optional<Dataset> parse_mnist_idx(std::string_view images_file, std::string_view labels_file, std::string* error) {
  std::vector<std::uint32_t> dims;
  if (!idx_header(images_file, 3, "images", &dims, error)) return std::nullopt;
  const std::uint64_t n = dims[0], rows = dims[1], cols = dims[2];
  if (rows < 1 || cols < 1 || rows > kMaxSide || cols > kMaxSide) {
    fail(error, "images: " + std::to_string(rows) + "x" + std::to_string(cols) + " is not an image size (1 to " +
                    std::to_string(kMaxSide) + " per side)");
    return std::nullopt;
  }
  const std::uint64_t payload = n * rows * cols;  // < 2^32 * 2^28: no overflow
  if (payload * sizeof(float) > kMaxDatasetBytes) {
    fail(error, "images: " + std::to_string(n) + " images of " + std::to_string(rows) + "x" + std::to_string(cols) +
                    " need more than " + std::to_string(kMaxDatasetBytes >> 30) + " GiB as floats");
    return std::nullopt;
  }
  if (!exact_size("images", images_file.size() - 16, payload, error)) return std::nullopt;
  std::vector<std::uint32_t> label_dims;
  if (!idx_header(labels_file, 1, "labels", &label_dims, error)) return std::nullopt;
  if (!exact_size("labels", labels_file.size() - 8, label_dims[0], error)) return std::nullopt;
  if (label_dims[0] != n) {
    fail(error, std::to_string(label_dims[0]) + " labels for " + std::to_string(n) + " images");
    return std::nullopt;
  }
  if (n == 0) {
    fail(error, "no images");
    return std::nullopt;
  }
  Dataset d;
  d.shape = Shape{static_cast<int>(rows), static_cast<int>(cols), 1};
  d.labels.resize(n);
  for (std::size_t i = 0; i < n; ++i) d.labels[i] = static_cast<unsigned char>(labels_file[8 + i]);
  if (!set_classes(&d, error)) return std::nullopt;
  for (int c = 0; c < d.classes; ++c) d.class_names.push_back(std::to_string(c));
  d.images.resize(payload);
  for (std::size_t i = 0; i < payload; ++i)
    d.images[i] = static_cast<float>(static_cast<unsigned char>(images_file[16 + i])) * (1.0f / 255.0f);
  d.source = "MNIST IDX (" + std::to_string(n) + " images " + shape_to_string(d.shape) + ")";
  return d;
}

std::optional<Dataset> parse_cifar10(const std::vector<std::string_view>& batch_files, std::string* error) {
  if (batch_files.empty()) {
    fail(error, "no CIFAR-10 batch");
    return std::nullopt;
  }
  std::uint64_t records = 0;
  for (std::size_t f = 0; f < batch_files.size(); ++f) {
    const auto size = batch_files[f].size();
    const std::string which = batch_files.size() > 1 ? "batch " + std::to_string(f + 1) + ": " : "";
    if (size == 0) {
      fail(error, which + "empty file");
      return std::nullopt;
    }
    if (size % kCifarRecordBytes != 0) {
      std::string why = which + std::to_string(size) + " bytes is not a whole number of " +
                        std::to_string(kCifarRecordBytes) + "-byte CIFAR-10 records (" +
                        std::to_string(size / kCifarRecordBytes) + " records and " +
                        std::to_string(size % kCifarRecordBytes) + " bytes: truncated?)";
      if (size % (kCifarRecordBytes + 1) == 0) why += "; 3074-byte records are CIFAR-100, which is not supported";
      fail(error, why);
      return std::nullopt;
    }
    records += size / kCifarRecordBytes;
  }
  const Shape shape{32, 32, 3};
  if (records * shape.floats() * sizeof(float) > kMaxDatasetBytes) {
    fail(error, std::to_string(records) + " CIFAR-10 records need more than " + std::to_string(kMaxDatasetBytes >> 30) +
                    " GiB as floats");
    return std::nullopt;
  }
  Dataset d;
  d.shape = shape;
  d.classes = 10;
  d.class_names = {"airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"};
  d.labels.reserve(records);
  d.images.reserve(records * shape.floats());
  for (std::size_t f = 0; f < batch_files.size(); ++f) {
    const auto b = batch_files[f];
    for (std::size_t at = 0; at < b.size(); at += kCifarRecordBytes) {
      const int label = static_cast<unsigned char>(b[at]);
      if (label >= 10) {
        fail(error, (batch_files.size() > 1 ? "batch " + std::to_string(f + 1) + ": " : std::string()) + "record " +
                        std::to_string(at / kCifarRecordBytes + 1) + " has label " + std::to_string(label) +
                        ", CIFAR-10 labels are 0 to 9");
        return std::nullopt;
      }
      d.labels.push_back(label);
      for (std::size_t i = 1; i < kCifarRecordBytes; ++i)  // R, G, B planes: already C x H x W
        d.images.push_back(static_cast<float>(static_cast<unsigned char>(b[at + i])) * (1.0f / 255.0f));
    }
  }
  if (!set_classes(&d, error)) return std::nullopt;
  d.source = "CIFAR-10 binary (" + std::to_string(records) + " images)";
  return d;
}

// The names an IDX images file of one split goes by: "train-images-idx3-ubyte" as published,
// "train-images.idx3-ubyte" as some copies have it, each also gzip-compressed.
std::vector<std::string> idx_names(const std::string& split_name) {
  std::vector<std::string> out;
  for (const char* form : {"-images-idx3-ubyte", "-images.idx3-ubyte"})
    for (const char* ext : {"", ".gz"}) out.push_back(split_name + form + ext);
  return out;
}

std::optional<Dataset> load_data(const Fs& fs, const std::string& path, std::optional<Shape> target,
                                 std::string* error) {
  if (target && !valid_shape(*target)) {
    fail(error, "size " + shape_to_string(*target) + ": sides 1 to " + std::to_string(kMaxSide) + ", channels 1 or 3");
    return std::nullopt;
  }
  if (path.empty() || !fs.exists(path)) {
    fail(error, (path.empty() ? std::string("(empty path)") : path) + ": no such file or folder");
    return std::nullopt;
  }
  std::optional<Dataset> d;
  if (fs.is_dir(path)) {
    std::string why;
    auto entries = fs.list_dir(path, &why);
    if (!entries) {
      fail(error, path + ": cannot list (" + why + ")");
      return std::nullopt;
    }
    std::sort(entries->begin(), entries->end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    auto has_file = [&](std::string_view name) {
      return std::any_of(entries->begin(), entries->end(), [&](const auto& e) { return !e.is_dir && e.name == name; });
    };
    for (const auto& e : *entries)
      if (e.is_dir && e.name == "cifar-10-batches-bin") return load_data(fs, join_path(path, e.name), target, error);
    // MNIST (and Fashion-MNIST): the training files first, plain or gzip-compressed as published.
    for (const auto& name : idx_names("train"))
      if (has_file(name)) {
        d = load_idx(fs, join_path(path, name), error);
        if (!d) return std::nullopt;
        break;
      }
    if (!d)
      for (const auto& name : idx_names("t10k"))
        if (has_file(name)) {
          d = load_idx(fs, join_path(path, name), error);
          if (!d) return std::nullopt;
          break;
        }
    if (!d) {
      std::vector<std::string> batches;
      for (const auto& e : *entries)
        if (!e.is_dir && e.name.rfind("data_batch_", 0) == 0 && has_suffix(e.name, ".bin"))
          batches.push_back(join_path(path, e.name));
      if (batches.empty() && has_file("test_batch.bin")) batches.push_back(join_path(path, "test_batch.bin"));
      if (!batches.empty()) {
        d = load_cifar(fs, batches, path, error);
        if (!d) return std::nullopt;
      }
    }
    if (!d) {
      const bool any_dir = std::any_of(entries->begin(), entries->end(), [](const auto& e) { return e.is_dir; });
      const bool gz = std::any_of(entries->begin(), entries->end(), [](const auto& e) {
        return !e.is_dir && has_suffix(e.name, ".gz") && e.name.find("idx") != std::string::npos;
      });
      if (!any_dir && gz) {
        fail(error, path + ": the compressed IDX files here are not named as MNIST's (train-images-idx3-ubyte.gz and "
                           "train-labels-idx1-ubyte.gz, or t10k-*)");
        return std::nullopt;
      }
      return load_image_folder(fs, path, *entries, target, error);
    }
  } else if (has_suffix(path, ".bin")) {
    d = load_cifar(fs, {path}, path, error);
  } else {
    std::string why;
    const auto head = fs.read_file(path, 4, &why);
    if (!head) {
      fail(error, path + ": cannot read (" + why + ")");
      return std::nullopt;
    }
    const bool gz_idx = head->size() >= 2 && static_cast<unsigned char>((*head)[0]) == 0x1f &&
                        static_cast<unsigned char>((*head)[1]) == 0x8b && has_suffix(path, ".gz");
    if (gz_idx) {
      d = load_idx(fs, path, error);
    } else if (head->size() == 4 && (*head)[0] == 0 && (*head)[1] == 0 && (*head)[2] == 8 && (*head)[3] == 3) {
      d = load_idx(fs, path, error);
    } else if (head->size() == 4 && (*head)[0] == 0 && (*head)[1] == 0 && (*head)[2] == 8 && (*head)[3] == 1) {
      fail(error, path + ": an IDX labels file; give the images file (*images*idx3*) or their folder");
    } else {
      fail(error, path +
                      ": not a data set this loader reads (a folder of class sub-folders, MNIST IDX files, "
                      "CIFAR-10 .bin batches)");
    }
  }
  if (!d) return std::nullopt;
  if (target) convert_shape(&*d, *target);
  return d;
}

std::optional<Dataset> load_official_test(const Fs& fs, const std::string& path, std::optional<Shape> target,
                                         std::string* error) {
  if (error) error->clear();
  if (path.empty() || !fs.is_dir(path)) return std::nullopt;
  std::string why;
  const auto entries = fs.list_dir(path, &why);
  if (!entries) return std::nullopt;
  auto has_file = [&](const std::string& name) {
    return std::any_of(entries->begin(), entries->end(), [&](const auto& e) { return !e.is_dir && e.name == name; });
  };
  const auto names_train = idx_names("train");
  if (std::none_of(names_train.begin(), names_train.end(), has_file)) return std::nullopt;  // t10k alone is the data
  for (const auto& name : idx_names("t10k")) {
    if (!has_file(name)) continue;
    auto d = load_idx(fs, join_path(path, name), error);
    if (!d) return std::nullopt;
    if (target) convert_shape(&*d, *target);
    return d;
  }
  return std::nullopt;
}

namespace {

// Which images go to each side, in their final (shuffled) order; images whose label is out of range go nowhere.
void split_indices(const Dataset& d, double test_fraction, std::uint64_t seed, std::vector<std::size_t>* train_idx,
                   std::vector<std::size_t>* test_idx) {
  if (!(test_fraction > 0.0)) test_fraction = 0.0;  // NaN too
  test_fraction = std::min(test_fraction, 1.0);
  SplitMix64 rng(seed ^ 0x5EED5EED5EED5EEDull);
  std::vector<std::vector<std::size_t>> by_class(static_cast<std::size_t>(std::max(d.classes, 0)));
  for (std::size_t i = 0; i < d.size(); ++i)
    if (d.labels[i] >= 0 && d.labels[i] < d.classes) by_class[static_cast<std::size_t>(d.labels[i])].push_back(i);
  for (auto& members : by_class) {
    const std::size_t n = members.size();
    shuffle(members, rng);
    auto n_test = static_cast<std::size_t>(std::llround(static_cast<double>(n) * test_fraction));
    if (n >= 2 && test_fraction > 0.0 && test_fraction < 1.0) n_test = std::clamp<std::size_t>(n_test, 1, n - 1);
    n_test = std::min(n_test, n);
    test_idx->insert(test_idx->end(), members.begin(), members.begin() + static_cast<std::ptrdiff_t>(n_test));
    train_idx->insert(train_idx->end(), members.begin() + static_cast<std::ptrdiff_t>(n_test), members.end());
  }
  shuffle(*train_idx, rng);
  shuffle(*test_idx, rng);
}

// A set with d's description and the images idx names, copied.
Dataset gather(const Dataset& d, const std::vector<std::size_t>& idx) {
  Dataset out = description_of(d);
  const std::size_t floats = d.shape.floats();
  out.images.reserve(idx.size() * floats);
  out.labels.reserve(idx.size());
  for (std::size_t i : idx) {
    out.images.insert(out.images.end(), d.image(i), d.image(i) + floats);
    out.labels.push_back(d.labels[i]);
  }
  return out;
}

}  // namespace

Dataset description_of(const Dataset& d) {
  Dataset out;
  out.shape = d.shape;
  out.classes = d.classes;
  out.class_names = d.class_names;
  out.source = d.source;
  out.skipped = d.skipped;
  out.skipped_examples = d.skipped_examples;
  return out;
}

Split split(const Dataset& d, double test_fraction, std::uint64_t seed) {
  std::vector<std::size_t> train_idx, test_idx;
  split_indices(d, test_fraction, seed, &train_idx, &test_idx);
  Split s;
  s.train = gather(d, train_idx);
  s.test = gather(d, test_idx);
  return s;
}

Split split(Dataset&& d, double test_fraction, std::uint64_t seed) {
  std::vector<std::size_t> train_idx, test_idx;
  split_indices(d, test_fraction, seed, &train_idx, &test_idx);
  Split s;
  s.test = gather(d, test_idx);  // the smaller side, copied
  // The training side in d's own buffer: image j becomes image train_idx[j], moved in place along the cycles of
  // a permutation that continues train_idx with the images left over (their places are cut off afterwards).
  const std::size_t n = d.size(), floats = d.shape.floats(), kept = train_idx.size();
  std::vector<std::size_t> from = std::move(train_idx);
  std::vector<char> used(n, 0), done(n, 0);
  for (std::size_t i : from) used[i] = 1;
  for (std::size_t i = 0; i < n; ++i)
    if (!used[i]) from.push_back(i);
  std::vector<int> labels(kept);
  for (std::size_t j = 0; j < kept; ++j) labels[j] = d.labels[from[j]];
  std::vector<float> held(floats);
  float* img = d.images.data();
  for (std::size_t start = 0; start < kept; ++start) {
    if (done[start] || from[start] == start) continue;
    std::copy(img + start * floats, img + (start + 1) * floats, held.begin());
    std::size_t j = start;
    while (true) {
      done[j] = 1;
      const std::size_t k = from[j];
      if (k == start) {
        std::copy(held.begin(), held.end(), img + j * floats);
        break;
      }
      std::copy(img + k * floats, img + (k + 1) * floats, img + j * floats);
      j = k;
    }
  }
  d.images.resize(kept * floats);  // no reallocation: the cut-off tail stays reserved, not copied
  d.labels = std::move(labels);
  s.train = std::move(d);
  return s;
}

}  // namespace gpuready::train
