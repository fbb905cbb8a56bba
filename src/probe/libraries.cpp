// collect_libraries: every copy of cudart, cuBLAS, cuDNN, cuFFT, cuRAND, cuSOLVER, cuSPARSE, NCCL,
// TensorRT (and the driver's libcuda / NVML) in the folders the stack uses, each copy's version,
// which file the dynamic loader would pick for each soname, and whether cuDNN sets are whole.
// Only known folders are listed (no recursive walks): toolkits, pip wheels, conda, WSL, LD_LIBRARY_PATH
// (PATH on Windows) and the loader cache. On Linux each copy's (and each cuDNN sub-library's) ELF
// dynamic section is read too: what it names as NEEDED, and where the loader would find each for it.
#include <algorithm>
#include <cctype>
#include <iterator>
#include <map>
#include <set>
#include <string_view>

#include "core/version.h"
#include "parse/ascii.h"
#include "parse/clean_text.h"
#include "parse/cuda_headers.h"
#include "parse/elf.h"
#include "parse/ld_so_cache.h"
#include "probe/libraries_catalog.h"
#include "probe/libraries_search.h"
#include "probe/probe.h"
#include "probe/toolkits_search.h"
#include "vendors/library_search.h"

namespace gpuready {
namespace probe_detail {
namespace {

std::string major_of(const std::string& v) { return v.substr(0, v.find('.')); }
size_t parts_of(const std::string& v) { return v.empty() ? 0 : 1 + std::count(v.begin(), v.end(), '.'); }

// Two versions agree when they agree on every component both have ("9" and "9.1.0" do).
bool compatible(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const size_t ei = a.find('.', i), ej = b.find('.', j);
    if (a.substr(i, ei - i) != b.substr(j, ej - j)) return false;
    if (ei == std::string::npos || ej == std::string::npos) return true;
    i = ei + 1;
    j = ej + 1;
  }
  return true;
}

// Where a scanned folder's copies came from.
struct Source {
  std::string dir;
  std::string origin;                 // LibraryCopy::origin
  std::string detail;                 // toolkit root, wheel, env prefix
  std::vector<std::string> dist_dirs; // folders with *.dist-info for these files
  std::string toolkit_root;           // version.json lives here (toolkits only)
};

struct HeaderHit {
  std::string path;
  std::string version;
};

// The file whose DT_NEEDED names a library: its own search folders take part in the lookup.
struct Asker {
  std::string origin;                  // its folder: what $ORIGIN stands for
  std::optional<std::string> rpath;    // DT_RPATH as written
  std::optional<std::string> runpath;  // DT_RUNPATH as written
};

// The C runtime's own libraries: every system has them (and fixture trees do not), so they are
// left out of the dependencies. ld64.so.* is the loader's name on ppc64le and s390x.
bool c_runtime(const std::string& name) {
  static const std::set<std::string> base = {"libc.so.6",  "libm.so.6",     "libdl.so.2",    "libpthread.so.0",
                                             "librt.so.1", "libgcc_s.so.1", "libstdc++.so.6"};
  return base.count(name) || name.rfind("ld-linux", 0) == 0 || name.rfind("ld64.so.", 0) == 0;
}

// A path list entry with "." or ".." parts ("$ORIGIN/../../cublas/lib").
bool has_dot_parts(const std::string& dir) {
  for (size_t i = 0; i < dir.size();) {
    const size_t e = std::min(dir.find('/', i), dir.size());
    const std::string_view part(dir.data() + i, e - i);
    if (part == "." || part == "..") return true;
    i = e + 1;
  }
  return false;
}

// Text read from a library file, made safe for the snapshot's JSON (valid UTF-8, bounded).
std::string safe(const std::string& s) { return parse::clean_text(s, 2 * parse::kElfMaxString); }

class Collector {
 public:
  Collector(const Os& os, const LibrarySearch& s, LibraryFacts& out) : os_(os), s_(s), l_(s.layout), out_(out) {}

  void run(const std::vector<Toolkit>& toolkits, const std::vector<PythonEnv>& python) {
    if (l_ == Layout::posix) read_ld_cache();
    else out_.ld_cache = Fact<std::string>::unknown("Windows has no loader cache");

    for (const auto& t : toolkits) scan_toolkit(t);
    scan_python(python);
    for (const auto& env : find_conda_envs(os_, l_)) scan_conda(env.prefix);
    if (l_ == Layout::windows) scan_cudnn_installer();
    if (l_ == Layout::posix) scan({"/usr/lib/wsl/lib", "wsl", "", {}, ""});
    scan_search_path();
    for (const auto& d : s_.extra_dirs)
      if (!d.empty()) scan({d, "--libs", d, {}, ""});
    if (cache_) add_cache_copies();
    for (const auto& t : toolkits) add_header_only_cudnn(t);
    resolve_all();
    if (l_ == Layout::posix) add_dependencies();
    build_cudnn_sets();
  }

