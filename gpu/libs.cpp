// gpu/libs.h: run-time loading for the module (POSIX: dlopen).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "libs.h"

#if defined(_WIN32)
#error "the CUDA module's loader is POSIX-only so far"
#endif
#include <dlfcn.h>
#include <link.h>

namespace gpuready::gpu {
namespace {

std::string dir_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}
std::string base_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}
// "libcublas.so.13.1.0.3" -> "13"; "" when the name carries no major.
std::string so_major(const std::string& name) {
  const auto at = name.find(".so.");
  if (at == std::string::npos) return "";
  std::string v = name.substr(at + 4);
  return v.substr(0, v.find('.'));
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

Lib open_lib(const std::string& name_or_path, std::string* error) {
  Lib lib;
  dlerror();
  lib.handle = dlopen(name_or_path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!lib.handle) {
    const char* e = dlerror();
    if (error) *error = e ? e : "dlopen failed";
    return lib;
  }
  lib.path = name_or_path;
  struct link_map* map = nullptr;
  if (dlinfo(lib.handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && *map->l_name) lib.path = map->l_name;
  return lib;
}

void* lib_symbol(const Lib& lib, const char* name) { return lib.handle ? dlsym(lib.handle, name) : nullptr; }

std::vector<std::string> loaded_files(const std::vector<std::string>& needles) {
  struct Acc {
    const std::vector<std::string>* needles;
    std::vector<std::string> out;
  } acc{&needles, {}};
  dl_iterate_phdr(
      [](struct dl_phdr_info* info, size_t, void* data) {
        auto* a = static_cast<Acc*>(data);
        if (!info->dlpi_name || !*info->dlpi_name) return 0;
        const std::string name = info->dlpi_name;
        const std::string base = base_of(name);
        for (const auto& n : *a->needles)
          if (base.find(n) != std::string::npos) {
            a->out.push_back(name);
            break;
          }
        return 0;
      },
      &acc);
  std::sort(acc.out.begin(), acc.out.end());
  acc.out.erase(std::unique(acc.out.begin(), acc.out.end()), acc.out.end());
  return acc.out;
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
  std::vector<std::string> tries = candidates;
  if (tries.empty()) tries = {"libcublas.so.13", "libcublas.so.12", "libcublas.so.11"};
  std::string attempts;
  for (const auto& c : tries) {
    std::string err;
    // libcublas needs the libcublasLt of its own version: load the one beside it first, so the
    // loader cannot take another folder's (or fail where the folder is not on its path).
    const std::string dir = dir_of(c), major = so_major(base_of(c));
    if (!dir.empty() && !major.empty()) {
      std::string lt_err;
      open_lib(dir + "libcublasLt.so." + major, &lt_err);
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
      return f.find("cudnn_") != std::string::npos ? 7 : 8;  // cuDNN 8's *_infer/*_train, then libcudnn.so.N
    };
    std::stable_sort(order.begin(), order.end(), [&](const auto& a, const auto& b) { return rank(a) < rank(b); });
    for (const auto& f : order) {
      const std::string path =
          f.find('/') == std::string::npos ? dir + (dir.empty() || dir.back() == '/' ? "" : "/") + f : f;
      if (rank(base_of(path)) == 8) {
        main_name = path;
        continue;
      }
      std::string err;
      if (!open_lib(path, &err).handle)
        problems += fmt::format("{}{}: {}", problems.empty() ? "" : "; ", base_of(path), err);
    }
  }
  std::vector<std::string> tries;
  if (!main_name.empty())
    tries.push_back(main_name);
  else
    tries = {"libcudnn.so.9", "libcudnn.so.8"};
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
