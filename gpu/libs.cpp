// gpu/libs.h: run-time loading for the module, through the platform's DynLib (dlopen /
// LoadLibraryExW of absolute paths only: gpuready's probe names every file).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "libs.h"
#include "platform/os.h"

namespace gpuready::gpu {
namespace {

// The cuBLASLt file that belongs to a cuBLAS file: "libcublas.so.13" -> "libcublasLt.so.13",
// "cublas64_12.dll" -> "cublasLt64_12.dll"; "" when the name is not cuBLAS'.
std::string lt_name(const std::string& cublas_file) {
  const auto at = cublas_file.find("cublas");
  if (at == std::string::npos) return "";
  const std::string rest = cublas_file.substr(at + 6);
  // Only the library itself: "libcublas.so.13" / "cublas64_12.dll", with a version after the name.
  if (rest.rfind(".so.", 0) != 0 && rest.rfind("64_", 0) != 0) return "";
  std::string lt = cublas_file;
  lt.insert(at + 6, "Lt");
  return lt;
}

template <class Table>
bool bind_symbol(const Lib& lib, const char* name, Table* slot, bool required, std::string* missing) {
  void* s = lib_symbol(lib, name);
  *slot = reinterpret_cast<Table>(s);
  if (!s && required) {
    if (!missing->empty()) *missing += ", ";
    *missing += name;
  }
  return s != nullptr;
}

}  // namespace

Lib open_lib(const std::string& path, std::string* error) {
  const DynLib& dl = real_os().dl;
  Lib lib;
  const DynLib::Handle h = dl.open(path, error);
  if (!h) return lib;
  lib.handle = h.raw;
  lib.path = dl.path_of(h, nullptr).value_or(path);
  return lib;
}

void* lib_symbol(const Lib& lib, const char* name) { return real_os().dl.symbol(DynLib::Handle{lib.handle}, name); }

std::vector<std::string> loaded_files(const std::vector<std::string>& needles) {
  std::vector<std::string> out;
  for (const auto& name : real_os().dl.loaded_files()) {
    std::string base = path_file_name(name);
    std::transform(base.begin(), base.end(), base.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (const auto& n : needles)
      if (base.find(n) != std::string::npos) {
        out.push_back(name);
        break;
      }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string cudnn_version_words(std::size_t v) {
  if (v >= 10000) return fmt::format("{}.{}.{}", v / 10000, v % 10000 / 100, v % 100);
  return fmt::format("{}.{}.{}", v / 1000, v % 1000 / 100, v % 100);
}

std::string Cublas::status(cublasStatus_t rc) const {
  const char* s = cublasGetStatusString ? cublasGetStatusString(rc) : nullptr;
  return s ? fmt::format("{} ({})", s, rc) : fmt::format("cuBLAS status {}", rc);
}
std::string Cudnn::status(cudnnStatus_t rc) const {
  const char* s = cudnnGetErrorString ? cudnnGetErrorString(rc) : nullptr;
  return s ? fmt::format("{} ({})", s, rc) : fmt::format("cuDNN status {}", rc);
}

bool load_cublas(const std::vector<std::string>& candidates, Cublas* out, std::string* why) {
  if (candidates.empty()) {
    *why = "no cuBLAS: the probe found no copy of cuBLAS 11, 12 or 13 that this driver can run";
    return false;
  }
  std::string attempts;
  for (const auto& c : candidates) {
    std::string err;
    // cuBLAS needs the cuBLASLt of its own version: load the one beside it first, so the loader
    // cannot take another folder's (or fail where the folder is not on its path).
    if (const std::string lt = lt_name(path_file_name(c)); !lt.empty() && !path_folder(c).empty()) {
      std::string lt_err;
      open_lib(join_path(path_folder(c), lt), &lt_err);
    }
    Lib lib = open_lib(c, &err);
    if (!lib.handle) {
      attempts += fmt::format("{}{}: {}", attempts.empty() ? "" : "; ", c, err);
      continue;
    }
    Cublas t;
    t.lib = lib;
    std::string missing;
#define GPUREADY_BIND_REQ(name, ret, params) bind_symbol(lib, #name, &t.name, true, &missing);
#define GPUREADY_BIND_OPT(name, ret, params) bind_symbol(lib, #name, &t.name, false, &missing);
    GPUREADY_CUBLAS_REQUIRED(GPUREADY_BIND_REQ)
    GPUREADY_CUBLAS_OPTIONAL(GPUREADY_BIND_OPT)
    if (!missing.empty()) {
      attempts += fmt::format("{}{}: lacks {}", attempts.empty() ? "" : "; ", lib.path, missing);
      continue;
    }
    *out = t;
    return true;
  }
  *why = "no usable cuBLAS: " + attempts;
  return false;
}

bool load_cudnn(const std::string& dir, const std::vector<std::string>& files, Cudnn* out, std::string* why) {
  std::string main_name;
  std::string problems;
  if (!files.empty()) {
    // Sub-libraries first (graph before the engines and ops, cnn and adv last), the main library last.
    std::vector<std::string> order = files;
    auto rank = [](const std::string& f) {
      static const char* const kOrder[] = {"cudnn_graph",
                                           "cudnn_engines_precompiled",
                                           "cudnn_engines_runtime",
                                           "cudnn_heuristic",
                                           "cudnn_ops",
                                           "cudnn_cnn",
                                           "cudnn_adv"};
      for (int i = 0; i < 7; ++i)
        if (f.find(kOrder[i]) != std::string::npos) return i;
      return f.find("cudnn_") != std::string::npos ? 7 : 8;  // cuDNN 8's *_infer/*_train, then libcudnn.so.N / cudnn64_N.dll
    };
    std::stable_sort(order.begin(), order.end(), [&](const auto& a, const auto& b) { return rank(a) < rank(b); });
    for (const auto& f : order) {
      const std::string path = f.find_first_of("/\\") == std::string::npos ? join_path(dir, f) : f;
      if (rank(path_file_name(path)) == 8) {
        main_name = path;
        continue;
      }
      std::string err;
      if (!open_lib(path, &err).handle)
        problems += fmt::format("{}{}: {}", problems.empty() ? "" : "; ", path_file_name(path), err);
    }
  }
  if (main_name.empty()) {
    *why = "no usable cuDNN: the probe found no complete cuDNN 8 or 9" + (problems.empty() ? "" : "; " + problems);
    return false;
  }
  const std::vector<std::string> tries = {main_name};
  std::string attempts;
  for (const auto& c : tries) {
    std::string err;
    Lib lib = open_lib(c, &err);
    if (!lib.handle) {
      attempts += fmt::format("{}{}: {}", attempts.empty() ? "" : "; ", c, err);
      continue;
    }
    Cudnn t;
    t.lib = lib;
    std::string missing;
    GPUREADY_CUDNN_REQUIRED(GPUREADY_BIND_REQ)
    if (!missing.empty()) {
      attempts += fmt::format("{}{}: lacks {}", attempts.empty() ? "" : "; ", lib.path, missing);
      continue;
    }
    *out = t;
    if (!problems.empty()) *why = "some sub-libraries did not load: " + problems;
    return true;
  }
#undef GPUREADY_BIND_REQ
#undef GPUREADY_BIND_OPT
  *why = "no usable cuDNN: " + attempts + (problems.empty() ? "" : "; " + problems);
  return false;
}

}  // namespace gpuready::gpu
