// POSIX implementation of DynLib: dlopen of an absolute path only, with RTLD_LOCAL so that a probed library
// never leaks its symbols into the next one; dlerror() text is kept for the report.
#include <dlfcn.h>
#include <link.h>
#include <sys/stat.h>

#include "platform/posix/posix_os.h"

namespace gpuready {

DynLib::Handle PosixDynLib::open(const std::string& name_or_path, std::string* error) const {
  // Only an absolute path: a bare name would be searched through LD_LIBRARY_PATH, whose empty or
  // relative entries name the current folder (vendors::resolve_library finds the file first).
  if (!is_absolute_path(name_or_path)) {
    if (error) *error = name_or_path + ": not loaded: gpuready loads libraries by absolute path only";
    return Handle{};
  }
  // A FIFO would block dlopen until someone writes to it; a folder or a device is no library.
  struct stat st {};
  if (::stat(name_or_path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (error)
      *error = name_or_path + (S_ISDIR(st.st_mode) ? ": is a folder, not a library"
                                                   : ": not a regular file (a FIFO or device), not loaded");
    return Handle{};
  }
  ::dlerror();
  void* h = ::dlopen(name_or_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h && error) {
    const char* e = ::dlerror();
    *error = e ? e : (name_or_path + ": cannot be loaded");
  }
  return Handle{h};
}

void* PosixDynLib::symbol(Handle h, const std::string& name) const {
  if (!h) return nullptr;
  ::dlerror();
  return ::dlsym(h.raw, name.c_str());
}

std::optional<std::string> PosixDynLib::path_of(Handle h, void* any_symbol) const {
#if defined(__linux__)  // RTLD_DI_LINKMAP is an enum in glibc, not a macro
  if (h) {
    link_map* map = nullptr;
    if (::dlinfo(h.raw, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && *map->l_name) return std::string(map->l_name);
  }
#endif
  if (any_symbol) {
    Dl_info info{};
    if (::dladdr(any_symbol, &info) != 0 && info.dli_fname) return std::string(info.dli_fname);
  }
  return std::nullopt;
}

void PosixDynLib::close(Handle h) const {
  if (h) ::dlclose(h.raw);
}

std::vector<std::string> PosixDynLib::loaded_files() const {
  std::vector<std::string> out;
  ::dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        if (info->dlpi_name && *info->dlpi_name) static_cast<std::vector<std::string>*>(data)->push_back(info->dlpi_name);
        return 0;
      },
      &out);
  return out;
}

}  // namespace gpuready
