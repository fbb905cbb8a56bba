// What the GPU-relevant packages of one Python environment declare they need (Requires-Dist in
// their installed METADATA), and what the environment has: the closure `pip check` would look
// at, read from files only. The requirements that apply here are kept (markers evaluated for
// this Python, OS and machine; a marker the probe cannot decide is left out, never guessed),
// with the installed version of each; the doctor judges them (rules_frameworks.cpp).
//
// Extras: pip does not record which extras were asked for. An extra counts as in use when every
// package only it brings is installed ("jax[cuda13]": jax-cuda13-plugin), or when a package of
// the closure asks for it ("cuda-toolkit[cublas]"); then its requirements are checked too, which
// is how a jax / CUDA plugin or tensorflow[and-cuda] / cuDNN pin that disagrees is found.
#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <string_view>

#include "parse/python_metadata.h"
#include "parse/requirement.h"
#include "probe/python_internal.h"

namespace gpuready::python {
namespace {

constexpr size_t kMaxSiteEntries = 20000;
constexpr size_t kMetadataBytes = 512 * 1024;  // the header block; a few packages list hundreds of extras
constexpr size_t kMaxDistributions = 600;
constexpr size_t kMaxRequirements = 5000;

// A package that only a GPU setup brings: CUDA/ROCm wheels and plugins, not NumPy or SciPy (a
// networkx[default] or pandas[all] with NumPy installed does not mean its extra was asked for).
bool is_gpu_package(const std::string& n) {
  for (const char* p : {"nvidia-", "jax-cuda", "jax-rocm", "cupy-", "tensorrt", "cuda-", "triton", "onnxruntime-gpu"})
    if (n.rfind(p, 0) == 0) return true;
  return false;
}

struct Installed {
  std::string folder;    // the .dist-info / .egg-info path
  std::string version;   // from the folder name until METADATA is read
  bool is_dir = true;
  bool egg = false;
};

struct Metadata {
  std::string version;
  std::vector<std::string> requires_dist;
};

// The header block's Version and every Requires-Dist value (in order).
Metadata read_metadata(const Os& os, const Installed& d) {
  Metadata m;
  std::string err;
  const std::string path = d.is_dir ? join(d.folder, d.egg ? "PKG-INFO" : "METADATA") : d.folder;
  const auto text = os.fs.read_file(path, kMetadataBytes, &err);
  if (!text) return m;
  const auto core = parse::core_metadata(*text);
  m.version = core.version;
  size_t pos = 0;
  while (pos < text->size()) {
    size_t eol = text->find('\n', pos);
    if (eol == std::string::npos) eol = text->size();
    std::string_view line(text->data() + pos, eol - pos);
    pos = eol + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;  // the end of the headers
    constexpr std::string_view kKey = "Requires-Dist:";
    if (line.size() > kKey.size() && line.substr(0, kKey.size()) == kKey)
      m.requires_dist.emplace_back(line.substr(kKey.size()));
  }
  return m;
}

}  // namespace

std::vector<PythonRequirement> requirement_closure(const Os& os, const std::vector<std::string>& sites,
                                                   const std::vector<PythonPackage>& roots,
                                                   const parse::MarkerEnvironment& env) {
  // Every installed distribution, the first site folder in sys.path order winning.
  std::map<std::string, Installed> installed;
  for (const auto& site : sites) {
    std::string err;
    const auto entries = os.fs.list_dir(site, &err);
    if (!entries) continue;
    for (size_t i = 0; i < entries->size() && i < kMaxSiteEntries; ++i) {
      const auto& e = (*entries)[i];
      const auto folder = parse::dist_folder_name(e.name);
      if (!folder) continue;
      const std::string name = parse::normalize_package_name(folder->name);
      if (installed.count(name)) continue;
      installed[name] = {join(site, e.name), folder->version, e.is_dir, folder->kind == "egg-info"};
    }
  }

  std::vector<PythonRequirement> out;
  std::map<std::string, Metadata> read;             // name -> its metadata, read once
  std::map<std::string, std::set<std::string>> asked;  // name -> extras already followed
  std::deque<std::pair<std::string, std::set<std::string>>> queue;
  for (const auto& p : roots)
    if (installed.count(p.name)) queue.push_back({p.name, {}});

  auto metadata_of = [&](const std::string& name) -> const Metadata& {
    auto it = read.find(name);
    if (it == read.end()) {
      Metadata m = read_metadata(os, installed.at(name));
      if (m.version.empty()) m.version = installed.at(name).version;
      it = read.emplace(name, std::move(m)).first;
    }
    return it->second;
  };

  while (!queue.empty() && read.size() < kMaxDistributions && out.size() < kMaxRequirements) {
    auto [name, extras] = queue.front();
    queue.pop_front();
    auto seen = asked.find(name);
    if (seen != asked.end() && std::includes(seen->second.begin(), seen->second.end(), extras.begin(), extras.end()))
      continue;  // nothing new to follow
    const bool first_visit = seen == asked.end();
    std::set<std::string>& done = asked[name];
    const Metadata& meta = metadata_of(name);

    std::vector<parse::Requirement> reqs;
    for (const auto& line : meta.requires_dist)
      if (auto r = parse::parse_requirement(line)) reqs.push_back(std::move(*r));

    // The requirements that always apply here, and the extras in use.
    std::set<std::string> base;
    for (const auto& r : reqs)
      if (parse::evaluate_marker(r.marker, env, "") == parse::Truth::True) base.insert(r.name);
    std::set<std::string> use = extras;
    if (first_visit) {
      std::map<std::string, std::set<std::string>> only;  // extra -> the packages only it brings
      for (const auto& r : reqs)
        for (const auto& x : parse::marker_extras(r.marker))
          if (!base.count(r.name) && parse::evaluate_marker(r.marker, env, x) == parse::Truth::True) only[x].insert(r.name);
      // An extra counts as in use when everything only it brings is installed and that includes a
      // GPU package (jax[cuda13]: jax-cuda13-plugin); test and docs extras (pytest, hypothesis) do not count.
      for (const auto& [x, names] : only)
        if (!names.empty() &&
            std::all_of(names.begin(), names.end(), [&](const std::string& n) { return installed.count(n) > 0; }) &&
            std::any_of(names.begin(), names.end(), [](const std::string& n) { return is_gpu_package(n); }))
          use.insert(x);
    }

    for (const auto& r : reqs) {
      std::string via;
      if (first_visit && parse::evaluate_marker(r.marker, env, "") == parse::Truth::True) {
        via = "";
      } else {
        bool applies = false;
        for (const auto& x : use) {
          if (done.count(x)) continue;
          if (parse::evaluate_marker(r.marker, env, x) == parse::Truth::True &&
              parse::evaluate_marker(r.marker, env, "") != parse::Truth::True) {
            via = x;
            applies = true;
            break;
          }
        }
        if (!applies) continue;
      }
      PythonRequirement q;
      q.by = name;
      q.by_version = meta.version;
      q.name = r.name;
      q.specifier = r.url.empty() ? r.specifier.str() : "";
      q.extra = via;
      if (installed.count(r.name)) {
        q.installed = metadata_of(r.name).version;
        // The extras it asks of its dependency are followed only on a path somebody asked for: an
        // inferred extra ("jax[cuda13]" or "jax[cuda13-local]"?) cannot say which of them was installed.
        std::set<std::string> want;
        if (via.empty() || extras.count(via)) want.insert(r.extras.begin(), r.extras.end());
        queue.push_back({r.name, want});
      }
      out.push_back(std::move(q));
      if (out.size() >= kMaxRequirements) break;
    }
    done.insert(use.begin(), use.end());
  }
  return out;
}

parse::MarkerEnvironment marker_environment_of(const Os& os, const std::string& python_version) {
#if defined(__aarch64__) || defined(_M_ARM64)
  const char* machine = "aarch64";
#elif defined(__x86_64__) || defined(_M_X64)
  const char* machine = "x86_64";
#else
  const char* machine = "";
#endif
  return parse::marker_environment(python_version, windows_mode(os.env) ? "windows" : "linux", machine);
}

}  // namespace gpuready::python
