// collect_toolkits: every CUDA toolkit install on the machine (CUDA_HOME, CUDA_PATH*, PATH's nvcc,
// /usr/local/cuda*, /opt/cuda, Program Files\...\CUDA\v*, conda envs, pip wheels), merged by the
// folder they really are, each with its version read from files; nvcc runs only when no file answers.
#include <algorithm>
#include <set>

#include "parse/ascii.h"
#include "parse/cuda_headers.h"
#include "parse/python_metadata.h"
#include "probe/probe.h"
#include "probe/toolkits_search.h"
#include "probe/windows_registry.h"

namespace gpuready {
namespace probe_detail {
namespace {

std::string nvcc_name(Layout l) { return l == Layout::windows ? "nvcc.exe" : "nvcc"; }

bool file_exists(const Os& os, const std::string& p) { return os.fs.exists(p) && !os.fs.is_dir(p); }

std::vector<DirEntry> list_sorted(const Os& os, const std::string& dir) {
  std::string err;
  auto r = os.fs.list_dir(dir, &err);
  if (!r) return {};
  std::sort(r->begin(), r->end(), [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
  return std::move(*r);
}

// Appends <root>/targets/<triple>/<leaf> for the first 8 triples (conda, the runfile).
void add_target_dirs(const Os& os, Layout l, const std::string& root, const char* leaf, std::vector<std::string>& out) {
  const std::string targets = join(l, root, "targets");
  if (!os.fs.is_dir(targets)) return;
  size_t n = 0;
  for (const auto& e : list_sorted(os, targets))
    if (e.is_dir && ++n <= 8) out.push_back(join(l, join(l, targets, e.name), leaf));
}

// Header folders of an install: include/ and targets/<triple>/include.
std::vector<std::string> include_dirs(const Os& os, Layout l, const std::string& root) {
  std::vector<std::string> out{join(l, root, "include")};
  add_target_dirs(os, l, root, "include", out);
  return out;
}

// Folders holding the runtime libraries of an install.
std::vector<std::string> runtime_dirs(const Os& os, Layout l, const std::string& root) {
  if (l == Layout::windows) return {join(l, root, "bin"), join(l, join(l, root, "bin"), "x64")};
  std::vector<std::string> out{join(l, root, "lib64"), join(l, root, "lib")};
  add_target_dirs(os, l, root, "lib", out);
  return out;
}

size_t dotted_parts(const std::string& v) { return v.empty() ? 0 : 1 + std::count(v.begin(), v.end(), '.'); }

struct Answer {
  std::string version, source;
};

std::optional<Answer> version_from_files(const Os& os, Layout l, const std::string& root,
                                         const std::vector<std::string>& dist_info_dirs,
                                         std::vector<std::string>& tried) {
  if (auto text = read_small(os, join(l, root, "version.json"))) {
    if (auto j = parse::parse_cuda_version_json(*text); j && j->cuda) return Answer{*j->cuda, "version.json"};
    tried.push_back("version.json has no readable \"cuda\" version");
  }
  if (auto text = read_small(os, join(l, root, "version.txt"))) {
    if (auto v = parse::parse_cuda_version_txt(*text)) return Answer{*v, "version.txt"};
    tried.push_back("version.txt does not say \"CUDA Version\"");
  }
  // Installs assembled from NVIDIA's pip wheels carry the wheels' dist-info instead.
  for (const auto& dir : dist_info_dirs) {
    if (auto d = dist_info_version(os, l, dir, {"nvidia_cuda_nvcc", "nvidia_cuda_runtime"}))
      return Answer{d->version, "dist-info"};
  }
  // conda: the package records in <env>/conda-meta name the versions.
  for (const std::string& meta : {join(l, root, "conda-meta"), join(l, parent(l, root), "conda-meta")}) {
    if (!os.fs.is_dir(meta)) continue;
    const auto entries = list_sorted(os, meta);
    for (const char* pkg : {"cuda-nvcc", "cuda-cudart", "cudatoolkit", "cuda-version"}) {
      for (const auto& e : entries)
        if (auto c = parse::conda_meta_name(e.name); c && c->name == pkg && parse::is_digit(c->version[0]))
          return Answer{c->version, "conda-meta"};
    }
    break;
  }
  for (const auto& inc : include_dirs(os, l, root)) {
    if (auto text = read_small(os, join(l, inc, "cuda.h"), 1 << 20)) {
      if (auto v = parse::parse_cuda_h_version(*text)) return Answer{*v, "cuda.h"};
      tried.push_back("cuda.h has no CUDA_VERSION");
    }
  }
  // The runtime's file name: libcudart.so.12.4.127 / cudart64_110.dll.
  std::string best;
  for (const auto& dir : runtime_dirs(os, l, root)) {
    for (const auto& e : list_sorted(os, dir)) {
      auto f = parse::parse_library_file_name(e.name);
      if (!f || f->version.empty()) continue;
      const bool match = l == Layout::windows ? parse::ascii_lower(f->stem) == "cudart" : f->stem == "libcudart";
      if (match && dotted_parts(f->version) > dotted_parts(best)) best = f->version;
    }
  }
  if (!best.empty()) return Answer{best, "file name"};
  return std::nullopt;
}

class Builder {
 public:
  Builder(const Os& os, const ToolkitSearch& s, std::vector<Toolkit>& out) : os_(os), s_(s), out_(out) {
    for (size_t i = 0; i < out_.size(); ++i) index_[key_of(out_[i].canonical_root)] = i;
    filled_.assign(out_.size(), true);
    dist_hints_.assign(out_.size(), {});
  }
  Layout l() const { return s_.layout; }

  // Adds (or merges into) the install at root; returns its index, or npos for a non-path.
  size_t add(const std::string& root_in, const std::string& found_by) {
    if (!is_absolute(l(), root_in)) return std::string::npos;
    const std::string root = normalize(l(), root_in);
    const std::string canon = os_.fs.is_dir(root) ? canonical_or_self(os_, l(), root) : root;
    const std::string key = key_of(canon);
    auto it = index_.find(key);
    if (it != index_.end()) {
      Toolkit& t = out_[it->second];
      if (std::find(t.found_by.begin(), t.found_by.end(), found_by) == t.found_by.end()) t.found_by.push_back(found_by);
      // Prefer the real folder's own name over a link to it (/usr/local/cuda-12.4 over /usr/local/cuda).
      if (path_key(l(), root) == path_key(l(), canon)) t.root = root;
      return it->second;
    }
    Toolkit t;
    t.root = root;
    t.canonical_root = canon;
    t.found_by.push_back(found_by);
    out_.push_back(std::move(t));
    filled_.push_back(false);
    dist_hints_.emplace_back();
    index_[key] = out_.size() - 1;
    return out_.size() - 1;
  }
  void hint_dist_info(size_t i, const std::string& dir) { dist_hints_.at(i).push_back(dir); }
  void mark_path_nvcc(size_t i, const std::string& nvcc) {
    if (i >= out_.size()) return;
    out_[i].is_path_nvcc = true;
    path_nvcc_ = nvcc;
  }

  // Version and nvcc for every install added by this builder.
  void fill() {
    for (size_t i = 0; i < out_.size(); ++i) {
      if (filled_[i]) continue;
      filled_[i] = true;
      fill_one(out_[i], dist_hints_[i]);
    }
  }

 private:
  std::string key_of(const std::string& canon) const { return path_key(l(), canon); }

  void fill_one(Toolkit& t, const std::vector<std::string>& hints) {
    if (!os_.fs.is_dir(t.root)) {
      t.version = Fact<std::string>::unknown(t.root + " is not a folder (" + t.found_by.front() + " points at it)");
      t.nvcc = Fact<std::string>::unknown("the install folder does not exist");
      return;
    }
    const std::string own_nvcc = join(l(), join(l(), t.root, "bin"), nvcc_name(l()));
    if (file_exists(os_, own_nvcc)) t.nvcc = own_nvcc;
    else if (t.is_path_nvcc && !path_nvcc_.empty()) t.nvcc = path_nvcc_;
    else t.nvcc = Fact<std::string>::unknown("no " + nvcc_name(l()) + " in " + join(l(), t.root, "bin"));

    std::vector<std::string> dist_dirs{join(l(), t.root, "dist-info")};
    dist_dirs.insert(dist_dirs.end(), hints.begin(), hints.end());
    std::vector<std::string> tried;
    if (auto a = version_from_files(os_, l(), t.root, dist_dirs, tried)) {
      t.version = a->version;
      t.version_source = a->source;
      return;
    }
    if (t.nvcc.has()) {
      ProcOptions po;
      po.timeout = s_.nvcc_timeout;
      po.max_output = 64 * 1024;
      const ProcResult r = os_.proc.run({t.nvcc.value(), "--version"}, po);
      if (r.ok()) {
        if (auto v = parse::parse_nvcc_version_output(r.out)) {
          t.version = *v;
          t.version_source = "nvcc --version";
          return;
        }
        tried.push_back("`nvcc --version` printed no release number");
      } else {
        tried.push_back("`nvcc --version` failed: " +
                        (r.timed_out ? std::string("timed out") : r.error.empty() ? r.err.substr(0, 200) : r.error));
      }
    }
    std::string why = "no version.json, version.txt, dist-info, cuda.h or libcudart file name in " + t.root +
                      (t.nvcc.has() ? "" : " and no nvcc to ask");
    for (const auto& s : tried) why += "; " + s;
    t.version = Fact<std::string>::unknown(why);
  }

  const Os& os_;
  const ToolkitSearch& s_;
  std::vector<Toolkit>& out_;
  std::map<std::string, size_t> index_;
  std::vector<bool> filled_;
  std::vector<std::vector<std::string>> dist_hints_;
  std::string path_nvcc_;
};

// The first nvcc on PATH: (the nvcc path, the install root it belongs to).
std::optional<std::pair<std::string, std::string>> path_nvcc(const Os& os, const ToolkitSearch& s) {
  const Layout l = s.layout;
  std::optional<std::string> path = os.env.get("PATH");
  if (!path && l == Layout::windows) path = os.env.get("Path");
  if (!path) return std::nullopt;
  for (const auto& dir : split_list(l, *path, s.max_path_entries)) {
    const std::string cand = join(l, dir, nvcc_name(l));
    if (!file_exists(os, cand)) continue;
    // A link such as /usr/bin/nvcc -> /usr/local/cuda-12.4/bin/nvcc belongs to where it points.
    const std::string real = canonical_or_self(os, l, cand);
    const std::string bin = parent(l, real);
    const std::string root = same_name(l, base_name(l, bin), "bin") ? parent(l, bin) : bin;
    return std::make_pair(cand, root);
  }
  return std::nullopt;
}

bool looks_like_toolkit(const Os& os, Layout l, const std::string& root) {
  if (file_exists(os, join(l, join(l, root, "bin"), nvcc_name(l)))) return true;
  for (const auto& inc : include_dirs(os, l, root))
    if (file_exists(os, join(l, inc, "cuda.h"))) return true;
  return false;
}

bool env_name_is(Layout l, const std::string& name, const std::string& want) { return same_name(l, name, want); }

}  // namespace

std::optional<DistInfoVersion> dist_info_version(const Os& os, Layout l, const std::string& dir,
                                                 const std::vector<std::string>& names,
                                                 const std::vector<DirEntry>* listing) {
  std::vector<DirEntry> own;
  if (!listing) {
    own = list_sorted(os, dir);
    listing = &own;
  }
  for (const auto& want : names) {
    for (const auto& e : *listing) {
      auto d = parse::dist_folder_name(e.name);
      if (!d || d->kind != "dist-info" || d->version.empty()) continue;
      std::string n = parse::ascii_lower(d->name);
      std::replace(n.begin(), n.end(), '-', '_');
      std::replace(n.begin(), n.end(), '.', '_');
      bool match = n == want;
      if (!match && n.size() > want.size() + 3 && n.compare(0, want.size(), want) == 0 &&
          n.compare(want.size(), 3, "_cu") == 0) {
        // "_cu12", "_cu12_libs" (tensorrt)
        match = parse::is_digit(n[want.size() + 3]);
      }
      if (!match) continue;
      const std::string folder = join(l, dir, e.name);
      DistInfoVersion out{d->version, folder};
      if (auto text = read_small(os, join(l, folder, "METADATA"), 16 * 1024)) {
        // A version that does not start with a digit ("dev", garbage) keeps the folder's.
        if (const auto m = parse::core_metadata(*text); m.ok() && parse::is_digit(m.version[0])) out.version = m.version;
      }
      return out;
    }
  }
  return std::nullopt;
}

void collect_toolkits_in(const Os& os, const ToolkitSearch& s, std::vector<Toolkit>& out) {
  const Layout l = s.layout;
  Builder b(os, s, out);

  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    if (auto v = os.env.get(var); v && !v->empty()) b.add(*v, var);
  }
  // CUDA_PATH_V11_0, CUDA_PATH_V12_4: one per install by the Windows installer.
  for (const auto& [name, value] : os.env.all()) {
    const std::string up = l == Layout::windows ? parse::ascii_lower(name) : name;
    const std::string prefix = l == Layout::windows ? "cuda_path_v" : "CUDA_PATH_V";
    if (up.size() > prefix.size() && up.compare(0, prefix.size(), prefix) == 0 && !value.empty() &&
        !env_name_is(l, name, "CUDA_PATH"))
      b.add(value, name);
  }

  std::optional<std::pair<std::string, std::string>> nvcc = path_nvcc(os, s);
  if (nvcc) b.mark_path_nvcc(b.add(nvcc->second, "PATH nvcc"), nvcc->first);

  if (l == Layout::posix) {
    for (const auto& e : list_sorted(os, "/usr/local")) {
      if (e.name.rfind("cuda", 0) == 0 && e.is_dir) b.add("/usr/local/" + e.name, "/usr/local/cuda*");
    }
    if (os.fs.is_dir("/opt/cuda")) b.add("/opt/cuda", "/opt/cuda");
  } else {
    std::string pf = os.env.get("ProgramFiles").value_or("");
    if (pf.empty() || !is_absolute(l, pf)) pf = "C:\\Program Files";
    const std::string base = join(l, join(l, normalize(l, pf), "NVIDIA GPU Computing Toolkit"), "CUDA");
    for (const auto& e : list_sorted(os, base)) {
      if (e.is_dir && (e.name[0] == 'v' || e.name[0] == 'V'))
        b.add(join(l, base, e.name), "Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v*");
    }
    // The installer registers each toolkit (also one installed elsewhere than Program Files).
    for (const auto& t : windows::read_registered_toolkits(os.reg))
      if (is_absolute(l, t.install_dir)) b.add(normalize(l, t.install_dir), "registry");
  }

  for (const auto& env : find_conda_envs(os, l)) {
    // Windows conda packages put the toolkit under <env>\Library.
    const std::string root = l == Layout::windows ? join(l, env.prefix, "Library") : env.prefix;
    if (looks_like_toolkit(os, l, root)) b.add(root, "conda");
  }
  b.fill();
}

void collect_pip_toolkits_in(const Os& os, const ToolkitSearch& s, const std::vector<std::string>& site_packages,
                             std::vector<Toolkit>& out) {
  const Layout l = s.layout;
  Builder b(os, s, out);
  std::set<std::string> seen;
  for (const auto& sp : site_packages) {
    if (!seen.insert(path_key(l, sp)).second || seen.size() > 32) continue;
    const std::string nv = join(l, sp, "nvidia");
    if (!os.fs.is_dir(nv)) continue;
    // CUDA 12 wheels: nvidia/cuda_nvcc; CUDA 13 wheels share one nvidia/cu13 tree.
    for (const auto& e : list_sorted(os, nv)) {
      const bool cu_tree = e.name.size() >= 3 && e.name.compare(0, 2, "cu") == 0 &&
                           std::all_of(e.name.begin() + 2, e.name.end(), [](char c) { return c >= '0' && c <= '9'; });
      if (!e.is_dir || (e.name != "cuda_nvcc" && !cu_tree)) continue;
      const std::string root = join(l, nv, e.name);
      if (!file_exists(os, join(l, join(l, root, "bin"), nvcc_name(l)))) continue;
      const size_t i = b.add(root, "pip");
      if (i != std::string::npos) b.hint_dist_info(i, sp);
    }
  }
  b.fill();
}

}  // namespace probe_detail

void collect_pip_toolkits(const Os& os, const std::vector<PythonEnv>& python, std::vector<Toolkit>& out) {
  std::vector<std::string> site_packages;
  for (const auto& env : python) site_packages.insert(site_packages.end(), env.site_packages.begin(), env.site_packages.end());
  probe_detail::collect_pip_toolkits_in(os, probe_detail::ToolkitSearch{}, site_packages, out);
}

void collect_toolkits(const Os& os, std::vector<Toolkit>& out) {
  probe_detail::collect_toolkits_in(os, probe_detail::ToolkitSearch{}, out);
}

}  // namespace gpuready