 private:
  // ---- folders -------------------------------------------------------------------------------
  const std::vector<DirEntry>& listing(const std::string& dir) {
    auto it = listings_.find(dir);
    if (it != listings_.end()) return it->second;
    std::string err;
    auto r = os_.fs.list_dir(dir, &err);
    std::vector<DirEntry> v;
    if (r) {
      v = std::move(*r);
      if (v.size() > s_.max_dir_entries) v.resize(s_.max_dir_entries);
      std::sort(v.begin(), v.end(), [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
    }
    return listings_.emplace(dir, std::move(v)).first->second;
  }

  void scan_toolkit(const Toolkit& t) {
    if (!os_.fs.is_dir(t.root)) return;
    std::vector<std::string> dirs;
    if (l_ == Layout::windows) {
      // lib\x64 holds import libraries (.lib); DLLs there were copied to the wrong folder (cuDNN's
      // zip has bin\ and lib\x64\ side by side) and are recorded so the doctor can say so.
      dirs = {join(l_, t.root, "bin"), join(l_, join(l_, t.root, "bin"), "x64"),
              join(l_, join(l_, t.root, "lib"), "x64")};
    } else {
      dirs = {join(l_, t.root, "lib64"), join(l_, t.root, "lib")};
      const std::string targets = join(l_, t.root, "targets");
      size_t n = 0;
      for (const auto& e : listing(targets))
        if (e.is_dir && ++n <= 8) dirs.push_back(join(l_, join(l_, targets, e.name), "lib"));
    }
    for (const auto& d : dirs) scan({d, "toolkit", t.root, {join(l_, t.root, "dist-info")}, t.root});
  }

  void scan_python(const std::vector<PythonEnv>& python) {
    std::set<std::string> seen;
    for (const auto& env : python) {
      for (const auto& sp : env.site_packages) {
        if (!is_absolute(l_, sp) || !seen.insert(path_key(l_, sp)).second || seen.size() > 32) continue;
        const std::string nv = join(l_, sp, "nvidia");
        for (const auto& e : listing(nv)) {
          if (!e.is_dir) continue;
          const std::string comp = join(l_, nv, e.name);
          const std::string label = "nvidia/" + e.name;
          if (l_ == Layout::posix) {
            scan({join(l_, comp, "lib"), "pip", label, {sp}, ""});
          } else {
            // CUDA 13 wheels put their DLLs in one nvidia\cu13\bin\x86_64 folder.
            scan({join(l_, comp, "bin"), "pip", label, {sp}, ""});
            scan({join(l_, join(l_, comp, "bin"), "x86_64"), "pip", label, {sp}, ""});
          }
        }
        scan({join(l_, sp, "tensorrt_libs"), "pip", "tensorrt_libs", {sp}, ""});
        // PyTorch's Windows wheels carry their own CUDA and cuDNN DLLs.
        scan({join(l_, join(l_, sp, "torch"), "lib"), "pip", "torch", {sp}, ""});
      }
      if (env.prefix.has() && os_.fs.is_dir(join(l_, env.prefix.value(), "conda-meta"))) scan_conda(env.prefix.value());
    }
  }

  void scan_conda(const std::string& prefix) {
    const std::string dir = l_ == Layout::windows ? join(l_, join(l_, prefix, "Library"), "bin") : join(l_, prefix, "lib");
    scan({dir, "conda", prefix, {}, ""});
  }

  // NVIDIA's cuDNN installer for Windows (cuDNN 9): Program Files\NVIDIA\CUDNN\v9.N, one
  // bin\<CUDA version> folder per CUDA variant chosen at install time ("bin\12.6"; from about
  // 9.10 with an x64 folder below it: "bin\12.9\x64", "bin\13.0\x64"), headers in
  // include\<CUDA version>. Nothing there is on PATH unless the user added it.
  void scan_cudnn_installer() {
    std::string pf = os_.env.get("ProgramFiles").value_or("");
    if (pf.empty() || !is_absolute(l_, pf)) pf = "C:\\Program Files";
    const std::string root = join(l_, join(l_, pf, "NVIDIA"), "CUDNN");
    size_t versions = 0;
    for (const auto& v : listing(root)) {
      if (!v.is_dir || (v.name[0] != 'v' && v.name[0] != 'V') || ++versions > 8) continue;
      const std::string top = join(l_, root, v.name);
      const std::string bin = join(l_, top, "bin");
      scan({bin, "installer", top, {}, ""});
      size_t variants = 0;
      for (const auto& c : listing(bin)) {
        if (!c.is_dir || ++variants > 8) continue;
        scan({join(l_, bin, c.name), "installer", top, {}, ""});
        scan({join(l_, join(l_, bin, c.name), "x64"), "installer", top, {}, ""});
      }
    }
  }

  void scan_search_path() {
    const char* var = l_ == Layout::windows ? "PATH" : "LD_LIBRARY_PATH";
    auto v = os_.env.get(var);
    if (!v && l_ == Layout::windows) v = os_.env.get("Path");
    if (!v) return;
    // The Windows folder (System32 is on every PATH) holds thousands of files and only the
    // driver's DLLs of ours: those are found by the loader emulation instead of a listing.
    const std::string win = l_ == Layout::windows ? path_key(l_, windows_dir()) : std::string();
    for (const auto& d : split_list(l_, *v, s_.max_path_dirs)) {
      if (d.find('$') != std::string::npos) continue;  // $ORIGIN / $LIB are the loader's tokens
      if (!win.empty() && path_key(l_, d).rfind(win, 0) == 0) continue;
      scan({d, l_ == Layout::windows ? "PATH" : "LD_LIBRARY_PATH", d, {}, ""});
    }
  }

  void scan(const Source& src) {
    const std::string dkey = path_key(l_, canonical_or_self(os_, l_, src.dir));
    if (!scanned_dirs_.insert(dkey).second) return;
    // Group the names by the file they really are: libcudnn.so -> libcudnn.so.9 -> libcudnn.so.9.1.0 is one copy.
    std::vector<std::pair<std::string, std::vector<std::string>>> groups;
    std::map<std::string, const LibraryKind*> kinds;
    for (const auto& e : listing(src.dir)) {
      if (e.is_dir) continue;
      auto f = parse::parse_library_file_name(e.name);
      if (!f || f->windows != (l_ == Layout::windows)) continue;
      const LibraryKind* kind = kind_for_stem(f->stem, f->windows);
      if (!kind) continue;
      const std::string full = join(l_, src.dir, e.name);
      if (!os_.fs.exists(full)) continue;  // a dangling link is no copy
      const std::string canon = canonical_or_self(os_, l_, full);
      auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& p) { return p.first == canon; });
      if (g == groups.end()) {
        groups.push_back({canon, {e.name}});
        kinds[canon] = kind;
      } else {
        g->second.push_back(e.name);
      }
    }
    for (const auto& [canon, names] : groups) add_copy(*kinds[canon], canon, names, src);
  }

