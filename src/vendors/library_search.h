// Finding a vendor library's file the way the system loader would, but by absolute folders only:
// gpuready hands DynLib an absolute path and never a bare name, so the loader's own search, where
// an empty or relative LD_LIBRARY_PATH / PATH entry names the current folder, is never used.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "platform/os.h"

namespace gpuready::vendors {

struct LibrarySearchPlaces {
  // POSIX: the loader cache and the folders glibc searches after it; Windows: System32.
  std::string ld_cache = "/etc/ld.so.cache";
  std::vector<std::string> default_dirs;  // empty = loader_default_dirs()
  std::string system32;                   // empty = %SystemRoot%\System32
};

struct ResolvedLibrary {
  std::string path;  // absolute
  std::string via;   // "LD_LIBRARY_PATH", "ld.so.cache", "default path", "System32", "PATH", "given"
};

// The folders glibc's loader searches after LD_LIBRARY_PATH and the cache, for this build's
// architecture: the multiarch folders (Debian/Ubuntu), then /lib64 /usr/lib64, then /lib /usr/lib.
std::vector<std::string> loader_default_dirs();

// `name` is a file name ("libnvidia-ml.so.1", "nvml.dll") or an absolute path (returned as it is
// when the file exists). POSIX order: the absolute entries of LD_LIBRARY_PATH, the loader cache
// (entries for this architecture), the default folders. Windows: System32, then the absolute
// entries of PATH. A relative path is refused. nullopt with *why saying where it looked (and
// which search-path entries it skipped because they name the current folder).
std::optional<ResolvedLibrary> resolve_library(const Os& os, const std::string& name, std::string* why,
                                               const LibrarySearchPlaces& places = {});

}  // namespace gpuready::vendors
