// Path logic of the toolkit and library collectors for both OS layouts: the collectors pick the
// host's layout, tests pass Layout::windows explicitly to walk "C:\\Program Files\\..." trees on
// Linux. Also the conda environment roots both collectors search.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "platform/os.h"

namespace gpuready::probe_detail {

enum class Layout { posix, windows };

// The layout of the OS this binary was built for.
Layout host_layout();

char sep(Layout l);
char list_sep(Layout l);
std::string join(Layout l, const std::string& a, const std::string& b);
std::string parent(Layout l, const std::string& p);     // "/usr/local/cuda/bin" -> "/usr/local/cuda"
std::string base_name(Layout l, const std::string& p);  // "/usr/local/cuda/bin/nvcc" -> "nvcc"
std::string normalize(Layout l, const std::string& p);  // no trailing or doubled separators
bool is_absolute(Layout l, const std::string& p);
// File names compare case-insensitively on Windows.
bool same_name(Layout l, const std::string& a, const std::string& b);
// A key that is equal for two spellings of one path (case folded on Windows).
std::string path_key(Layout l, const std::string& p);
// Where a path really lives: links resolved on POSIX; on Windows the normalised spelling
// (junctions to CUDA installs are rare and the Win32 canonical form differs from our fixtures).
std::string canonical_or_self(const Os& os, Layout l, const std::string& p);

// PATH-style list: empty, relative and duplicate entries skipped, at most `cap` kept.
// *skipped (if given) counts what was dropped.
std::vector<std::string> split_list(Layout l, const std::string& list, size_t cap, size_t* skipped = nullptr);

// The user's home folder (HOME; USERPROFILE on Windows), empty when unknown.
std::string home_dir(const Os& os, Layout l);

// A conda environment prefix and how it was found ("CONDA_PREFIX", "environments.txt", "~/miniconda3").
struct CondaEnv {
  std::string prefix;
  std::string found_by;
};
// $CONDA_PREFIX, ~/.conda/environments.txt and the common install roots with their envs/*.
// Only folders that exist and hold conda-meta/ are returned; duplicates are merged.
std::vector<CondaEnv> find_conda_envs(const Os& os, Layout l);

// Reads a small text file; empty optional when unreadable.
std::optional<std::string> read_small(const Os& os, const std::string& path, size_t max_bytes = 64 * 1024);

}  // namespace gpuready::probe_detail