  // ---- one copy ------------------------------------------------------------------------------
  std::vector<std::string> header_dirs(const std::string& lib_dir) {
    std::vector<std::string> out;
    const std::string up = parent(l_, lib_dir);
    if (l_ == Layout::windows) {
      out.push_back(join(l_, up, "include"));
      std::string dir = lib_dir;
      if (same_name(l_, base_name(l_, dir), "x64") || same_name(l_, base_name(l_, dir), "x86_64")) {
        out.push_back(join(l_, parent(l_, up), "include"));
        dir = up;
      }
      // cuDNN's installer: bin\<CUDA version>[\x64] beside include\<CUDA version>.
      const std::string variant = base_name(l_, dir);
      const std::string bin = parent(l_, dir);
      if (!variant.empty() && std::isdigit(static_cast<unsigned char>(variant[0])) && same_name(l_, base_name(l_, bin), "bin"))
        out.push_back(join(l_, join(l_, parent(l_, bin), "include"), variant));
      return out;
    }
    out.push_back(join(l_, up, "include"));
    // System folders: headers live in /usr/include and its multiarch folder.
    if (lib_dir.rfind("/usr/lib", 0) == 0 || lib_dir.rfind("/lib", 0) == 0) {
      out.push_back("/usr/include");
      const std::string last = base_name(l_, lib_dir);
      if (last.find("-linux-gnu") != std::string::npos) out.push_back("/usr/include/" + last);
    }
    return out;
  }

  std::optional<std::string> header_version(const std::string& path, const LibraryKind& kind) {
    auto it = header_cache_.find(path);
    if (it != header_cache_.end()) return it->second;
    std::optional<std::string> v;
    if (auto text = read_small(os_, path, 1 << 20)) v = kind.header_parser(*text);
    header_cache_[path] = v;
    return v;
  }

  // The kind's version header next to a library folder whose major matches (any major when empty).
  std::optional<HeaderHit> find_header(const LibraryKind& kind, const std::string& lib_dir, const std::string& major) {
    if (!kind.header_parser) return std::nullopt;
    for (const auto& inc : header_dirs(lib_dir)) {
      for (const char* h : kind.headers) {
        std::vector<std::string> names{h};
        // Debian/Ubuntu packages install cudnn_version_v9.h and point cudnn_version.h at it.
        if (!major.empty()) {
          std::string base(h);
          names.push_back(base.substr(0, base.size() - 2) + "_v" + major + ".h");
        }
        for (const auto& n : names) {
          const std::string path = join(l_, inc, n);
          auto v = header_version(path, kind);
          if (v && (major.empty() || major_of(*v) == major)) return HeaderHit{path, *v};
        }
      }
    }
    return std::nullopt;
  }

