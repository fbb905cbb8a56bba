// The GPU-relevant packages of one Python environment, read from files only: dist-info
// METADATA / egg-info PKG-INFO in each site folder, torch/version.py, TensorFlow's
// build_info.py, nvidia-* wheels' RECORD (for their library folder), and conda-meta.
#include <algorithm>
#include <array>
#include <cctype>
#include <iterator>
#include <string_view>

#include "parse/python_metadata.h"
#include "parse/tf_build_info.h"
#include "parse/torch_version.h"
#include "probe/python_internal.h"

namespace gpuready::python {
namespace {

constexpr size_t kMaxSiteEntries = 20000;
constexpr size_t kMetadataBytes = 32 * 1024;  // Name/Version are the first headers
constexpr size_t kRecordBytes = 256 * 1024;
constexpr size_t kVersionFileBytes = 64 * 1024;

constexpr std::string_view kExact[] = {
    "tensorflow", "tensorflow-gpu", "tensorflow-cpu", "tensorflow-intel", "tf-nightly",       "tf-nightly-gpu",
    "tf-keras",   "keras",          "torch",          "torchvision",      "torchaudio",       "jax",
    "jaxlib",     "numpy",          "cupy",           "onnxruntime-gpu",  "paddlepaddle-gpu", "triton"};
// Prefixes: every nvidia-* wheel (CUDA libraries), cupy-cudaNNx, TensorRT, JAX's CUDA plugins.
constexpr std::array<std::string_view, 4> kPrefixes = {"nvidia-", "cupy-", "tensorrt", "jax-cuda"};

constexpr std::array<std::string_view, 6> kTensorflow = {"tensorflow",       "tensorflow-gpu", "tensorflow-cpu",
                                                         "tensorflow-intel", "tf-nightly",     "tf-nightly-gpu"};

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

void add_problem(PythonPackage& p, const std::string& problem) {
  std::string& d = p.details["problem"];
  d += (d.empty() ? "" : "; ") + problem;
}

std::string read(const Os& os, const std::string& path, size_t cap, std::string* err) {
  auto t = os.fs.read_file(path, cap, err);
  return t ? *t : std::string();
}

// "12" from "nvidia-cudnn-cu12", "cupy-cuda12x", "jax-cuda13-plugin"; "" when the name has none.
std::string cuda_major_in_name(const std::string& n) {
  for (std::string_view marker : {"-cu", "-cuda"}) {
    size_t pos = 0;
    while ((pos = n.find(marker, pos)) != std::string::npos) {
      size_t i = pos + marker.size();
      size_t j = i;
      while (j < n.size() && std::isdigit(static_cast<unsigned char>(n[j]))) ++j;
      const bool ends = j == n.size() || n[j] == '-' || n[j] == 'x';
      if (j - i >= 2 && j - i <= 3 && ends) return n.substr(i, 2);
      pos = i;
    }
  }
  return {};
}

// Where an nvidia-* wheel put its libraries: the folder of the first shared library its RECORD
// lists ("nvidia/cudnn/lib/libcudnn.so.9", "nvidia/cu13/lib/libcublas.so.13", Windows
// "nvidia/cudnn/bin/cudnn64_9.dll").
std::string nvidia_lib_dir(const Os& os, const std::string& site, const std::string& dist_info,
                           const std::string& name) {
  std::string err;
  const std::string record = read(os, join(join(site, dist_info), "RECORD"), kRecordBytes, &err);
  size_t pos = 0;
  while (pos < record.size()) {
    size_t eol = record.find('\n', pos);
    if (eol == std::string::npos) eol = record.size();
    std::string_view line(record.data() + pos, eol - pos);
    pos = eol + 1;
    line = line.substr(0, line.find(','));
    if (!starts_with(line, "nvidia/")) continue;
    const bool lib = line.find(".so") != std::string_view::npos || line.find(".dll") != std::string_view::npos;
    const size_t slash = line.rfind('/');
    const std::string_view dir = line.substr(0, slash);
    if (!lib || (dir.size() < 4) || (dir.substr(dir.size() - 4) != "/lib" && dir.substr(dir.size() - 4) != "/bin"))
      continue;
    const std::string full = join(site, std::string(dir));
    if (os.fs.is_dir(full)) return full;
  }
  // No RECORD (or nothing in it): the CUDA 12 layout, nvidia/<component>/lib.
  std::string comp = name.substr(7);  // after "nvidia-"
  const std::string major = cuda_major_in_name(name);
  if (!major.empty()) {
    const std::string suffix = "-cu" + major;
    if (comp.size() > suffix.size() && comp.substr(comp.size() - suffix.size()) == suffix)
      comp.resize(comp.size() - suffix.size());
  }
  std::replace(comp.begin(), comp.end(), '-', '_');
  for (const std::string& c : {comp, starts_with(comp, "cuda_") ? comp.substr(5) : std::string()}) {
    if (c.empty()) continue;
    for (const char* leaf : {"lib", "bin"}) {
      const std::string full = join(join(join(site, "nvidia"), c), leaf);
      if (os.fs.is_dir(full)) return full;
    }
  }
  return {};
}

void torch_details(const Os& os, const std::string& site, PythonPackage& p) {
  std::string err;
  auto text = os.fs.read_file(join(site, "torch/version.py"), kVersionFileBytes, &err);
  if (!text) {
    add_problem(p, "torch/version.py is missing (" + err + "): the torch install is incomplete");
    return;
  }
  const auto tv = parse::torch_version(*text);
  // uv and some indexes keep "2.11.0" in METADATA while the build is "2.11.0+cu130": the
  // generated version.py knows the build.
  if (tv.version && *tv.version != p.version && starts_with(*tv.version, p.version + "+")) {
    p.details["metadata_version"] = p.version;
    p.version = *tv.version;
  } else if (tv.version && *tv.version != p.version) {
    p.details["version_py"] = *tv.version;
  }
  if (tv.cuda_present) p.details["cuda"] = tv.cuda.value_or("none");
  if (tv.hip) p.details["hip"] = *tv.hip;
  if (tv.rocm) p.details["rocm"] = *tv.rocm;
  const std::string variant = parse::torch_variant(p.version, tv.cuda, tv.hip.has_value(), tv.cuda_present);
  if (!variant.empty()) p.details["variant"] = variant;
}

void tensorflow_details(const Os& os, const std::string& site, PythonPackage& p) {
  std::string err;
  auto text = os.fs.read_file(join(site, "tensorflow/python/platform/build_info.py"), kVersionFileBytes, &err);
  if (!text) {
    add_problem(p, "tensorflow/python/platform/build_info.py is missing (" + err + ")");
    return;
  }
  const auto b = parse::tf_build_info(*text);
  if (b.cuda_version) p.details["cuda_version"] = *b.cuda_version;
  if (b.cudnn_version) p.details["cudnn_version"] = *b.cudnn_version;
  if (b.cuda_version_raw && b.cuda_version_raw != b.cuda_version) p.details["cuda_version_raw"] = *b.cuda_version_raw;
  if (b.cudnn_version_raw && b.cudnn_version_raw != b.cudnn_version)
    p.details["cudnn_version_raw"] = *b.cudnn_version_raw;
  if (b.is_cuda_build) p.details["is_cuda_build"] = *b.is_cuda_build ? "true" : "false";
  if (b.is_rocm_build && *b.is_rocm_build) p.details["is_rocm_build"] = "true";
  if (b.cudart_dll_name) p.details["cudart_dll_name"] = *b.cudart_dll_name;
  if (b.cudnn_dll_name) p.details["cudnn_dll_name"] = *b.cudnn_dll_name;
  if (b.empty()) add_problem(p, "tensorflow/python/platform/build_info.py has no build facts");
}

// Conda's own CUDA packages and framework builds ("pytorch-2.1.0-py3.11_cuda12.1_cudnn8.9.2_0").
bool is_relevant_conda(const std::string& n) {
  static constexpr std::array<std::string_view, 15> names = {
      "cudatoolkit",     "cudnn",  "nccl", "tensorrt",  "pytorch",  "pytorch-cuda", "tensorflow", "tensorflow-gpu",
      "tensorflow-base", "jaxlib", "cupy", "libcublas", "libcufft", "libcurand",    "libcusparse"};
  if (std::find(names.begin(), names.end(), n) != names.end()) return true;
  return starts_with(n, "cuda-") || starts_with(n, "libcusolver") || starts_with(n, "libnvjitlink") ||
         starts_with(n, "libcudnn");
}

// "cuda12.1" / "cudnn8.9.2" inside a conda build string.
std::string build_tag(const std::string& build, const std::string& tag) {
  size_t pos = 0;
  while ((pos = build.find(tag, pos)) != std::string::npos) {
    size_t i = pos + tag.size();
    size_t j = i;
    while (j < build.size() && (std::isdigit(static_cast<unsigned char>(build[j])) || build[j] == '.')) ++j;
    if (j > i && std::isdigit(static_cast<unsigned char>(build[i]))) return build.substr(i, j - i);
    pos = i;
  }
  return {};
}

}  // namespace

bool is_relevant_package(const std::string& n) {
  if (std::find(std::begin(kExact), std::end(kExact), n) != std::end(kExact)) return true;
  return std::any_of(kPrefixes.begin(), kPrefixes.end(), [&](std::string_view p) { return starts_with(n, p); });
}

std::vector<PythonPackage> scan_site_packages(const Os& os, const std::string& site, std::string* error) {
  std::vector<PythonPackage> out;
  std::string err;
  auto entries = os.fs.list_dir(site, &err);
  if (!entries) {
    if (error) *error = err;
    return out;
  }
  std::vector<DirEntry> items(entries->begin(), entries->begin() + std::min(entries->size(), kMaxSiteEntries));
  std::sort(items.begin(), items.end(), [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
  for (const auto& e : items) {
    const auto folder = parse::dist_folder_name(e.name);
    if (!folder) continue;
    const std::string guess = parse::normalize_package_name(folder->name);
    if (!is_relevant_package(guess)) continue;  // read METADATA only for the packages we report

    PythonPackage p;
    p.location = join(site, e.name);
    std::string meta_path = p.location;  // an egg-info may be a single PKG-INFO file (Debian)
    if (e.is_dir) meta_path = join(p.location, folder->kind == "dist-info" ? "METADATA" : "PKG-INFO");
    std::string merr;
    auto text = os.fs.read_file(meta_path, kMetadataBytes, &merr);
    const auto meta = text ? parse::core_metadata(*text) : parse::CoreMetadata{};
    if (meta.ok()) {
      p.name = parse::normalize_package_name(meta.name);
      p.version = meta.version;
      if (!is_relevant_package(p.name)) continue;
    } else {
      p.name = guess;
      p.version = folder->version;
      p.details["version_source"] = "folder name";
      add_problem(p, text ? base_name(meta_path) + " has no Name/Version headers"
                          : base_name(meta_path) + " is missing or unreadable (" + merr + ")");
    }
    if (p.name == "torch") torch_details(os, site, p);
    if (std::find(kTensorflow.begin(), kTensorflow.end(), p.name) != kTensorflow.end()) tensorflow_details(os, site, p);
    if (starts_with(p.name, "nvidia-") && folder->kind == "dist-info") {
      const std::string dir = nvidia_lib_dir(os, site, e.name, p.name);
      if (!dir.empty()) p.details["lib_dir"] = dir;
    }
    if (starts_with(p.name, "nvidia-") || starts_with(p.name, "cupy-") || starts_with(p.name, "jax-cuda")) {
      const std::string major = cuda_major_in_name(p.name);
      if (!major.empty()) p.details["cuda_major"] = major;
    }
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<PythonPackage> scan_conda_meta(const Os& os, const std::string& prefix) {
  std::vector<PythonPackage> out;
  std::string err;
  const std::string dir = join(prefix, "conda-meta");
  auto entries = os.fs.list_dir(dir, &err);
  if (!entries) return out;
  std::vector<std::string> names;
  for (size_t i = 0; i < entries->size() && i < kMaxSiteEntries; ++i) names.push_back((*entries)[i].name);
  std::sort(names.begin(), names.end());
  for (const auto& n : names) {
    auto c = parse::conda_meta_name(n);
    if (!c || !is_relevant_conda(c->name)) continue;
    PythonPackage p;
    p.name = c->name;
    p.version = c->version;
    p.location = join(dir, n);
    p.details["installer"] = "conda";
    p.details["build"] = c->build;
    if (c->name == "pytorch" || c->name == "tensorflow-base" || c->name == "tensorflow" || c->name == "jaxlib") {
      const std::string cuda = build_tag(c->build, "cuda");
      const std::string cudnn = build_tag(c->build, "cudnn");
      if (!cuda.empty()) p.details["cuda"] = cuda;
      if (!cudnn.empty()) p.details["cudnn"] = cudnn;
      if (c->build.find("cpu") != std::string::npos) p.details["variant"] = "cpu";
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace gpuready::python
