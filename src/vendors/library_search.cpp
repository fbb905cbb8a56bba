// Resolving a library name to an absolute file (see library_search.h).
#include "vendors/library_search.h"

#include "parse/ld_so_cache.h"

namespace gpuready::vendors {
namespace {

bool is_file(const Os& os, const std::string& p) { return os.fs.exists(p) && !os.fs.is_dir(p); }

std::string skipped_words(const std::string& variable, const std::vector<std::string>& dropped) {
  if (dropped.empty()) return {};
  std::string list;
  for (const auto& d : dropped) list += (list.empty() ? "" : ", ") + (d.empty() ? std::string("an empty entry") : "\"" + d + "\"");
  return "; skipped " + variable + "'s " + list + " (the current folder is never searched)";
}

}  // namespace

std::vector<std::string> loader_default_dirs() {
#if defined(__x86_64__)
  const char* triple = "x86_64-linux-gnu";
#elif defined(__aarch64__)
  const char* triple = "aarch64-linux-gnu";
#else
  const char* triple = nullptr;
#endif
  std::vector<std::string> out;
  if (triple) {
    out.push_back(std::string("/lib/") + triple);
    out.push_back(std::string("/usr/lib/") + triple);
  }
  for (const char* d : {"/lib64", "/usr/lib64", "/lib", "/usr/lib"}) out.emplace_back(d);
  return out;
}

std::optional<ResolvedLibrary> resolve_library(const Os& os, const std::string& name, std::string* why,
                                               const LibrarySearchPlaces& places) {
  std::string ignored;
  std::string& w = why ? *why : ignored;
  if (name.empty()) {
    w = "no library name";
    return std::nullopt;
  }
  if (name.find_first_of("/\\") != std::string::npos) {
    if (!is_absolute_path(name)) {
      w = name + ": not loaded: a relative path names the current folder";
      return std::nullopt;
    }
    return ResolvedLibrary{name, "given"};  // DynLib says, in the loader's words, when it is not there
  }
#ifdef _WIN32
  const std::string system32 = !places.system32.empty()
                                   ? places.system32
                                   : os.env.get("SystemRoot").value_or("C:\\Windows") + "\\System32";
  if (is_absolute_path(system32) && is_file(os, join_path(system32, name)))
    return ResolvedLibrary{join_path(system32, name), "System32"};
  const CleanedPathList path = clean_search_path_list(os.env.get("PATH").value_or(""), ";");
  for (const auto& dir : split_path_list(path.value)) {
    std::string d = dir;
    if (d.size() >= 2 && d.front() == '"' && d.back() == '"') d = d.substr(1, d.size() - 2);
    if (is_file(os, join_path(d, name))) return ResolvedLibrary{join_path(d, name), "PATH"};
  }
  w = name + ": not in " + system32 + " or the folders of PATH" + skipped_words("PATH", path.dropped);
  return std::nullopt;
#else
  const CleanedPathList llp = clean_search_path_list(os.env.get("LD_LIBRARY_PATH").value_or(""), ":");
  for (const auto& dir : split_path_list(llp.value))
    if (is_file(os, join_path(dir, name))) return ResolvedLibrary{join_path(dir, name), "LD_LIBRARY_PATH"};
  std::string cache_note;
  if (auto data = os.fs.read_file(places.ld_cache, 64u << 20, nullptr)) {
    std::string err;
    if (auto cache = parse::parse_ld_so_cache(*data, &err)) {
      const auto native = parse::ld_cache_native_flags();
      for (const auto& e : cache->entries) {
        if (e.key != name || e.hwcap != 0) continue;
        if (native && e.flags != *native) continue;
        if (!is_absolute_path(e.value)) continue;
        if (is_file(os, e.value)) return ResolvedLibrary{e.value, "ld.so.cache"};
        break;  // a listed file that is gone: glibc goes on to the default folders
      }
    } else {
      cache_note = " (" + places.ld_cache + " unreadable: " + err + ")";
    }
  }
  const auto dirs = places.default_dirs.empty() ? loader_default_dirs() : places.default_dirs;
  for (const auto& dir : dirs)
    if (is_file(os, join_path(dir, name))) return ResolvedLibrary{join_path(dir, name), "default path"};
  w = name + ": cannot open shared object file: not in LD_LIBRARY_PATH, the loader cache" + cache_note +
      " or the default folders" + skipped_words("LD_LIBRARY_PATH", llp.dropped);
  return std::nullopt;
#endif
}

}  // namespace gpuready::vendors