  const parse::CudaVersionJson* version_json(const std::string& root) {
    auto it = vjson_.find(root);
    if (it == vjson_.end()) {
      std::optional<parse::CudaVersionJson> j;
      if (auto text = read_small(os_, join(l_, root, "version.json"))) j = parse::parse_cuda_version_json(*text);
      it = vjson_.emplace(root, std::move(j)).first;
    }
    return it->second ? &*it->second : nullptr;
  }

  void add_copy(const LibraryKind& kind, const std::string& canon, const std::vector<std::string>& names,
                const Source& src) {
    const std::string key = path_key(l_, canon);
    if (copy_index_.count(key)) return;
    LibraryCopy c;
    c.library = kind.library;
    c.path = canon;
    c.file_name = base_name(l_, canon);
    c.origin = src.origin;
    c.origin_detail = src.detail;
    std::string fver;
    std::vector<std::string> all = names;
    all.push_back(c.file_name);
    for (const auto& n : all) {
      auto f = parse::parse_library_file_name(n);
      if (f && parts_of(f->version) > parts_of(fver)) fver = f->version;
    }
    c.soname = l_ == Layout::windows ? c.file_name : posix_soname(kind, fver);
    const std::string major = major_of(fver);

    std::optional<DistInfoVersion> dist;
    if (*kind.dist_info) {
      for (const auto& d : src.dist_dirs) {
        dist = dist_info_version(os_, l_, d, {kind.dist_info}, &listing(d));
        if (dist && !major.empty() && major_of(dist->version) != major) dist.reset();
        if (dist) break;
      }
    }
    if (dist && src.origin == "pip") c.origin_detail = base_name(l_, dist->dist_info);

    // The file's own full version beats anything found next to it (that may belong to another copy).
    if (parts_of(fver) >= 3) {
      c.version = fver;
      c.version_source = "file name";
    } else if (auto h = find_header(kind, parent(l_, canon), major)) {
      c.version = h->version;
      c.version_source = base_name(l_, h->path);
    } else if (const auto* vj = (*kind.version_json && !src.toolkit_root.empty()) ? version_json(src.toolkit_root)
                                                                                   : nullptr;
               vj && vj->components.count(kind.version_json) &&
               (major.empty() || major_of(vj->components.at(kind.version_json)) == major)) {
      c.version = vj->components.at(kind.version_json);
      c.version_source = "version.json";
    } else if (dist) {
      c.version = dist->version;
      c.version_source = "dist-info";
    } else if (!fver.empty()) {
      c.version = fver;
      c.version_source = "file name";
    } else {
      c.version = Fact<std::string>::unknown("the file name carries no version and no header or package "
                                             "metadata next to it names one");
    }
    copy_index_[key] = out_.copies.size();
    file_versions_.push_back(fver);
    out_.copies.push_back(std::move(c));
  }

  // A toolkit with cuDNN's header but no cuDNN library of that major: the header is recorded as a
  // copy (soname empty) so that a rule can say "header without library".
  void add_header_only_cudnn(const Toolkit& t) {
    if (!os_.fs.is_dir(t.root)) return;
    const LibraryKind* kind = kind_for_stem(l_ == Layout::windows ? "cudnn" : "libcudnn", l_ == Layout::windows);
    if (!kind) return;
    std::vector<std::string> incs{join(l_, t.root, "include")};
    const std::string targets = join(l_, t.root, "targets");
    for (const auto& e : listing(targets))
      if (e.is_dir) incs.push_back(join(l_, join(l_, targets, e.name), "include"));
    for (const auto& inc : incs) {
      for (const char* h : kind->headers) {
        const std::string path = join(l_, inc, h);
        auto v = header_version(path, *kind);
        if (!v) continue;
        const std::string canon = canonical_or_self(os_, l_, path);
        if (copy_index_.count(path_key(l_, canon))) break;
        const bool has_lib = std::any_of(out_.copies.begin(), out_.copies.end(), [&](const LibraryCopy& c) {
          return c.library == "cudnn" && !c.soname.empty() && c.origin == "toolkit" && c.origin_detail == t.root &&
                 c.version.has() && major_of(c.version.value()) == major_of(*v);
        });
        if (!has_lib) {
          LibraryCopy c;
          c.library = "cudnn";
          c.path = canon;
          c.file_name = base_name(l_, canon);
          c.version = *v;
          c.version_source = h;
          c.origin = "toolkit";
          c.origin_detail = t.root;
          copy_index_[path_key(l_, canon)] = out_.copies.size();
          file_versions_.push_back("");
          out_.copies.push_back(std::move(c));
        }
        break;
      }
    }
  }

