// The GPU libraries gpuready looks for, as data: file-name stems per OS, the header and package
// metadata that name their versions, the sonames frameworks ask the loader for, and the cuDNN
// sub-library sets (shared/reference/compat/library_names.md is the source of these names).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuready::probe_detail {

using HeaderParser = std::optional<std::string> (*)(std::string_view);

struct LibraryKind {
  const char* library;        // LibraryCopy::library: "cudart", "cudnn", ...
  const char* posix_stem;     // "libcudart"
  const char* windows_stem;   // "cudart" (cudart64_12.dll); "" when the library has no Windows build
  std::vector<const char*> headers;  // header files that carry the version, tried in order
  HeaderParser header_parser;        // nullptr: no header version
  const char* dist_info;      // pip package name without the _cuNN suffix: "nvidia_cuda_runtime"
  const char* version_json;   // component key in a toolkit's version.json: "cuda_cudart"
};

const std::vector<LibraryKind>& library_kinds();
// The kind whose stem this file-name stem is (case-insensitive for Windows names), or nullptr.
const LibraryKind* kind_for_stem(const std::string& stem, bool windows);

// What a framework asks the loader for, given a library file's version (Linux):
// libcudnn.so.9.1.0 -> libcudnn.so.9; libcudart.so.11.8.89 -> libcudart.so.11.0; libcuda.so -> libcuda.so.
std::string posix_soname(const LibraryKind& kind, const std::string& version);

// Names frameworks and the driver stack ask for, resolved when a copy of that library exists
// (or always, for the driver's libcuda / NVML).
struct WantedName {
  const char* library;
  const char* name;
  bool always;
};
const std::vector<WantedName>& wanted_posix_names();
const std::vector<WantedName>& wanted_windows_names();

// cuDNN sub-libraries that must sit next to libcudnn of that major (8: the split libraries,
// 9: the graph/engines/ops libraries). Names without the "lib" prefix and the suffix.
const std::vector<std::string>& cudnn_sub_libraries(int major);

}  // namespace gpuready::probe_detail
