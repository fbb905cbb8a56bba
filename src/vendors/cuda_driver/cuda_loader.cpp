// CUDA driver loading: candidate names per packaging, resolved to absolute files, opened through
// the platform's DynLib; the entry points then come from resolve_api (cuda_api.cpp). The dynamic
// loader's own words are kept for the report.
#include "vendors/cuda_driver/cuda_loader.h"

#include "vendors/vendor_library.h"

namespace gpuready::cuda_driver {

std::vector<std::string> default_candidates(const Env& env) {
  (void)env;
  std::vector<std::string> c;
#ifdef _WIN32
  // The display driver installs nvcuda.dll into System32.
  c.push_back("nvcuda.dll");
#else
  // Driver packages ship the versioned soname (libcuda.so is a -dev symlink, and the toolkit's
  // stubs/libcuda.so must never be picked: it answers CUDA_ERROR_STUB_LIBRARY).
  c.push_back("libcuda.so.1");
  // WSL2: the Windows driver's Linux libcuda lives here, often missing from ld.so.cache.
  c.push_back("/usr/lib/wsl/lib/libcuda.so.1");
#endif
  return c;
}

std::optional<Library> load(const Os& os, const std::vector<std::string>& candidates, std::string* error) {
  const DynLib& dl = os.dl;
  const auto opened = vendors::open_first(os, candidates, error);
  if (!opened) return std::nullopt;
  const DynLib::Handle h = opened->handle;
  Library lib;
  lib.handle = h;
  lib.candidate = opened->candidate;
  lib.api = resolve_api([&](const char* name) { return dl.symbol(h, name); }, &lib.resolved_via);
  void* any = dl.symbol(h, "cuGetProcAddress_v2");
  if (!any) any = dl.symbol(h, "cuGetProcAddress");
  if (!any) any = reinterpret_cast<void*>(lib.api.cuDriverGetVersion);
  lib.path = dl.path_of(h, any);
  return lib;
}

void unload(const DynLib& dl, Library& lib) {
  if (lib.handle) dl.close(lib.handle);
  lib.handle = {};
  lib.api = Api{};
}

}  // namespace gpuready::cuda_driver