  // ---- the loader cache ------------------------------------------------------------------------
  void read_ld_cache() {
    std::string err;
    auto data = os_.fs.read_file(s_.ld_cache, 64u << 20, &err);
    if (!data) {
      out_.ld_cache = Fact<std::string>::unknown("could not read " + err);
      return;
    }
    std::string perr;
    cache_ = parse::parse_ld_so_cache(*data, &perr);
    if (!cache_) {
      out_.ld_cache = Fact<std::string>::unknown(s_.ld_cache + " is not a loader cache glibc can use: " + perr);
      return;
    }
    out_.ld_cache = s_.ld_cache;
  }

  bool native(const parse::LdCacheEntry& e) const {
    const auto want = parse::ld_cache_native_flags();
    return !want || e.flags == *want;
  }

  void add_cache_copies() {
    for (const auto& e : cache_->entries) {
      if (!native(e) || e.hwcap != 0) continue;
      auto f = parse::parse_library_file_name(e.key);
      if (!f || f->windows) continue;
      const LibraryKind* kind = kind_for_stem(f->stem, false);
      if (!kind || !os_.fs.exists(e.value)) continue;
      const std::string canon = canonical_or_self(os_, l_, e.value);
      add_copy(*kind, canon, {e.key, base_name(l_, e.value)}, {parent(l_, e.value), "ld.so.cache", "", {}, ""});
    }
  }

  // ---- which file the loader picks -------------------------------------------------------------
  void resolve_all() {
    std::set<std::string> present;
    for (const auto& c : out_.copies) present.insert(c.library);
    const auto& wanted = l_ == Layout::windows ? wanted_windows_names() : wanted_posix_names();
    for (const auto& w : wanted) {
      if (!w.always && !present.count(w.library)) continue;
      LoaderResolution r = l_ == Layout::windows ? resolve_windows(w.name) : resolve_posix(w.name);
      if (r.path.has()) {
        r.canonical = canonical_or_self(os_, l_, r.path.value());
        note_resolved_copy(w.library, r);
      }
      out_.resolutions.push_back(std::move(r));
    }
  }

  // glibc's search for one name (elf/dl-load.c, _dl_map_object): a name with a slash is opened as
  // written; otherwise the asking file's DT_RPATH (only when it has no DT_RUNPATH; the executable's
  // own RPATH, searched then too, is not known here), LD_LIBRARY_PATH, the asking file's DT_RUNPATH,
  // the cache, the default folders. Without an asker (what a framework's dlopen gets): from
  // LD_LIBRARY_PATH on.
  LoaderResolution resolve_posix(const std::string& name, const Asker* asker = nullptr) {
    LoaderResolution r;
    r.soname = name;
    if (name.find('/') != std::string::npos) {
      if (is_absolute(l_, name) && os_.fs.exists(name) && !os_.fs.is_dir(name)) {
        r.path = name;
        r.via = "path";
      } else {
        r.path = Fact<std::string>::unknown(is_absolute(l_, name)
                                                ? "the loader opens this path as written, and it does not exist"
                                                : "a relative path: the loader opens it from the current folder");
      }
      return r;
    }
    auto found_in = [&](const std::vector<std::string>& dirs, const char* via) {
      for (const auto& d : dirs) {
        const std::string p = join(l_, d, name);
        if (os_.fs.exists(p) && !os_.fs.is_dir(p)) {
          // "$ORIGIN/../../cublas/lib" is reported as the folder it reaches (the kernel resolves
          // ".." after links, as canonical does).
          const bool own = std::string_view(via) == "RPATH" || std::string_view(via) == "RUNPATH";
          r.path = own && has_dot_parts(d) ? join(l_, canonical_or_self(os_, l_, d), name) : p;
          r.via = via;
          return true;
        }
      }
      return false;
    };
    std::vector<std::string> searched;
    const bool use_rpath = asker && asker->rpath && !asker->runpath;
    const bool use_runpath = asker && asker->runpath;
    // 1. DT_RPATH.
    if (use_rpath) {
      const auto dirs = expand_search_path(*asker->rpath, asker->origin);
      if (found_in(dirs, "RPATH")) return r;
      searched.push_back("its RPATH (" + describe_dirs(dirs) + ")");
    }
    // 2. LD_LIBRARY_PATH, in order.
    if (auto v = os_.env.get("LD_LIBRARY_PATH")) {
      std::vector<std::string> dirs;
      for (auto& d : split_list(l_, *v, s_.max_path_dirs))
        if (d.find('$') == std::string::npos) dirs.push_back(std::move(d));
      if (found_in(dirs, "LD_LIBRARY_PATH")) return r;
    }
    searched.push_back("LD_LIBRARY_PATH");
    // 3. DT_RUNPATH.
    if (use_runpath) {
      const auto dirs = expand_search_path(*asker->runpath, asker->origin);
      if (found_in(dirs, "RUNPATH")) return r;
      searched.push_back("its RUNPATH (" + describe_dirs(dirs) + ")");
    }
    // 4. The cache; a listed file that is gone makes glibc fall through to the default folders.
    if (cache_) {
      for (const auto& e : cache_->entries) {
        if (e.key != name || !native(e) || e.hwcap != 0) continue;
        if (os_.fs.exists(e.value)) {
          r.path = e.value;
          r.via = "ld.so.cache";
          return r;
        }
        break;
      }
    }
    searched.push_back(cache_ ? "the loader cache" : "the (unreadable) loader cache");
    // 5. The default folders.
    if (found_in(s_.default_dirs.empty() ? default_loader_dirs() : s_.default_dirs, "default path")) return r;
    std::string where;
    for (const auto& w : searched) where += w + ", ";
    where.resize(where.size() - 2);
    r.path = Fact<std::string>::unknown(safe("not found by the loader: not in " + where + " or the default folders"));
    return r;
  }

