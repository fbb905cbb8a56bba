// The toolkit collector's internals, with the OS layout as a parameter so tests can walk a
// Windows tree on Linux. collect_toolkits() (probe.h) calls these with the host's layout.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "core/snapshot.h"
#include "platform/os.h"
#include "probe/toolkits_layout.h"

namespace gpuready::probe_detail {

struct ToolkitSearch {
  Layout layout = host_layout();
  std::chrono::milliseconds nvcc_timeout{5000};  // only used when no file answers the version
  size_t max_path_entries = 512;                 // PATH entries looked at for nvcc
};

void collect_toolkits_in(const Os& os, const ToolkitSearch& search, std::vector<Toolkit>& out);

// Toolkits shipped as pip wheels (site-packages/nvidia/cuda_nvcc, nvidia/cu13): they need the
// site-packages folders, which exist only after the Python collector ran. Merged into `out`.
void collect_pip_toolkits_in(const Os& os, const ToolkitSearch& search, const std::vector<std::string>& site_packages,
                             std::vector<Toolkit>& out);

// A package version from the *.dist-info folders in `dir` whose normalised name is one of
// `names` optionally followed by a "_cu<N>" suffix ("nvidia_cuda_runtime" matches
// "nvidia_cuda_runtime_cu12-12.4.127.dist-info"). METADATA's Version wins over the folder name.
struct DistInfoVersion {
  std::string version;
  std::string dist_info;  // the folder
};
std::optional<DistInfoVersion> dist_info_version(const Os& os, Layout l, const std::string& dir,
                                                 const std::vector<std::string>& names,
                                                 const std::vector<DirEntry>* listing = nullptr);

}  // namespace gpuready::probe_detail
