// Parsers for what the NVIDIA driver states about itself outside NVML: the kernel module's
// /proc/driver/nvidia/version banner, the driver version in a library file name
// ("libnvidia-ml.so.580.159.04"), and CUDA_VISIBLE_DEVICES as the CUDA driver reads it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuready::parse {

struct NvidiaModuleVersion {
  std::string version;   // "580.159.04"
  std::string flavour;   // "proprietary" | "open" (the open GPU kernel modules)
  std::string banner;    // the NVRM line as written, trimmed
  std::string gcc;       // the "GCC version:" line, if any
};

// /proc/driver/nvidia/version:
//   "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Tue ... 2025"
//   "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  (dvs-builder@U16-I3-B03-4-3)  ..."
// nullopt when no NVRM line with a dotted version is found.
std::optional<NvidiaModuleVersion> nvidia_module_version(std::string_view text);

// "libnvidia-ml.so.580.159.04" / "libcuda.so.535.183.01" -> "580.159.04"; nullopt for ".so.1" or no version.
std::optional<std::string> driver_version_from_library_name(std::string_view file_name);

// CUDA_VISIBLE_DEVICES as the CUDA driver reads it: a comma-separated list of ordinals or
// GPU-/MIG- UUIDs (prefixes allowed); the first entry that is neither (e.g. "-1", "none", "")
// ends the list, and CUDA ignores it and everything after it.
struct VisibleDevices {
  struct Entry {
    bool is_index = false;
    int index = -1;          // when is_index
    std::string uuid;        // "GPU-5f3c..." / "MIG-..." (possibly a prefix) when !is_index
  };
  std::vector<Entry> entries;  // the entries CUDA honours, in order
  bool truncated = false;      // an invalid entry ended the list early
  std::string stopped_at;      // that entry, as written (trimmed)
  [[nodiscard]] bool hides_all() const { return entries.empty(); }
};
VisibleDevices cuda_visible_devices(std::string_view value);

}  // namespace gpuready::parse