  // DT_RPATH / DT_RUNPATH as the loader reads it: ':'-separated folders, $ORIGIN and ${ORIGIN}
  // replaced by the asking file's folder. Empty or relative entries (the current folder) and other
  // tokens ($LIB, $PLATFORM) are left out: the probe cannot know what they stand for.
  std::vector<std::string> expand_search_path(const std::string& list, const std::string& origin) const {
    std::vector<std::string> out;
    size_t i = 0;
    while (i <= list.size() && out.size() < s_.max_path_dirs) {
      const size_t e = std::min(list.find(':', i), list.size());
      std::string entry = list.substr(i, e - i), d;
      i = e + 1;
      bool ok = true;
      for (size_t k = 0; k < entry.size() && ok; ++k) {
        if (entry[k] != '$') {
          d += entry[k];
          continue;
        }
        const std::string_view rest = std::string_view(entry).substr(k + 1);
        if (rest.rfind("{ORIGIN}", 0) == 0) {
          d += origin;
          k += 8;
        } else if (rest.rfind("ORIGIN", 0) == 0 &&
                   (rest.size() == 6 || !(std::isalnum(static_cast<unsigned char>(rest[6])) || rest[6] == '_'))) {
          d += origin;
          k += 6;
        } else {
          ok = false;
        }
      }
      if (ok && is_absolute(l_, d)) out.push_back(normalize(l_, d));
    }
    return out;
  }

  static std::string describe_dirs(const std::vector<std::string>& dirs) {
    if (dirs.empty()) return "no folder the probe can search";
    std::string out;
    for (size_t i = 0; i < dirs.size() && i < 8; ++i) out += (i ? ", " : "") + dirs[i];
    if (dirs.size() > 8) out += ", ...";
    return out;
  }

  // The standard DLL search order without the application folder (unknown here): System32, then
  // PATH. Python >= 3.8 ignores PATH for dependent DLLs; what PATH would give is still recorded.
  LoaderResolution resolve_windows(const std::string& name) {
    LoaderResolution r;
    r.soname = name;
    const std::string p = join(l_, system32(), name);
    if (os_.fs.exists(p) && !os_.fs.is_dir(p)) {
      r.path = p;
      r.via = "System32";
      return r;
    }
    auto v = os_.env.get("PATH");
    if (!v) v = os_.env.get("Path");
    if (v) {
      for (const auto& d : split_list(l_, *v, s_.max_path_dirs)) {
        const std::string q = join(l_, d, name);
        if (os_.fs.exists(q) && !os_.fs.is_dir(q)) {
          r.path = q;
          r.via = "PATH";
          return r;
        }
      }
    }
    r.path = Fact<std::string>::unknown("not found in System32 or on PATH");
    return r;
  }

  std::string windows_dir() const {
    std::string root = os_.env.get("SystemRoot").value_or(os_.env.get("SYSTEMROOT").value_or(""));
    if (root.empty() || !is_absolute(l_, root)) root = "C:\\Windows";
    return normalize(l_, root);
  }
  std::string system32() const { return s_.system32.empty() ? join(l_, windows_dir(), "System32") : s_.system32; }

  // A resolution into a folder not scanned (System32, a default folder) is a copy too.
  void note_resolved_copy(const std::string& library, const LoaderResolution& r) {
    const std::string canon = canonical_or_self(os_, l_, r.path.value());
    if (copy_index_.count(path_key(l_, canon))) return;
    for (const auto& k : library_kinds()) {
      if (library != k.library) continue;
      const std::string origin = l_ == Layout::windows ? "System32" : "system";
      add_copy(k, canon, {base_name(l_, r.path.value())}, {parent(l_, r.path.value()), origin, "", {}, ""});
    }
  }

