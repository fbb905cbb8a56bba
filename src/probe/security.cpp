// The security collector: what decides which files every program started here loads and runs.
// Search-path entries that name the current folder (empty, ".", relative) or a folder anyone may
// write; GPU libraries anyone may replace; the NVIDIA Container Toolkit's version (CVE-2025-23266).
// Facts only: rules_security.cpp judges them.
#include <fmt/format.h>

#include <set>

#include "parse/clean_text.h"
#include "parse/package_db.h"
#include "probe/probe.h"

namespace gpuready {
namespace {

constexpr size_t kMaxEntries = 256;  // per variable
constexpr size_t kMaxFiles = 512;    // library files looked at

std::string mode_text(std::uint32_t mode) { return fmt::format("mode {:04o}", mode); }

bool world_writable(const std::optional<FileStat>& st) { return st && st->mode && (*st->mode & 0002u); }
bool sticky(const std::optional<FileStat>& st) { return st && st->mode && (*st->mode & 01000u); }

void scan_variable(const Os& os, const std::string& name, const std::string& value, SecurityFacts& out) {
  const bool preload = name == "LD_PRELOAD";
  const std::string seps = preload ? std::string(": ") : std::string(1, path_list_separator());
  size_t start = 0;
  int index = 0;
  for (size_t n = 0; n < kMaxEntries; ++n) {
    const size_t end = value.find_first_of(seps, start);
    std::string entry = value.substr(start, end == std::string::npos ? std::string::npos : end - start);
    const bool last = end == std::string::npos;
    start = last ? value.size() : end + 1;
    if (entry.empty() && preload) {  // LD_PRELOAD ignores empty entries: nothing is loaded for them
      if (last) break;
      continue;
    }
    std::string judged = entry;
    if (judged.size() >= 2 && judged.front() == '"' && judged.back() == '"') judged = judged.substr(1, judged.size() - 2);
    if (entry.empty()) {
      out.unsafe_entries.push_back({name, index, entry, "empty"});
    } else if (!is_absolute_path(judged)) {
      out.unsafe_entries.push_back({name, index, parse::clean_text(entry, 512), "relative"});
    } else {
      // A folder (or a preloaded file) anyone may write: anyone can put a library or program there.
      const auto st = os.fs.stat(judged, nullptr);
      if (world_writable(st)) out.unsafe_entries.push_back({name, index, parse::clean_text(entry, 512), "world-writable"});
    }
    ++index;
    if (last) break;
  }
}

void check_file(const Os& os, const std::string& path, std::set<std::string>& seen, SecurityFacts& out) {
  if (path.empty() || !is_absolute_path(path) || !seen.insert(path).second || seen.size() > kMaxFiles) return;
  const auto st = os.fs.stat(path, nullptr);
  if (world_writable(st)) {
    out.writable.push_back({path, "the file is world-writable (" + mode_text(*st->mode) + ")"});
    return;
  }
  const std::string dir = path_folder(path);
  if (dir.empty()) return;
  const auto dst = os.fs.stat(dir, nullptr);
  // Sticky (like /tmp): others may add files but not replace this one.
  if (world_writable(dst) && !sticky(dst))
    out.writable.push_back({path, "its folder " + dir + " is world-writable (" + mode_text(*dst->mode) + ")"});
}

#ifndef _WIN32
void container_toolkit(const Os& os, SecurityFacts& out) {
  std::string err;
  if (auto status = os.fs.read_file("/var/lib/dpkg/status", 64u << 20, &err)) {
    for (const char* pkg : {"nvidia-container-toolkit", "nvidia-container-toolkit-base", "libnvidia-container-tools",
                            "libnvidia-container1"}) {
      if (auto v = parse::dpkg_installed_version(*status, pkg)) {
        out.container_toolkit_version = parse::debian_upstream_version(*v);
        out.container_toolkit_source = std::string("dpkg: ") + pkg + " " + *v;
        return;
      }
    }
  }
  // Other distributions (RPM): the CLI itself, by absolute path only.
  for (const char* ctk : {"/usr/bin/nvidia-ctk", "/usr/local/bin/nvidia-ctk"}) {
    if (!os.fs.exists(ctk)) continue;
    ProcOptions po;
    po.timeout = std::chrono::seconds(5);
    po.max_output = 4096;
    const ProcResult r = os.proc.run({ctk, "--version"}, po);
    if (auto v = r.ok() ? parse::nvidia_ctk_version(r.out) : std::nullopt) {
      out.container_toolkit_version = *v;
      out.container_toolkit_source = std::string(ctk) + " --version";
      return;
    }
  }
  out.container_toolkit_version = Fact<std::string>::unknown("not installed (no dpkg package, no nvidia-ctk)");
}
#endif

}  // namespace

void collect_security(const Os& os, const Snapshot& s, SecurityFacts& out) {
#ifdef _WIN32
  const std::vector<std::string> vars = {"PATH", "PYTHONPATH"};
#else
  const std::vector<std::string> vars = search_path_variables();
#endif
  for (const auto& name : vars) {
    auto v = os.env.get(name);
#ifdef _WIN32
    if (!v && name == "PATH") v = os.env.get("Path");
#endif
    if (!v) continue;
    out.search_paths[name] = parse::clean_text(*v, 8192);  // shown in reports: no control characters
    if (!v->empty()) scan_variable(os, name, *v, out);
  }
  std::set<std::string> seen;
  if (s.nvidia.nvml_library.has()) check_file(os, s.nvidia.nvml_library.value(), seen, out);
  if (s.nvidia.cuda_library.has()) check_file(os, s.nvidia.cuda_library.value(), seen, out);
  for (const auto& c : s.libraries.copies) check_file(os, c.path, seen, out);
#ifdef _WIN32
  out.container_toolkit_version = Fact<std::string>::unknown("not applicable on Windows");
#else
  container_toolkit(os, out);
#endif
}

}  // namespace gpuready
