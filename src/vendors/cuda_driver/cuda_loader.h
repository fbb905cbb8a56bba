// Loading the CUDA driver library (libcuda.so.1 / nvcuda.dll) at run time through the platform's
// DynLib: candidate names, each resolved to an absolute file, then the entry-point table
// (cuda_table.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "platform/os.h"
#include "vendors/cuda_driver/cuda_table.h"

namespace gpuready::cuda_driver {

struct Library {
  DynLib::Handle handle;
  std::string candidate;             // the name or path that loaded
  std::optional<std::string> path;   // the file the loader mapped
  std::string resolved_via;          // "cuGetProcAddress_v2" | "cuGetProcAddress" | "dlsym"
  Api api;
};

std::vector<std::string> default_candidates(const Env& env);

// Tries each candidate; resolves every entry point. nullopt + *error (the loader's words) when none loads.
// Each candidate is resolved to an absolute file first (vendors::resolve_library), never handed
// to the loader as a bare name.
std::optional<Library> load(const Os& os, const std::vector<std::string>& candidates, std::string* error);
void unload(const DynLib& dl, Library& lib);

}  // namespace gpuready::cuda_driver