  // ---- what each library file needs ------------------------------------------------------------
  // The dynamic section of one file (read once, at most s_.max_elf_files files); nullptr when it
  // is no ELF file the reader accepts (the fixture trees' text stand-ins, a truncated copy).
  const parse::ElfDynamic* elf_of(const std::string& path) {
    const std::string key = path_key(l_, path);
    auto it = elf_cache_.find(key);
    if (it == elf_cache_.end()) {
      std::optional<parse::ElfDynamic> d;
      if (elf_files_read_ < s_.max_elf_files) {
        ++elf_files_read_;
        const parse::ElfReadAt read_at = [&](std::uint64_t offset, size_t length) {
          return os_.fs.read_file_at(path, offset, length, nullptr);
        };
        d = parse::parse_elf_dynamic(read_at, nullptr);
      }
      it = elf_cache_.emplace(key, std::move(d)).first;
    }
    return it->second ? &*it->second : nullptr;
  }

  // What the file names as NEEDED (the C runtime left out), each resolved as the loader would for it.
  // Lookups are remembered (cuDNN's seven sub-libraries all ask for libz.so.1 with one RUNPATH) and
  // capped, so that a folder of hostile files cannot make the probe stat for long.
  std::vector<Dependency> needs_of(const std::string& path, const parse::ElfDynamic& elf) {
    const Asker asker{parent(l_, path), elf.rpath, elf.runpath};
    std::vector<Dependency> out;
    std::set<std::string> seen;
    for (const auto& n : elf.needed) {
      if (c_runtime(n) || !seen.insert(n).second) continue;
      std::string key = n;
      key += '\0' + asker.origin + '\0' + (asker.rpath ? "R" + *asker.rpath : "") + '\0' +
             (asker.runpath ? "U" + *asker.runpath : "");
      auto memo = dependency_memo_.find(key);
      if (memo == dependency_memo_.end()) {
        LoaderResolution lr;
        if (dependency_lookups_ < s_.max_dependency_lookups) {
          ++dependency_lookups_;
          lr = resolve_posix(n, &asker);
        } else {
          lr.path = Fact<std::string>::unknown("not looked up: the probe stops after " +
                                               std::to_string(s_.max_dependency_lookups) + " lookups");
        }
        memo = dependency_memo_.emplace(std::move(key), std::move(lr)).first;
      }
      const LoaderResolution& r = memo->second;
      Dependency d;
      d.name = safe(n);
      d.needed_by = base_name(l_, path);
      d.path = r.path.has() ? Fact<std::string>(safe(r.path.value())) : r.path;
      d.via = r.via;
      out.push_back(std::move(d));
    }
    return out;
  }

  void add_dependencies() {
    for (auto& c : out_.copies) {
      if (c.soname.empty()) continue;  // a header recorded as a copy
      const parse::ElfDynamic* elf = elf_of(c.path);
      if (!elf) continue;
      c.runpath = safe(elf->runpath.value_or(elf->rpath.value_or("")));
      c.needs = needs_of(c.path, *elf);
    }
  }

