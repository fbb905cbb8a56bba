// Opening a vendor library (NVML, the CUDA driver) at run time: the first of its candidate
// names or paths that resolves to a file (vendors::resolve_library: absolute folders only) and
// that the dynamic loader accepts, keeping the words for each one that failed. Symbol resolution
// stays with each vendor's loader.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "platform/os.h"

namespace gpuready::vendors {

struct OpenedLibrary {
  DynLib::Handle handle;
  std::string candidate;  // the name or path that loaded
  std::string path;       // the absolute file it resolved to
};

// Tries each candidate in order. nullopt when none loads, with *error set to each failure's
// loader message, "; "-joined ("libnvidia-ml.so.1: cannot open shared object file: ...").
std::optional<OpenedLibrary> open_first(const Os& os, const std::vector<std::string>& candidates,
                                        std::string* error);

}  // namespace gpuready::vendors