  // ---- cuDNN sets ------------------------------------------------------------------------------
  void build_cudnn_sets() {
    std::set<std::pair<std::string, int>> done;
    const LibraryKind* kind = kind_for_stem(l_ == Layout::windows ? "cudnn" : "libcudnn", l_ == Layout::windows);
    for (size_t i = 0; i < out_.copies.size(); ++i) {
      const LibraryCopy& c = out_.copies[i];
      if (c.library != "cudnn" || c.soname.empty() || file_versions_[i].empty()) continue;
      const std::string mj = major_of(file_versions_[i]);
      const int major = mj == "8" ? 8 : mj == "9" ? 9 : 0;
      if (major == 0) continue;
      const std::string dir = parent(l_, c.path);
      if (!done.insert({path_key(l_, dir), major}).second) continue;

      CudnnSet set;
      set.dir = dir;
      const auto& subs = cudnn_sub_libraries(major);
      std::string main_version;
      std::vector<std::string> sub_files;  // each sub-library file once, links resolved (Linux)
      for (const auto& e : listing(dir)) {
        auto f = parse::parse_library_file_name(e.name);
        if (!f || f->windows != (l_ == Layout::windows) || major_of(f->version) != mj) continue;
        std::string stem = f->windows ? parse::ascii_lower(f->stem) : f->stem;
        if (!f->windows) {
          if (stem.rfind("lib", 0) != 0) continue;
          stem = stem.substr(3);
        }
        if (stem == "cudnn") {
          if (parts_of(f->version) > parts_of(main_version)) main_version = f->version;
          continue;
        }
        if (std::find(subs.begin(), subs.end(), stem) == subs.end()) continue;
        if (std::find(set.present.begin(), set.present.end(), stem) == set.present.end()) set.present.push_back(stem);
        if (l_ == Layout::posix && !e.is_dir) {
          const std::string full = join(l_, dir, e.name);
          const std::string canon = os_.fs.exists(full) ? canonical_or_self(os_, l_, full) : std::string();
          if (!canon.empty() && std::find(sub_files.begin(), sub_files.end(), canon) == sub_files.end())
            sub_files.push_back(canon);
        }
        std::string& v = set.versions[stem];
        if (parts_of(f->version) > parts_of(v)) v = f->version;
      }
      if (!main_version.empty()) set.versions["cudnn"] = main_version;
      for (const auto& s : subs)
        if (std::find(set.present.begin(), set.present.end(), s) == set.present.end()) set.missing.push_back(s);
      for (const auto& [a, va] : set.versions)
        for (const auto& [b, vb] : set.versions)
          if (!compatible(va, vb)) set.consistent = false;
      auto h = kind ? find_header(*kind, dir, mj) : std::nullopt;
      set.header = h ? Fact<std::string>(h->path)
                     : Fact<std::string>::unknown("no cudnn_version.h of cuDNN " + mj + " next to " + dir);
      set.version = c.version;
      if (l_ == Layout::windows) add_zlibwapi_need(set);
      for (const auto& f : sub_files) {
        const parse::ElfDynamic* elf = elf_of(f);
        if (!elf) continue;
        auto needs = needs_of(f, *elf);
        set.needs.insert(set.needs.end(), std::make_move_iterator(needs.begin()), std::make_move_iterator(needs.end()));
      }
      out_.cudnn_sets.push_back(std::move(set));
    }
  }

  // cuDNN 8.3 to 8.9 on Windows import zlibwapi.dll, which cuDNN does not ship (NVIDIA's cuDNN
  // install guide for Windows: "Install zlib"; 9.0 dropped the dependency). The PE imports are
  // not read, so the need is known from the version; Windows looks for it as for any DLL loaded
  // by name: System32, then PATH ("Could not locate zlibwapi.dll. Please make sure it is in your
  // library path!" otherwise).
  void add_zlibwapi_need(CudnnSet& set) {
    const auto v = set.version.has() ? Version::parse(set.version.value()) : std::nullopt;
    if (!v || v->major() != 8 || v->parts.size() < 2 || v->parts[1] < 3) return;
    std::string by = "cudnn_ops_infer64_8.dll";
    if (std::find(set.present.begin(), set.present.end(), "cudnn_ops_infer") == set.present.end()) by = "cudnn64_8.dll";
    const LoaderResolution r = resolve_windows("zlibwapi.dll");
    Dependency d;
    d.name = "zlibwapi.dll";
    d.needed_by = by;
    d.path = r.path.has() ? r.path
                          : Fact<std::string>::unknown("not found in System32 or on PATH (cuDNN " +
                                                       set.version.value() + " needs it)");
    d.via = r.via;
    set.needs.push_back(std::move(d));
  }

  const Os& os_;
  const LibrarySearch& s_;
  Layout l_;
  LibraryFacts& out_;
  std::optional<parse::LdCache> cache_;
  std::map<std::string, std::vector<DirEntry>> listings_;
  std::set<std::string> scanned_dirs_;
  std::map<std::string, size_t> copy_index_;
  std::vector<std::string> file_versions_;  // parallel to out_.copies: the version in the file names
  std::map<std::string, std::optional<std::string>> header_cache_;
  std::map<std::string, std::optional<parse::CudaVersionJson>> vjson_;
  std::map<std::string, std::optional<parse::ElfDynamic>> elf_cache_;
  size_t elf_files_read_ = 0;
  std::map<std::string, LoaderResolution> dependency_memo_;
  size_t dependency_lookups_ = 0;
};

}  // namespace

std::vector<std::string> default_loader_dirs() { return vendors::loader_default_dirs(); }

void collect_libraries_in(const Os& os, const LibrarySearch& search, const std::vector<Toolkit>& toolkits,
                          const std::vector<PythonEnv>& python, LibraryFacts& out) {
  Collector(os, search, out).run(toolkits, python);
}

}  // namespace probe_detail

void collect_libraries(const Os& os, const std::vector<Toolkit>& toolkits, const std::vector<PythonEnv>& python,
                       LibraryFacts& out, const std::vector<std::string>& extra_dirs) {
  probe_detail::LibrarySearch search;
  search.extra_dirs = extra_dirs;
  probe_detail::collect_libraries_in(os, search, toolkits, python, out);
}

}  // namespace gpuready
